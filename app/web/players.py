"""Player stats: the `/players` leaderboard page and its JSON API (`/api/players`).

Figures are per name on this server, names matched ignoring case and shown as last used;
bots are left out. The page is a shell: static/js/leaderboard.js fetches the API.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

from app.db.stats import Sort
from app.web.deps import StatsDep
from app.web.models import DATABASE_AWAY, MAX_OFFSET
from app.web.pages import render

router = APIRouter()
NAME_PATTERN = r"^[^\x00-\x1f\x7f]*$"  # as a seat's name: no control characters


class PlayerStats(BaseModel):
    name: str
    games: int
    wins: int
    average_place: float
    dudo_calls: int
    dudo_wins: int
    dudo_rate: float | None  # dudo_wins / dudo_calls; null before a first dudo
    calza_calls: int
    calza_wins: int
    calza_rate: float | None


class PlayerPage(BaseModel):
    players: list[PlayerStats]
    total: int  # players in all, for the pager


@router.get("/api/players", responses=DATABASE_AWAY)
def list_players(
    stats: StatsDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    sort: Sort = "wins",
) -> PlayerPage:
    """People who finished a game here: most wins first (fewest games among equals), or
    most games, or by name (a sync route: FastAPI runs it in a worker thread)."""
    players, total = stats.leaderboard(sort, limit, offset)
    return PlayerPage.model_validate({"players": players, "total": total})


@router.get(
    "/api/players/{name:path}",
    responses={404: {"description": "No such player"}, **DATABASE_AWAY},
)
def get_player(
    name: Annotated[str, Path(min_length=1, max_length=64, pattern=NAME_PATTERN)],
    stats: StatsDep,
) -> PlayerStats:
    """One player, the name matched ignoring case."""
    player = stats.player(name)
    if player is None:
        raise HTTPException(404, "No such player.")
    return PlayerStats.model_validate(player)


@router.get("/players", response_class=HTMLResponse)
def leaderboard(request: Request) -> HTMLResponse:
    """The leaderboard; `?sort=games&page=2` pick the order and page, `?name=Ana` puts one
    player's figures above it."""
    return render(request, "players.html")
