"""Hypothesis invariants of the engine (RULES.md sections 4-8, STYLE.md habits)."""

from __future__ import annotations

import copy
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import Bid, Calza, Dudo, Game, GameSettings, RoundEnded, RuleError, player_view
from app.engine.game import Action
from tests.engine.helpers import game_settings, played, random_move, seat_sets, snapshot

PROPERTY_SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def new_game(seats: list[int], rules: GameSettings, seed: int) -> tuple[Game, random.Random]:
    return Game(seats, random.Random(seed), rules), random.Random(seed + 1)


@PROPERTY_SETTINGS
@given(seats=seat_sets, rules=game_settings, seed=st.integers(0, 2**32))
def test_random_play_ends_with_one_winner_and_consistent_places(
    seats: list[int], rules: GameSettings, seed: int
) -> None:
    game, chooser = new_game(seats, rules, seed)
    for _ in range(5000):
        if game.finished:
            break
        game.apply(*random_move(game, chooser))
    assert game.finished and game.winner is not None
    assert [s for s in seats if game.players[s].count > 0] == [game.winner]
    places = game.places()
    assert sorted(places.values()) == list(range(1, len(seats) + 1))
    assert places[game.winner] == 1
    assert [places[s] for s in game.eliminated] == list(range(len(seats), 1, -1))
    assert game.rounds[-1].result.winner == game.winner


@PROPERTY_SETTINGS
@given(seats=seat_sets, rules=game_settings, seed=st.integers(0, 2**32))
def test_no_number_of_aces_is_bid_twice_in_a_round(
    seats: list[int], rules: GameSettings, seed: int
) -> None:
    game, chooser = new_game(seats, rules, seed)
    aces_heavy = random.Random(seed)
    while not game.finished:
        assert game.round is not None
        turn = game.round.turn
        options = game.options(turn)
        aces = options.min_quantity[0]
        if aces is not None and aces_heavy.random() < 0.5:
            game.apply(turn, Bid(aces, 1))
        else:
            game.apply(*random_move(game, chooser))
    for record in game.rounds:
        aces_quantities = [p.bid.quantity for p in record.bids if p.bid.face == 1]
        assert len(aces_quantities) == len(set(aces_quantities)), record.bids


@PROPERTY_SETTINGS
@given(seats=seat_sets, rules=game_settings, seed=st.integers(0, 2**32))
def test_dudo_changes_total_by_exactly_one_and_calza_by_at_most_one(
    seats: list[int], rules: GameSettings, seed: int
) -> None:
    game, chooser = new_game(seats, rules, seed)
    while not game.finished:
        before = game.total_dice()
        seat, action = random_move(game, chooser)
        events = game.apply(seat, action)
        change = game.total_dice() - before
        if isinstance(action, Dudo):
            assert change == -1
        elif isinstance(action, Calza):
            assert change in (-1, 0, 1)
            result = next(e.result for e in events if isinstance(e, RoundEnded))
            assert (result.gainer is not None) is (change >= 0)
        else:
            assert change == 0


def arbitrary_action(data: st.DataObject, game: Game) -> tuple[int, Action]:
    seat = data.draw(st.integers(-1, 6), label="seat")
    kind = data.draw(st.sampled_from(["bid", "dudo", "calza"]), label="kind")
    if kind == "dudo":
        return seat, Dudo()
    if kind == "calza":
        return seat, Calza()
    total = game.total_dice()
    quantity = data.draw(st.integers(-1, total + 2), label="quantity")
    return seat, Bid(quantity, data.draw(st.integers(0, 7), label="face"))


@PROPERTY_SETTINGS
@given(
    seats=seat_sets,
    rules=game_settings,
    seed=st.integers(0, 2**32),
    moves=st.integers(0, 60),
    data=st.data(),
)
def test_a_rejected_action_changes_nothing(
    seats: list[int], rules: GameSettings, seed: int, moves: int, data: st.DataObject
) -> None:
    game, _ = played(seats, rules, seed, moves)
    for _ in range(20):
        seat, action = arbitrary_action(data, game)
        before = snapshot(game)
        try:
            game.apply(seat, action)
        except RuleError as error:
            assert error.code in {
                "not_your_turn",
                "illegal_bid",
                "no_bid",
                "calza_not_allowed",
                "game_not_running",
            }
            assert snapshot(game) == before


@settings(max_examples=25, deadline=None)
@given(seats=seat_sets, rules=game_settings, seed=st.integers(0, 2**32))
def test_options_agree_with_apply_exhaustively(
    seats: list[int], rules: GameSettings, seed: int
) -> None:
    """Every bid `options` allows is accepted, every other is refused; same for the calls
    (and `may_calza` says what `options` says of calza)."""
    game, chooser = new_game(seats, rules, seed)
    for _ in range(10):
        if game.finished:
            break
        total = game.total_dice()
        for seat in [*seats, 6, -1]:
            options = game.options(seat)
            for face in range(0, 8):
                least = options.min_quantity[face - 1] if 1 <= face <= 6 else None
                for quantity in range(-1, total + 2):
                    allowed = least is not None and least <= quantity <= total
                    assert accepted(game, seat, Bid(quantity, face)) is allowed, (
                        seat,
                        quantity,
                        face,
                    )
            assert accepted(copy.deepcopy(game), seat, Dudo()) is options.dudo
            assert accepted(copy.deepcopy(game), seat, Calza()) is options.calza
            assert game.may_calza(seat) is options.calza
        game.apply(*random_move(game, chooser))


def accepted(game: Game, seat: int, action: Action) -> bool:
    """Whether `game` accepts the action; an accepted bid is taken back at once."""
    round_ = game.round
    turn = round_.turn if round_ else None
    try:
        game.apply(seat, action)
    except RuleError:
        return False
    if isinstance(action, Bid) and round_ is not None and turn is not None:
        round_.bids.pop()
        round_.turn = turn
    return True


@PROPERTY_SETTINGS
@given(seats=seat_sets, rules=game_settings, seed=st.integers(0, 2**32))
def test_player_view_never_holds_another_seats_hidden_dice(
    seats: list[int], rules: GameSettings, seed: int
) -> None:
    """Noninterference: re-rolling everyone else's hidden dice leaves a seat's view unchanged."""
    game, chooser = new_game(seats, rules, seed)
    scrambler = random.Random(seed ^ 0x5EED)
    while not game.finished:
        round_ = game.round
        assert round_ is not None
        for viewer in [*seats, None]:
            view = player_view(game, viewer)
            own = list(round_.dice.get(viewer, ())) if viewer is not None else []
            assert view["you"]["dice"] == own
            real_dice = round_.dice
            round_.dice = {
                seat: dice if seat == viewer else tuple(scrambler.randint(1, 6) for _ in dice)
                for seat, dice in real_dice.items()
            }
            assert player_view(game, viewer) == view
            round_.dice = real_dice
        game.apply(*random_move(game, chooser))
