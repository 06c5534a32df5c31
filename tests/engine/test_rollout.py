"""The expert's search wherever its tables do not reach (app/engine/rollout.py): it plays out
each candidate on deals drawn from the `hard` model, so it must price hands exactly as `hard` does,
weigh deals by the bids, call what cannot hold, keep what surely does, stay legal, and decide
from the view alone, the same way for the same seed."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import Bid, Calza, Dudo, Game, GameSettings, GameView, player_view
from app.engine.bids import FACES
from app.engine.bot import STYLES, Reading, heuristic_action, priced_options
from app.engine.game import count_matching
from app.engine.rollout import Search, rollout_action
from tests.engine.helpers import game_settings
from tests.engine.test_bot import advance, hand_view, random_legal

SIX = {0: 5, 1: 5, 2: 5, 3: 5, 4: 5, 5: 5}


def crowd_views(count: int, seed: int) -> list[GameView]:
    """Views of the seat to act, from games of two to six seats played a while by the
    heuristic levels (and now and then a random legal move): quick to make, and varied."""
    found: list[GameView] = []
    rng = random.Random(seed)
    while len(found) < count:
        game = Game(range(rng.randint(2, 6)), random.Random(rng.random()), GameSettings())
        levels = {seat: rng.choice(["easy", "normal", "hard"]) for seat in game.seats}
        for _ in range(rng.randint(0, 60)):
            if game.round is None:
                break
            seat = game.round.turn
            view = player_view(game, seat)
            wild = rng.random() < 0.2
            game.apply(
                seat, random_legal(view, rng) if wild else heuristic_action(view, levels[seat], rng)
            )
        if game.round is not None:
            found.append(player_view(game, game.round.turn))
    return found


@pytest.mark.parametrize("seed", range(10))
def test_a_bid_that_cannot_hold_is_called(seed: int) -> None:
    # 30 dice, none of ours a four or an ace: 26 fours would need every other die to match
    view = hand_view([2, 3, 5, 6, 6], SIX, [(3, 4, 4), (26, 4, 5)])
    assert rollout_action(view, random.Random(seed)) == Dudo()


@pytest.mark.parametrize("seed", range(10))
def test_a_bid_our_own_dice_make_is_never_called(seed: int) -> None:
    view = hand_view([5, 5, 1, 1, 5], SIX, [(3, 4, 4), (5, 5, 5)])
    action = rollout_action(view, random.Random(seed))
    assert isinstance(action, Bid)


def test_calza_when_the_count_is_surely_exact() -> None:
    """Three aces of ours, three aces bid, two unseen dice: calza is exact unless one of them
    is an ace (25 in 36), dudo surely loses, and every raise risks the die."""
    view = hand_view([1, 1, 1, 4], {0: 4, 1: 1, 2: 1}, [(3, 1, 1)], calza=True)
    answers = Counter(rollout_action(view, random.Random(seed)) for seed in range(20))
    assert answers[Calza()] >= 15 and answers[Dudo()] == 0


def test_the_same_view_and_seed_give_the_same_move() -> None:
    for view in crowd_views(30, seed=4):
        first = rollout_action(view, random.Random(9))
        assert all(rollout_action(view, random.Random(9)) == first for _ in range(3))


def test_the_move_depends_on_the_view_alone_and_leaves_it_untouched() -> None:
    """Rerolling every hidden die leaves the view, hence the move, as it was."""
    checked = 0
    for seed in range(30):
        game = Game(range(2 + seed % 4), random.Random(seed), GameSettings(calza_rule="asmodee"))
        advance(game, seed % 11, random.Random(seed))
        if game.round is None:
            continue
        turn = game.round.turn
        view = player_view(game, turn)
        untouched = copy.deepcopy(view)
        before = rollout_action(view, random.Random(seed))
        assert view == untouched, "the search must not change the view it reads"
        reroll = random.Random(~seed)
        for seat, dice in game.round.dice.items():
            if seat != turn:
                game.round.dice[seat] = tuple(reroll.randint(1, 6) for _ in dice)
        assert player_view(game, turn) == view
        assert rollout_action(view, random.Random(seed)) == before
        checked += 1
    assert checked > 20


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=game_settings, seed=st.integers(0, 2**32))
def test_every_move_is_legal(rules: GameSettings, seed: int) -> None:
    """Palifico rounds, calza rules, two to six seats: the engine accepts every move."""
    rng = random.Random(seed)
    game = Game(range(rng.randint(2, 6)), random.Random(seed), rules)
    for _ in range(rng.randint(1, 40)):
        if game.round is None:
            return
        turn = game.round.turn
        game.apply(turn, rollout_action(player_view(game, turn), rng))  # RuleError if illegal


def test_a_played_out_seat_prices_its_hand_as_hard_does() -> None:
    """The search's own pricing of a hand (`Search.move`) picks `hard`'s best option, noise
    aside, and its bluff; a disagreement would make the model the search plays against
    something else than the `hard` it faces."""
    hard = STYLES["hard"]
    for view in crowd_views(150, seed=2):
        options, _ = priced_options(Reading.read(view, hard), view["you"]["legal"], hard)
        options = [option for option in options if not isinstance(option[1], Calza)]
        _, expected = min(options, key=lambda option: option[0])
        search = Search.start(view)
        palifico = view["round"] is not None and view["round"]["palifico"]
        dice = view["you"]["dice"]
        counts = tuple(count_matching(dice, face, aces_wild=not palifico) for face in FACES)
        best, _ = search.move(search.history, search.me, counts)
        assert (Dudo() if best is None else Bid(*best)) == expected


def test_the_deals_follow_the_bids() -> None:
    """At a table of 30 dice, `hard` opens nine fives with two or three fives or aces and
    seven with none or one: the deals give the opener that many, while seat 4, which has not
    bid, holds a blind third of its five dice."""

    def fives(opening: int, seat: int) -> float:
        search = Search.start(hand_view([2, 3, 4, 6, 6], SIX, [(opening, 5, 3)]))
        deals = [deal for seed in range(20) for deal in search.deals(random.Random(seed))]
        return sum(deal[seat][5 - 1] for deal in deals) / len(deals)

    assert fives(9, 4) == pytest.approx(5 / 3, abs=0.2)
    assert fives(9, 3) > 5 / 3 + 0.6
    assert fives(7, 3) < 5 / 3 - 0.2
