"""HTML pages: thin Jinja shells; the browser fetches everything else over the API and socket.

No page touches the database or a room: the room page connects to `/ws/{room_id}` and the
history pages fetch `/api/games`, so this module only renders templates and the share QR code.
"""

from __future__ import annotations

from typing import Any

import segno
from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader

from app import i18n
from app.paths import STATIC_DIR, TEMPLATES_DIR
from app.web.player_key import keep_player_key

# Pages load only local scripts and styles; inline SVG (dice, QR) needs no img-src.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
# The offline worker runs under its own script's policy: it only fetches from this server.
WORKER_POLICY = "default-src 'none'; connect-src 'self'"

environment = Environment(
    loader=FileSystemLoader(TEMPLATES_DIR), autoescape=True, extensions=["jinja2.ext.i18n"]
)
environment.policies["ext.i18n.trimmed"] = True
# The gettext functions follow the request's language (i18n.speaking), so macros imported
# without context translate too.
environment.install_gettext_callables(  # type: ignore[attr-defined]
    i18n.gettext, i18n.ngettext, newstyle=True
)
templates = Jinja2Templates(env=environment)
router = APIRouter(default_response_class=HTMLResponse)


def page_language(request: Request) -> str:
    """The language this request's page is drawn in (app/i18n.py: query, cookie, header)."""
    return i18n.negotiate(
        request.query_params.get("lang"),
        request.cookies.get(i18n.COOKIE),
        request.headers.get("accept-language"),
    )


def render(request: Request, name: str, **context: Any) -> HTMLResponse:
    """Render one page, in the request's language, with the headers every page shares."""
    code = page_language(request)
    # A language chosen by link (?lang=, no cookie) follows the header's links too.
    linked = i18n.known(request.query_params.get("lang"))
    with i18n.speaking(code) as language:
        context.update(
            lang=code,
            lang_query=f"?lang={linked}" if linked else "",
            languages=i18n.LANGUAGES,
            js_messages=language.js,
        )
        response = templates.TemplateResponse(request, name, context)
    response.headers["Content-Language"] = code
    response.headers["Vary"] = "Accept-Language, Cookie"
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


def qr_svg(text: str) -> str:
    """An inline SVG QR code of `text`, drawn dark on light so any phone camera reads it."""
    return segno.make(text, error="m").svg_inline(
        scale=4, border=2, dark="#1c1917", light="#fffdf5", omitsize=True
    )


@router.get("/")
def home(request: Request) -> HTMLResponse:
    """Create a room or join one by its code."""
    return render(request, "index.html")


@router.get("/r/{room_id}")
def room(request: Request, room_id: str) -> HTMLResponse:
    """The room: lobby, table, reveal and game end are all drawn by static/js/room.js. A
    browser sitting down for the first time gets its player key here."""
    share_url = str(request.url_for("room", room_id=room_id))
    response = render(
        request,
        "room.html",
        room_id=room_id,
        share_url=share_url,
        qr_svg=qr_svg(share_url),
    )
    keep_player_key(request, response)
    return response


@router.get("/games")
def games(request: Request) -> HTMLResponse:
    """Recent finished games (the list is fetched from /api/games)."""
    return render(request, "games.html")


@router.get("/games/{game_id}")
def replay(request: Request, game_id: str) -> HTMLResponse:
    """Step through one saved game bid by bid, every die shown."""
    return render(request, "replay.html", game_id=game_id)


@router.get("/rules")
def rules(request: Request) -> HTMLResponse:
    """How to play, as this server plays it: one page per language, written for its players."""
    return render(request, f"rules/{page_language(request)}.html")


@router.get("/offline")
def offline(request: Request) -> HTMLResponse:
    """What the service worker shows for a page it never saved while there is no connection."""
    return render(request, "offline.html")


@router.get("/sw.js", include_in_schema=False)
def service_worker() -> FileResponse:
    """The offline worker (static/sw.js), served from the root: a worker controls only the
    pages under its own path, and the table is at /r/...; no-cache, so a new one is seen."""
    return FileResponse(
        STATIC_DIR / "sw.js",
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Content-Security-Policy": WORKER_POLICY},
    )
