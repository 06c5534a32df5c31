"""Carrying a player key to another device: a one-time code from the player's page, valid
for 10 minutes (app/db/claims.py), that the other browser turns into its `perudo_player`
cookie. No e-mail, no password: whoever holds the code holds the key.

Both calls are POSTs from our own pages (an Origin of another site is refused): a page that
could redeem a code in someone's browser would hand them another person's key.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Path, Request, Response
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, StringConstraints

from app.db.claims import CODE_LENGTH
from app.web.deps import ClaimsDep, SettingsDep
from app.web.limits import origin_allowed
from app.web.models import DATABASE_AWAY
from app.web.pages import render
from app.web.player_key import cookie_key, keep_player_key

router = APIRouter()
# A code as typed: its characters, perhaps grouped with spaces or dashes.
Code = Annotated[str, StringConstraints(min_length=1, max_length=3 * CODE_LENGTH)]


async def same_origin(request: Request, settings: SettingsDep) -> None:
    """Refuse a POST another site's page makes in a visitor's browser."""
    headers = request.headers
    if not origin_allowed(headers.get("origin"), headers.get("host"), settings.origins()):
        raise HTTPException(403, "Not from this site.")


class DeviceLink(BaseModel):
    code: str
    url: str  # the other device opens it, or types the code at /link
    expires_at: datetime


class Redeem(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    code: Code


class Redeemed(BaseModel):
    ok: bool


@router.post(
    "/api/device-links",
    status_code=201,
    dependencies=[Depends(same_origin)],
    responses={
        403: {"description": "No player key here, or from another site's page"},
        **DATABASE_AWAY,
    },
)
def create_link(request: Request, claims: ClaimsDep) -> DeviceLink:
    """A one-time code for the key this browser holds (its cookie)."""
    player_key = cookie_key(request.cookies)
    if player_key is None:
        raise HTTPException(403, "This browser holds no player key yet.")
    code, expires_at = claims.create_link(player_key)
    url = str(request.url_for("link_page", code=code))
    return DeviceLink(code=code, url=url, expires_at=expires_at)


@router.post(
    "/api/device-links/redeem",
    dependencies=[Depends(same_origin)],
    responses={
        400: {"description": "A body that is not JSON text"},
        403: {"description": "From another site's page"},
        404: {"description": "Unknown, used or expired code"},
        **DATABASE_AWAY,
    },
)
def redeem_link(body: Redeem, request: Request, response: Response, claims: ClaimsDep) -> Redeemed:
    """Take the key a code carries: this browser plays as its owner from now on."""
    player_key = claims.redeem(body.code)
    if player_key is None:
        raise HTTPException(404, "This code is unknown, used or expired.")
    keep_player_key(request, response, player_key)
    return Redeemed(ok=True)


@router.get("/link", response_class=HTMLResponse)
def link_form(request: Request) -> HTMLResponse:
    """Type a code from another device."""
    return render(request, "link.html", code="")


@router.get("/link/{code}", response_class=HTMLResponse)
def link_page(
    request: Request, code: Annotated[str, Path(max_length=3 * CODE_LENGTH)]
) -> HTMLResponse:
    """A code's link: a page with one button, so a chat app's link preview, which fetches the
    page, does not use the code up."""
    return render(request, "link.html", code=code)
