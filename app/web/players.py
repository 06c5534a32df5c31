"""Player stats: the `/players` leaderboard page and its JSON API (`/api/players`), and a
player's own page (`/players/{name}`: their rating over time and their regular opponents).

Figures are per name on this server, names matched ignoring case and shown as last used;
bots are rated per level, beside the people. The leaderboard is a shell that
static/js/leaderboard.js fills from the API; a player's page is drawn here, chart included.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel

from app.db.ratings import PROVISIONAL_GAMES
from app.db.stats import Sort
from app.protocol import NAME_PATTERN
from app.web.chart import rating_chart
from app.web.deps import ClaimsDep, StatsDep
from app.web.models import DATABASE_AWAY, MAX_OFFSET
from app.web.pages import render
from app.web.player_key import cookie_key

router = APIRouter()


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
    rating: float  # mu: the skill the games so far point to
    rating_sigma: float  # its uncertainty
    rating_low: float  # mu - 3 sigma: the conservative figure the leaderboard ranks by
    rated_games: int
    provisional: bool  # fewer than 10 rated games
    claimed: bool  # a player key owns the name


class BotRating(BaseModel):
    level: str
    rating: float
    rating_sigma: float
    rating_low: float
    rated_games: int
    provisional: bool


class PlayerPage(BaseModel):
    players: list[PlayerStats]
    total: int  # players in all, for the pager
    bots: list[BotRating]  # each bot level's rating, best first (beyond PROTOCOL.md)


@router.get("/api/players", responses=DATABASE_AWAY)
def list_players(
    stats: StatsDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    sort: Sort = "rating",
) -> PlayerPage:
    """People who finished a game here: highest conservative rating first, or most wins
    (fewest games among equals), or most games, or by name (a sync route: FastAPI runs it in
    a worker thread)."""
    players, total = stats.leaderboard(sort, limit, offset)
    return PlayerPage.model_validate({"players": players, "total": total, "bots": stats.bots()})


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


@router.get(
    "/players/{name:path}",
    response_class=HTMLResponse,
    responses={404: {"description": "No such player"}, **DATABASE_AWAY},
)
def player_page(
    request: Request,
    name: Annotated[str, Path(min_length=1, max_length=64, pattern=NAME_PATTERN)],
    stats: StatsDep,
    claims: ClaimsDep,
) -> HTMLResponse:
    """One player's rating over time, their record against regular opponents, and (for the
    browser that owns the name) the link that carries it to another device."""
    player = stats.player(name)
    if player is None:
        response = render(request, "player.html", player=None, player_name=name)
        response.status_code = 404
        return response
    history = stats.history(name)
    return render(
        request,
        "player.html",
        player=player,
        player_name=player["name"],
        history=history,
        chart=rating_chart([point["rating_low"] for point in history]),
        opponents=stats.opponents(name),
        provisional_games=PROVISIONAL_GAMES,
        owned=claims.owns(name, cookie_key(request.cookies)),
    )
