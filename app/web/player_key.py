"""The browser's player key: the HttpOnly `perudo_player` cookie (app/db/claims.py says what
a key claims). Made when a browser first opens a room, so the game socket's handshake carries
it; scripts send theirs in the hello instead (`player_key`)."""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import Request, Response

from app.db.claims import new_player_key, well_formed

PLAYER_COOKIE = "perudo_player"
COOKIE_SECONDS = 10 * 365 * 24 * 3600  # kept until the browser forgets it


def cookie_key(cookies: Mapping[str, str]) -> str | None:
    """The player key a request's cookies carry, if well formed."""
    player_key = cookies.get(PLAYER_COOKIE)
    return player_key if well_formed(player_key) else None


def keep_player_key(request: Request, response: Response, player_key: str | None = None) -> None:
    """Give the browser `player_key` (a device link's), or a new key if it holds none yet."""
    if player_key is None:
        if cookie_key(request.cookies) is not None:
            return
        player_key = new_player_key()
    response.set_cookie(
        PLAYER_COOKIE,
        player_key,
        max_age=COOKIE_SECONDS,
        path="/",
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="lax",
    )
