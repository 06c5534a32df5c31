"""The bots: always legal, only ever read the player view, play games to the end, and play well."""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import (
    BOT_LEVELS,
    Bid,
    BidMade,
    BidView,
    BotLevel,
    Calza,
    Dudo,
    Game,
    GameSettings,
    GameView,
    choose_action,
    maybe_calza,
    player_view,
)
from app.engine.bids import BidContext, min_quantities
from app.engine.game import Action
from bench.bots import MATCHUPS, play_game
from tests.engine.helpers import game_settings, seat_sets


def random_legal(view: GameView, rng: random.Random) -> Action:
    """Any legal action of the seat to act, read from `you.legal` (a wilder player than a bot)."""
    legal = view["you"]["legal"]
    assert view["round"] is not None
    total = view["round"]["total_dice"]
    actions: list[Action] = [
        Bid(rng.randint(least, min(total, least + 2)), face)
        for face, least in enumerate(legal["min_quantity"], start=1)
        if least is not None
    ]
    if legal["dudo"]:
        actions.append(Dudo())
    return rng.choice(actions)


def offer_calza(game: Game, levels: dict[int, BotLevel], rng: random.Random) -> bool:
    """After a bid, let every bot that may call calza decide; True when one did."""
    for seat in game.active_seats():
        if maybe_calza(player_view(game, seat), levels[seat], rng):
            game.apply(seat, Calza())
            return True
    return False


def advance(game: Game, steps: int, rng: random.Random) -> None:
    """Play `steps` actions, mostly by bots of random levels, sometimes a random legal one."""
    levels: dict[int, BotLevel] = {seat: rng.choice(BOT_LEVELS) for seat in game.seats}
    for _ in range(steps):
        if game.round is None:
            return
        seat = game.round.turn
        view = player_view(game, seat)
        wild = rng.random() < 0.3
        action = random_legal(view, rng) if wild else choose_action(view, levels[seat], rng)
        events = game.apply(seat, action)
        if isinstance(events[0], BidMade):
            offer_calza(game, levels, rng)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    seats=seat_sets,
    rules=game_settings,
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 300),
)
def test_every_level_only_makes_legal_moves(
    seats: list[int], rules: GameSettings, seed: int, steps: int
) -> None:
    game = Game(seats, random.Random(seed), rules)
    advance(game, steps, random.Random(seed + 1))
    if game.round is None:
        return
    turn = game.round.turn
    for level in BOT_LEVELS:
        action = choose_action(player_view(game, turn), level, random.Random(seed))
        copy.deepcopy(game).apply(turn, action)  # raises RuleError if illegal
        for seat in game.active_seats():
            if maybe_calza(player_view(game, seat), level, random.Random(seed)):
                copy.deepcopy(game).apply(seat, Calza())


@pytest.mark.parametrize(
    "rules",
    [
        GameSettings(),
        GameSettings(calza_rule="asmodee"),
        GameSettings(calza=False, palifico=False),
    ],
    ids=["pressman", "asmodee", "plain"],
)
def test_games_of_only_bots_play_to_the_end(rules: GameSettings) -> None:
    """Every decision of 30 whole games is applied by the engine, which would refuse any
    illegal one; the games cover palifico rounds, calza calls and two-player endings."""
    seen: Counter[str] = Counter()
    for number in range(30):
        seats = list(range(2 + number % 5))
        levels: dict[int, BotLevel] = {s: BOT_LEVELS[(s + number) % 3] for s in seats}
        game = Game(seats, random.Random(number), rules)
        rng = random.Random(-number)
        for _ in range(3000):
            if game.round is None:
                break
            seen["palifico"] += game.round.palifico
            seen["heads-up"] += len(game.active_seats()) == 2
            seat = game.round.turn
            events = game.apply(seat, choose_action(player_view(game, seat), levels[seat], rng))
            if isinstance(events[0], BidMade):
                seen["calza"] += offer_calza(game, levels, rng)
        assert game.winner is not None and game.round is None
        assert sorted(game.places().values()) == list(range(1, len(seats) + 1))
    assert seen["heads-up"] > 0
    assert (seen["palifico"] > 0) == rules.palifico
    assert (seen["calza"] > 0) == rules.calza


def test_the_decision_depends_only_on_the_view() -> None:
    """Same view and seed: same move. Other seats' hidden dice changed: same view, same move."""
    checked = 0
    for seed in range(40):
        game = Game(range(4), random.Random(seed), GameSettings(calza_rule="asmodee"))
        advance(game, seed % 9, random.Random(seed))
        if game.round is None:
            continue
        turn = game.round.turn
        views = {seat: player_view(game, seat) for seat in game.active_seats()}
        before = {level: decisions(views, turn, level, seed) for level in BOT_LEVELS}
        untouched = copy.deepcopy(views)
        reroll = random.Random(~seed)
        for seat, dice in game.round.dice.items():
            if seat != turn:
                game.round.dice[seat] = tuple(reroll.randint(1, 6) for _ in dice)
        assert views == untouched, "the bot must not change the view it reads"
        assert player_view(game, turn) == views[turn]
        for level in BOT_LEVELS:
            assert decisions(views, turn, level, seed) == before[level]
        checked += 1
    assert checked > 30


def decisions(views: dict[int, GameView], turn: int, level: BotLevel, seed: int) -> Any:
    """The move of the seat to act and every seat's calza wish, with fresh seeded RNGs."""
    calza = {seat: maybe_calza(view, level, random.Random(seed)) for seat, view in views.items()}
    return choose_action(views[turn], level, random.Random(seed)), calza


def hand_view(
    own: list[int],
    counts: dict[int, int],
    bids: list[tuple[int, int, int]],
    *,
    turn: int = 0,
    calza: bool = False,
) -> GameView:
    """A view for seat 0, built by hand: `bids` are (quantity, face, seat), the last standing."""
    placed: list[BidView] = [{"quantity": q, "face": f, "seat": s} for q, f, s in bids]
    total = sum(counts.values())
    standing = Bid(*bids[-1][:2])
    return {
        "phase": "playing",
        "players": [
            {"seat": s, "dice": n, "out": n == 0, "palifico_used": False} for s, n in counts.items()
        ],
        "you": {
            "seat": 0,
            "dice": own,
            "legal": {
                "min_quantity": (
                    [None] * 6 if turn else min_quantities(BidContext(standing, total))
                ),
                "dudo": not turn,
                "calza": calza,
            },
            "odds": None,
        },
        "round": {
            "number": 1,
            "opener": placed[0]["seat"],
            "turn": turn,
            "palifico": False,
            "palifico_seat": None,
            "total_dice": total,
            "bid": placed[-1],
            "bids": placed,
            "turn_deadline": None,
            "roll_off": None,
        },
        "last_result": None,
        "winner": None,
    }


@pytest.mark.parametrize("level", BOT_LEVELS)
def test_calls_dudo_on_an_impossible_bid_and_never_on_a_sure_one(level: BotLevel) -> None:
    # Five own dice without fours or aces; the opponent holds three: five fours cannot be.
    impossible = hand_view([2, 3, 5, 6, 6], {0: 5, 1: 3}, [(5, 4, 1)])
    # Own dice alone make four fives.
    sure = hand_view([5, 5, 1, 5, 2], {0: 5, 1: 3}, [(4, 5, 1)])
    for seed in range(20):
        assert choose_action(impossible, level, random.Random(seed)) == Dudo()
        assert choose_action(sure, level, random.Random(seed)) != Dudo()


def test_calza_when_the_count_is_likely_exact_and_not_when_it_cannot_be() -> None:
    # Three aces of our own, two unseen dice: three aces is exact unless one of them is an ace.
    likely = hand_view([1, 1, 1, 4], {0: 4, 1: 1, 2: 1}, [(3, 1, 1)], turn=2, calza=True)
    hopeless = hand_view([2, 2, 3, 4], {0: 4, 1: 1, 2: 1}, [(3, 1, 1)], turn=2, calza=True)
    closed = hand_view([1, 1, 1, 4], {0: 4, 1: 1, 2: 1}, [(3, 1, 1)], turn=2, calza=False)
    for seed in range(20):
        assert maybe_calza(likely, "hard", random.Random(seed))
        assert not maybe_calza(hopeless, "easy", random.Random(seed))
        assert not maybe_calza(closed, "easy", random.Random(seed))


def test_an_opponents_bids_make_their_face_likelier() -> None:
    """Four threes are doubtful blind, but believable from a player who bid threes twice."""
    own = [3, 2, 5, 6, 4]
    blind = hand_view(own, {0: 5, 1: 5}, [(1, 6, 0), (4, 3, 1)])
    backed = hand_view(own, {0: 5, 1: 5}, [(2, 3, 1), (3, 6, 0), (4, 3, 1)])
    dudos = Counter[str]()
    for seed in range(40):
        dudos["blind"] += choose_action(blind, "hard", random.Random(seed)) == Dudo()
        dudos["backed"] += choose_action(backed, "hard", random.Random(seed)) == Dudo()
    assert dudos["blind"] > dudos["backed"]


def test_hard_beats_the_naive_baseline_heads_up() -> None:
    heads_up = MATCHUPS[0]
    wins = 0
    for index in range(200):
        seats = heads_up.seats(index)
        wins += seats[play_game(seats, 10_000 + index, GameSettings())] == "hard"
    assert wins > 100
