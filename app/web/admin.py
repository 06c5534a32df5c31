"""The operator's console: `/admin` (HTML) and `/api/admin/` (JSON), off unless
PERUDO_ADMIN_TOKEN is set.

A browser signs in once with the token and keeps a signed, HttpOnly, SameSite=Strict cookie;
each change it asks for is a POST carrying a CSRF token derived from that cookie. A script
sends the token itself (`Authorization: Bearer`), which no other site can make a browser send,
so it needs no CSRF token. The token is compared in constant time and never logged.

The console reaches every instance through the database: its orders (a notice to every table,
close a room, drain an instance, report your rooms) are rows every instance reads at each
lease renewal (`obey_forever`).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, StringConstraints, ValidationError

from app.db.console import ConsoleRepository, Order
from app.protocol import Phase
from app.rooms import Registry
from app.rooms import console as rooms_console
from app.rooms.ownership import RENEW_SECONDS
from app.rooms.registry import ELSEWHERE
from app.web.deps import RegistryDep, SettingsDep
from app.web.limits import same_secret
from app.web.models import Detail
from app.web.pages import render

logger = logging.getLogger(__name__)
router = APIRouter()

COOKIE = "perudo_admin"
CSRF_HEADER = "X-CSRF-Token"
SESSION_SECONDS = 12 * 3600  # a browser signs in again after this
REPORT_WAIT_SECONDS = 3 * RENEW_SECONDS  # how long the overview waits for every report
CLOSED_TEXT = "The server's host closed this room."
NoticeText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]


def _sign(token: str, purpose: str, value: str) -> str:
    return hmac.new(token.encode(), f"{purpose}:{value}".encode(), hashlib.sha256).hexdigest()


def new_session(token: str, now: float) -> str:
    """A cookie value: when it was issued, signed with the token (a new token voids it)."""
    issued = str(int(now))
    return f"{issued}.{_sign(token, 'session', issued)}"


def valid_session(token: str, cookie: str | None, now: float) -> bool:
    issued, _, signature = (cookie or "").partition(".")
    if not issued.isdigit() or not hmac.compare_digest(signature, _sign(token, "session", issued)):
        return False
    return now - int(issued) < SESSION_SECONDS


def csrf_token(token: str, session: str) -> str:
    """The CSRF token of one signed-in browser: only pages of this server can read it."""
    return _sign(token, "csrf", session)[:32]


@dataclass(frozen=True, slots=True)
class Operator:
    """Who is asking: a script with the token, or a browser with a session cookie."""

    token: str
    session: str | None  # None: the token itself came (a script)

    def allows(self, csrf: str | None) -> bool:
        if self.session is None:
            return True
        expected = csrf_token(self.token, self.session)
        return same_secret(csrf, expected)


def _operator(request: Request, token: str) -> Operator | None:
    if not token:
        raise HTTPException(404, "Not Found")
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and same_secret(given, token):
        return Operator(token, None)
    session = request.cookies.get(COOKIE)
    if valid_session(token, session, time.time()):
        return Operator(token, session)
    return None


async def operator(request: Request, settings: SettingsDep) -> Operator:
    """The operator (404 with the console off, 401 without the token or a session)."""
    found = _operator(request, settings.admin_token)
    if found is None:
        raise HTTPException(401, "The console needs the admin token.")
    return found


async def changing(request: Request, who: Annotated[Operator, Depends(operator)]) -> Operator:
    """The operator, for a change: a browser must send its CSRF token (403 otherwise)."""
    if not who.allows(request.headers.get(CSRF_HEADER)):
        raise HTTPException(403, "The CSRF token is missing or wrong.")
    return who


OperatorDep = Annotated[Operator, Depends(operator)]
ChangeDep = Annotated[Operator, Depends(changing)]
REFUSED: dict[int | str, dict[str, Any]] = {
    401: {"model": Detail, "description": "No admin token or session"},
    403: {"model": Detail, "description": "A browser's CSRF token is missing or wrong"},
    404: {"model": Detail, "description": "The console is off (PERUDO_ADMIN_TOKEN unset)"},
}


class LiveRoom(BaseModel):
    room_id: str
    instance: str
    phase: Phase
    players: int
    sockets: int
    spectators: int
    age: int  # seconds since its instance made or restored it
    idle: int  # seconds since its last change


class InstanceInfo(BaseModel):
    name: str
    alive: bool
    expires_in: float  # seconds its heartbeat has left (negative: ran out)
    reads: int  # the newest room format it reads
    rooms: int | None  # None: it did not report in time


class Today(BaseModel):
    games: int  # finished since midnight UTC
    players: int  # different people (not bots) in them


class Overview(BaseModel):
    instances: list[InstanceInfo]
    rooms: list[LiveRoom]
    today: Today


class NoticeBody(BaseModel):
    text: NoticeText


class Ordered(BaseModel):
    """The order was given; every instance it is for carries it out within about a second."""

    order: int


def console_of(request: Request) -> ConsoleRepository:
    console: ConsoleRepository = request.app.state.console
    return console


async def overview(console: ConsoleRepository) -> Overview:
    """Ask every instance for its rooms, wait (a few seconds at most) until each live one
    answered, and put it together with the heartbeats and today's figures."""
    asked = time.time()
    await asyncio.to_thread(console.order, "report")
    deadline = asked + REPORT_WAIT_SECONDS
    while True:
        instances = await asyncio.to_thread(console.instances)
        fresh = [(row["reported_at"] or 0) >= asked for row in instances if row["alive"]]
        if all(fresh) or time.time() > deadline:
            break
        await asyncio.sleep(0.1)
    rooms = [
        LiveRoom(instance=row["name"], **room)
        for row in instances
        if row["alive"] and (row["reported_at"] or 0) >= asked
        for room in row["rooms"]
    ]
    return Overview(
        instances=[
            InstanceInfo(
                name=row["name"],
                alive=row["alive"],
                expires_in=row["expires_in"],
                reads=row["reads"],
                rooms=len(row["rooms"]) if (row["reported_at"] or 0) >= asked else None,
            )
            for row in instances
        ],
        rooms=sorted(rooms, key=lambda room: (room.instance, -room.sockets, room.room_id)),
        today=Today(**await asyncio.to_thread(console.today)),
    )


async def close_room(console: ConsoleRepository, registry: Registry, room_id: str) -> int:
    """Order the room's holder to close it; a room nobody holds is taken here first. 404 if
    no such room lives."""
    holder = await asyncio.to_thread(console.holder, room_id)
    if holder is None:
        opened = await registry.open(room_id)
        if opened is None:
            raise HTTPException(404, "No such room.")
        if opened is not ELSEWHERE and registry.ownership is not None:
            holder = registry.ownership.instance
    return await asyncio.to_thread(console.order, "close", target=holder, room_id=room_id)


async def drain(console: ConsoleRepository, name: str) -> int:
    alive = {row["name"] for row in await asyncio.to_thread(console.instances) if row["alive"]}
    if name not in alive:
        raise HTTPException(404, "No such live instance.")
    return await asyncio.to_thread(console.order, "drain", target=name)


# ----- JSON, for scripts -------------------------------------------------------------------


@router.get("/api/admin/overview", responses=REFUSED)
async def api_overview(request: Request, who: OperatorDep) -> Overview:
    """The live rooms of every instance, the instances' heartbeats, today's games and players."""
    return await overview(console_of(request))


@router.post(
    "/api/admin/notice",
    status_code=202,
    responses={400: {"model": Detail, "description": "The body is not JSON"}, **REFUSED},
)
async def api_notice(request: Request, body: NoticeBody, who: ChangeDep) -> Ordered:
    """A `notice` to every connection of every room on every instance."""
    console = console_of(request)
    return Ordered(order=await asyncio.to_thread(console.order, "notice", text=body.text))


@router.post("/api/admin/rooms/{room_id}/close", status_code=202, responses=REFUSED)
async def api_close(
    request: Request, room_id: str, registry: RegistryDep, who: ChangeDep
) -> Ordered:
    """Close a room: its people get a `notice` and 4410, a finished game is saved."""
    return Ordered(order=await close_room(console_of(request), registry, room_id))


@router.post("/api/admin/instances/{name}/drain", status_code=202, responses=REFUSED)
async def api_drain(request: Request, name: str, who: ChangeDep) -> Ordered:
    """Stop an instance cleanly: its rooms move to the others, as in a rolling restart."""
    return Ordered(order=await drain(console_of(request), name))


# ----- HTML, for a person --------------------------------------------------------------------


async def _form(request: Request) -> dict[str, str]:
    """A urlencoded form's fields (the last value of each)."""
    fields = parse_qs((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)
    return {name: values[-1] for name, values in fields.items()}


def _signed_in_page(request: Request, who: Operator, view: Overview, done: str) -> HTMLResponse:
    session = who.session or ""
    page = render(
        request,
        "admin.html",
        view=view,
        done=done,
        csrf=csrf_token(who.token, session) if session else "",
    )
    page.headers["Cache-Control"] = "no-store"
    return page


def _login_page(request: Request, wrong: bool) -> HTMLResponse:
    page = render(request, "admin.html", view=None, wrong=wrong)
    page.status_code = 401
    page.headers["Cache-Control"] = "no-store"
    return page


@router.get("/admin", include_in_schema=False)
async def admin_page(request: Request, settings: SettingsDep) -> Response:
    who = _operator(request, settings.admin_token)
    if who is None:
        return _login_page(request, wrong=False)
    done = request.query_params.get("done", "")
    return _signed_in_page(request, who, await overview(console_of(request)), done)


@router.post("/admin/login", include_in_schema=False)
async def admin_login(request: Request, settings: SettingsDep) -> Response:
    if not settings.admin_token:
        raise HTTPException(404, "Not Found")
    if not same_secret((await _form(request)).get("token"), settings.admin_token):
        logger.warning("a wrong admin token was given", extra={"event": "admin_refused"})
        return _login_page(request, wrong=True)
    answer = RedirectResponse("/admin", status_code=303)
    answer.set_cookie(
        COOKIE,
        new_session(settings.admin_token, time.time()),
        max_age=SESSION_SECONDS,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return answer


@router.post("/admin/{action}", include_in_schema=False)
async def admin_action(
    request: Request, action: str, registry: RegistryDep, settings: SettingsDep
) -> Response:
    """The console's forms: `notice`, `close`, `drain`, `logout`, each with its CSRF token."""
    who = _operator(request, settings.admin_token)
    if who is None:
        return _login_page(request, wrong=False)
    fields = await _form(request)
    if not who.allows(fields.get("csrf")):
        raise HTTPException(403, "The CSRF token is missing or wrong.")
    console = console_of(request)
    if action == "logout":
        answer = RedirectResponse("/admin", status_code=303)
        answer.delete_cookie(COOKIE, path="/")
        return answer
    if action == "notice":
        try:
            text = NoticeBody(text=fields.get("text", "")).text
        except ValidationError as error:  # empty or too long
            raise HTTPException(422, "A notice is 1 to 300 characters.") from error
        await asyncio.to_thread(console.order, "notice", text=text)
    elif action == "close":
        await close_room(console, registry, fields.get("room_id", ""))
    elif action == "drain":
        await drain(console, fields.get("instance", ""))
    else:
        raise HTTPException(404, "Not Found")
    return RedirectResponse(f"/admin?done={action}", status_code=303)


# ----- every instance: carry out the console's orders ---------------------------------------


async def obey(
    order: Order,
    registry: Registry,
    console: ConsoleRepository,
    instance: str,
    stop: Callable[[], None],
) -> None:
    if order.action == "notice" and order.text:
        await rooms_console.notice(registry, order.text)
    elif order.action == "close" and order.room_id:
        await rooms_console.close_room(registry, order.room_id, CLOSED_TEXT)
    elif order.action == "report":
        await asyncio.to_thread(console.report, instance, rooms_console.report(registry))
    elif order.action == "drain":
        logger.info("drained by the operator: stopping", extra={"event": "drained"})
        stop()


async def obey_forever(
    registry: Registry, console: ConsoleRepository, instance: str, stop: Callable[[], None]
) -> None:
    """Read the console's orders for this instance each second and carry them out (those
    given before it started are not for it)."""
    last: int | None = None
    while True:
        try:
            if last is None:
                last = await asyncio.to_thread(console.last_order)
            for order in await asyncio.to_thread(console.orders_after, last, instance):
                last = order.id
                await obey(order, registry, console, instance, stop)
        except Exception:  # the database is away: the orders wait for it
            logger.exception("could not read the console's orders")
        await asyncio.sleep(RENEW_SECONDS)
