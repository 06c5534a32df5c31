"""Shared helpers for engine tests: scripted dice and random legal play."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterable

from hypothesis import strategies as st

from app.engine import Bid, Calza, Dudo, Game, GameSettings
from app.engine.game import Action

game_settings = st.builds(
    GameSettings,
    calza=st.booleans(),
    palifico=st.booleans(),
    calza_rule=st.sampled_from(["pressman", "asmodee"]),
)
seat_sets = st.lists(st.integers(0, 5), min_size=2, max_size=6, unique=True)


class ScriptedDice(random.Random):
    """A Random whose die rolls come from a script first, then from a seeded stream."""

    def __init__(self, rolls: Iterable[int] = (), seed: int = 0) -> None:
        super().__init__(seed)
        self.script = list(rolls)

    def queue(self, *rolls: int) -> None:
        self.script.extend(rolls)

    def randint(self, a: int, b: int) -> int:
        if self.script:
            value = self.script.pop(0)
            assert a <= value <= b
            return value
        return super().randint(a, b)


def scripted_game(
    roll_off: list[int],
    hands: list[list[int]],
    seats: list[int] | None = None,
    settings: GameSettings | None = None,
) -> tuple[Game, ScriptedDice]:
    """A game whose roll-off and first-round hands (in seat order) are given."""
    rolls = list(roll_off) + [die for hand in hands for die in hand]
    dice = ScriptedDice(rolls)
    seat_list = seats if seats is not None else list(range(len(hands)))
    return Game(seat_list, dice, settings), dice


def legal_actions(game: Game, seat: int) -> list[Action]:
    """Every action `options` allows `seat` (bids up to the total dice)."""
    options = game.options(seat)
    actions: list[Action] = []
    assert game.round is not None
    total = game.total_dice()
    for face, least in enumerate(options.min_quantity, start=1):
        if least is not None:
            actions.extend(Bid(q, face) for q in range(least, total + 1))
    if options.dudo:
        actions.append(Dudo())
    if options.calza:
        actions.append(Calza())
    return actions


def random_move(game: Game, rng: random.Random) -> tuple[int, Action]:
    """A random legal move: mostly modest raises from the seat to act, sometimes calls."""
    assert game.round is not None
    turn = game.round.turn
    if rng.random() < 0.1:
        callers = [s for s in game.active_seats() if game.options(s).calza]
        if callers:
            return rng.choice(callers), Calza()
    options = game.options(turn)
    if options.dudo and rng.random() < 0.3:
        return turn, Dudo()
    bids = [a for a in legal_actions(game, turn) if isinstance(a, Bid)]
    if not bids:
        return turn, Dudo()
    lowest = sorted(bids, key=lambda b: b.quantity)[: max(3, len(bids) // 8)]
    return turn, rng.choice(lowest)


def played(
    seats: list[int], rules: GameSettings, seed: int, moves: int
) -> tuple[Game, random.Random]:
    """A game after up to `moves` random legal moves, and the chooser that picked them."""
    game = Game(seats, random.Random(seed), rules)
    chooser = random.Random(seed + 1)
    for _ in range(moves):
        if game.finished:
            break
        game.apply(*random_move(game, chooser))
    return game, chooser


def snapshot(game: Game) -> object:
    """A comparable deep copy of everything in a game but its RNG."""
    state = copy.deepcopy({k: v for k, v in vars(game).items() if k != "rng"})
    state["rng_state"] = game.rng.getstate()
    return state
