"""RULES.md sections 1-8 played through the engine, with the section 10 outcome examples."""

from __future__ import annotations

import random

import pytest

from app.engine import (
    Bid,
    Calza,
    Dudo,
    Game,
    GameEnded,
    GameSettings,
    RoundEnded,
    RoundStarted,
    RuleError,
)
from app.engine.game import Action, Event, RoundResult, count_matching
from tests.engine.helpers import ScriptedDice, scripted_game, snapshot

ANNA, BELA, CSILLA = 0, 1, 2


def result_of(events: list[Event]) -> RoundResult:
    ended = [e for e in events if isinstance(e, RoundEnded)]
    assert len(ended) == 1
    return ended[0].result


def set_counts(game: Game, counts: dict[int, int], rolls: ScriptedDice | None = None) -> None:
    """Force dice counts and re-deal the current round (test set-up only)."""
    for seat, count in counts.items():
        game.players[seat].count = count
    assert game.round is not None
    rng = rolls or random.Random(7)
    game.round.dice = {
        seat: tuple(rng.randint(1, 6) for _ in range(player.count))
        for seat, player in game.players.items()
        if not player.out
    }


# ----- section 3: counting ------------------------------------------------------------------


def test_counting_with_wild_aces() -> None:
    dice = [5, 5, 1, 1, 3]
    assert count_matching(dice, 5, aces_wild=True) == 4
    assert count_matching(dice, 3, aces_wild=True) == 3


def test_aces_bid_counts_only_aces() -> None:
    assert count_matching([1, 1, 2, 6, 1], 1, aces_wild=True) == 3


def test_palifico_counting_aces_not_wild() -> None:
    assert count_matching([6, 1, 1, 3], 6, aces_wild=False) == 1


# ----- section 1: setup and roll-off --------------------------------------------------------


def test_highest_roll_opens_and_every_player_starts_with_five() -> None:
    game, _ = scripted_game([2, 6, 3], [[2] * 5, [3] * 5, [4] * 5])
    assert game.round is not None
    assert game.round.opener == 1 and game.round.turn == 1
    assert game.round.roll_off == [[(0, 2), (1, 6), (2, 3)]]
    assert all(player.count == 5 for player in game.players.values())
    assert game.round.dice == {0: (2,) * 5, 1: (3,) * 5, 2: (4,) * 5}


class DealingDice(ScriptedDice):
    """Rolls the roll-off from a script and deals each hand whole, as the server's dice do."""

    def __init__(self, rolls: list[int], hands: list[tuple[int, ...]]) -> None:
        super().__init__(rolls)
        self.hands = hands
        self.dealt: list[int] = []

    def deal(self, count: int) -> tuple[int, ...]:
        self.dealt.append(count)
        return self.hands.pop(0)[:count]

    def randint(self, a: int, b: int) -> int:
        assert self.script, "a hand rolled die by die although the source deals"
        return super().randint(a, b)


def test_a_source_that_deals_gives_each_hand_in_one_call() -> None:
    hands = [(2,) * 5, (3, 1, 4, 1, 5), (4,) * 5, (6,) * 5, (5,) * 5, (1,) * 5]
    rng = DealingDice([2, 6, 3], hands)
    game = Game([0, 1, 2], rng)
    assert game.round is not None and game.round.opener == 1
    assert game.round.dice == {0: (2,) * 5, 1: (3, 1, 4, 1, 5), 2: (4,) * 5}
    assert rng.dealt == [5, 5, 5]
    game.apply(1, Bid(9, 4))
    game.apply(2, Dudo())  # 5 fours and 3 aces: 8, the bidder loses a die
    assert game.round.dice == {0: (6,) * 5, 1: (5,) * 4, 2: (1,) * 5}
    assert rng.dealt == [5, 5, 5, 5, 4, 5]


def test_only_tied_players_roll_again() -> None:
    game, _ = scripted_game([6, 2, 6, 4, 5], [[2] * 5] * 3, seats=[0, 3, 5])
    # seats 0 and 5 tie on 6; only they re-roll: 4 against 5, so seat 5 opens.
    assert game.round is not None
    assert game.round.roll_off == [[(0, 6), (3, 2), (5, 6)], [(0, 4), (5, 5)]]
    assert game.round.opener == 5


def test_player_count_limits() -> None:
    with pytest.raises(ValueError, match="2 to 6"):
        Game([0], random.Random(1))
    with pytest.raises(ValueError, match="2 to 6"):
        Game(list(range(7)), random.Random(1))
    with pytest.raises(ValueError, match="2 to 6"):
        Game([0, 6], random.Random(1))


# ----- sections 2 and 5: turns and dudo -----------------------------------------------------


def test_turn_passes_clockwise_over_seat_gaps() -> None:
    game, _ = scripted_game([1, 6, 2], [[2] * 5] * 3, seats=[1, 3, 5])
    assert game.round is not None and game.round.turn == 3
    game.apply(3, Bid(2, 2))
    assert game.round.turn == 5
    game.apply(5, Bid(3, 2))
    assert game.round.turn == 1
    game.apply(1, Bid(4, 2))
    assert game.round.turn == 3


def test_three_player_example_from_the_rulebook() -> None:
    game, _dice = scripted_game(
        [6, 1, 1],
        [[4, 4, 1, 2, 6], [4, 5, 5, 3, 2], [6, 6, 3, 3, 1]],
    )
    game.apply(ANNA, Bid(4, 4))
    game.apply(BELA, Bid(4, 5))
    game.apply(CSILLA, Bid(2, 1))
    game.apply(ANNA, Bid(5, 2))
    events = game.apply(BELA, Dudo())
    result = result_of(events)
    assert result.count == 4
    assert result.loser == ANNA
    assert [seat for seat, _ in result.reveal] == [BELA, CSILLA, ANNA]
    assert result.next_opener == ANNA
    assert game.players[ANNA].count == 4
    started = [e for e in events if isinstance(e, RoundStarted)]
    assert started == [RoundStarted(2, ANNA, False)]
    assert game.round is not None and game.round.turn == ANNA


def test_three_player_example_variant_csilla_calls_dudo() -> None:
    game, _ = scripted_game(
        [6, 1, 1],
        [[4, 4, 1, 2, 6], [4, 5, 5, 3, 2], [6, 6, 3, 3, 1]],
    )
    game.apply(ANNA, Bid(4, 4))
    game.apply(BELA, Bid(4, 5))
    result = result_of(game.apply(CSILLA, Dudo()))
    assert result.count == 4
    assert result.loser == CSILLA
    assert game.players[CSILLA].count == 4
    assert [seat for seat, _ in result.reveal] == [CSILLA, ANNA, BELA]


def test_twos_with_wild_aces_hold_and_the_caller_loses() -> None:
    game, _ = scripted_game([6, 1], [[2, 2, 2, 1, 5], [2, 2, 1, 1, 6]])
    game.apply(0, Bid(7, 2))
    result = result_of(game.apply(1, Dudo()))
    assert result.count == 8
    assert result.loser == 1


def test_aces_bid_with_fewer_aces_fails_and_the_bidder_loses() -> None:
    hands = [[1, 1, 1, 1, 2], [1, 1, 1, 3, 3], [4, 4, 4, 4, 4]]
    game, _ = scripted_game([1, 6, 1], hands)
    game.apply(1, Bid(5, 3))
    game.apply(2, Bid(8, 4))
    game.apply(0, Bid(8, 1))  # ceil(8/2) = 4, so 8 aces is legal
    result = result_of(game.apply(1, Dudo()))
    assert result.count == 7
    assert result.loser == 0


def test_exact_count_favours_the_bidder() -> None:
    game, _ = scripted_game([6, 1], [[3, 3, 4, 4, 4], [3, 5, 5, 5, 5]])
    game.apply(0, Bid(3, 3))
    result = result_of(game.apply(1, Dudo()))
    assert result.count == 3 and result.loser == 1


def test_dudo_rules_who_and_when() -> None:
    game, _ = scripted_game([6, 1, 1], [[2] * 5] * 3)
    with pytest.raises(RuleError) as no_bid:
        game.apply(0, Dudo())
    assert no_bid.value.code == "no_bid"
    game.apply(0, Bid(3, 3))
    with pytest.raises(RuleError) as wrong_seat:
        game.apply(2, Dudo())
    assert wrong_seat.value.code == "not_your_turn"
    with pytest.raises(RuleError) as stranger:
        game.apply(4, Dudo())
    assert stranger.value.code == "not_your_turn"


def test_bid_errors_carry_protocol_codes() -> None:
    game, _ = scripted_game([6, 1, 1], [[2] * 5] * 3)
    with pytest.raises(RuleError) as not_turn:
        game.apply(1, Bid(3, 3))
    assert not_turn.value.code == "not_your_turn"
    with pytest.raises(RuleError) as illegal:
        game.apply(0, Bid(16, 3))
    assert illegal.value.code == "illegal_bid"


def test_loser_out_means_next_active_clockwise_opens() -> None:
    game, dice = scripted_game([1, 6, 2], [[2] * 5] * 3)
    set_counts(game, {0: 1, 1: 3, 2: 3}, ScriptedDice([5, 6, 6, 6, 6, 1, 3]))
    game.players[0].palifico_used = True
    game.apply(1, Bid(4, 6))
    game.apply(2, Bid(5, 6))
    dice.queue(*[2] * 6)
    result = result_of(game.apply(0, Dudo()))  # six sixes, bid holds: seat 0 is out
    assert result.loser == 0 and result.eliminated == 0
    assert result.next_opener == 1
    assert game.round is not None and game.round.opener == 1
    assert 0 not in game.round.dice
    assert game.eliminated == [0]


# ----- section 6: calza -------------------------------------------------------------------


def calza_table(settings: GameSettings | None = None) -> Game:
    """Three players; seat 0 opened 2x4 and it is seat 1's turn. Exactly four 4-or-aces."""
    hands = [[4, 1, 2, 2, 3], [4, 2, 2, 3, 3], [1, 5, 5, 5, 6]]
    game, _ = scripted_game([6, 1, 1], hands, settings=settings)
    game.apply(0, Bid(2, 4))
    return game


def test_exact_calza_gains_a_die_and_the_caller_opens() -> None:
    game = calza_table()
    game.players[0].count = 4
    game.apply(1, Bid(4, 4))  # seat 2 to act; seat 0 calls calza out of turn
    result = result_of(game.apply(0, Calza()))
    assert result.count == 4
    assert result.gainer == 0 and result.loser is None
    assert game.players[0].count == 5
    assert game.players[1].count == 5  # the bidder never gains or loses
    assert result.next_opener == 0
    assert [seat for seat, _ in result.reveal] == [0, 1, 2]


def test_calza_at_five_dice_still_wins_but_keeps_five() -> None:
    game = calza_table()
    game.apply(1, Bid(4, 4))
    result = result_of(game.apply(0, Calza()))
    assert result.gainer == 0
    assert game.players[0].count == 5


@pytest.mark.parametrize("quantity", [3, 5])
def test_inexact_calza_costs_the_caller_a_die(quantity: int) -> None:
    game = calza_table()
    game.apply(1, Bid(quantity, 4))
    result = result_of(game.apply(0, Calza()))
    assert result.loser == 0 and result.gainer is None
    assert game.players[0].count == 4
    assert game.players[1].count == 5
    assert result.next_opener == 0


def test_calza_example_thirteen_fours() -> None:
    # Six players, thirteen dice showing 4 or 1 in all.
    hands = [
        [4, 4, 4, 1, 2],
        [4, 4, 1, 3, 3],
        [4, 1, 5, 5, 5],
        [4, 4, 2, 2, 2],
        [1, 6, 6, 6, 6],
        [4, 3, 3, 3, 3],
    ]
    for called, outcome in [(13, "gain"), (12, "lose"), (14, "lose")]:
        game, _ = scripted_game([6, 1, 1, 1, 1, 1], hands)
        game.players[3].count = 5
        game.apply(0, Bid(called, 4))
        result = result_of(game.apply(3, Calza()))
        assert result.count == 13
        assert (result.gainer == 3) is (outcome == "gain")
        assert (result.loser == 3) is (outcome == "lose")
        assert game.players[0].count == 5


def test_pressman_calza_excludes_only_the_player_to_act() -> None:
    game = calza_table()  # seat 0 bid, seat 1 to act
    assert game.options(1).calza is False
    with pytest.raises(RuleError) as refused:
        game.apply(1, Calza())
    assert refused.value.code == "calza_not_allowed"
    assert game.options(0).calza is True  # the standing bidder may, read literally
    assert game.options(2).calza is True
    result = result_of(game.apply(0, Calza()))
    assert result.caller == 0


def test_asmodee_calza_excludes_the_standing_bidder() -> None:
    game = calza_table(GameSettings(calza_rule="asmodee"))
    assert game.options(0).calza is False
    with pytest.raises(RuleError) as refused:
        game.apply(0, Calza())
    assert refused.value.code == "calza_not_allowed"
    assert game.options(1).calza is True  # the player to act included
    assert game.options(2).calza is True


def test_calza_needs_a_bid_and_the_setting() -> None:
    game, _ = scripted_game([6, 1, 1], [[2] * 5] * 3)
    with pytest.raises(RuleError) as no_bid:
        game.apply(1, Calza())
    assert no_bid.value.code == "no_bid"
    off = calza_table(GameSettings(calza=False))
    assert not any(off.options(seat).calza for seat in off.seats)
    with pytest.raises(RuleError) as refused:
        off.apply(2, Calza())
    assert refused.value.code == "calza_not_allowed"


def test_no_calza_with_two_players_left() -> None:
    game, _ = scripted_game([6, 1, 1], [[2] * 5] * 3)
    set_counts(game, {0: 2, 1: 0, 2: 2})
    game.eliminated.append(1)
    game.apply(0, Bid(1, 3))
    with pytest.raises(RuleError) as refused:
        game.apply(0, Calza())
    assert refused.value.code == "calza_not_allowed"


def test_eliminated_player_may_not_calza() -> None:
    game, _ = scripted_game([6, 1, 1, 1], [[2] * 5] * 4)
    set_counts(game, {3: 0})
    game.apply(0, Bid(1, 3))
    with pytest.raises(RuleError) as refused:
        game.apply(3, Calza())
    assert refused.value.code == "calza_not_allowed"


def test_calza_caller_who_loses_last_die_passes_the_opening_clockwise() -> None:
    game, _dice = scripted_game([6, 1, 1, 1], [[2] * 5] * 4)
    set_counts(game, {0: 3, 1: 3, 2: 1, 3: 3}, ScriptedDice([2] * 10))
    game.players[2].palifico_used = True
    game.apply(0, Bid(2, 5))
    result = result_of(game.apply(2, Calza()))
    assert result.loser == 2 and result.eliminated == 2
    assert result.next_opener == 3


def test_race_second_call_finds_no_bid() -> None:
    game = calza_table()
    result_of(game.apply(1, Dudo()))
    with pytest.raises(RuleError) as late:
        game.apply(2, Calza())
    assert late.value.code == "no_bid"


# ----- section 7: palifico ------------------------------------------------------------------


def to_one_die(game: Game, dice: ScriptedDice, seat: int, next_hands: list[int]) -> RoundResult:
    """Make `seat` (holding two dice, to act after the bidder) lose a die by a failed dudo."""
    assert game.round is not None
    bidder = game.round.turn
    game.apply(bidder, Bid(1, 2))
    while game.round.turn != seat:
        turn = game.round.turn
        standing = game.round.standing
        assert standing is not None
        game.apply(turn, Bid(standing.bid.quantity + 1, 2))
    dice.queue(*next_hands)
    return result_of(game.apply(seat, Dudo()))


def test_palifico_round_follows_losing_the_fourth_die() -> None:
    game, dice = scripted_game([6, 1, 1], [[2, 2], [3, 3, 3], [4, 4, 4]])
    set_counts(game, {0: 5, 1: 2, 2: 3}, ScriptedDice([2, 2, 2, 2, 2, 3, 3, 4, 4, 4]))
    # seat 0 bids 1x2, seat 1 (two dice) calls dudo: plenty of twos, seat 1 drops to one die.
    result = to_one_die(game, dice, 1, [6, 6, 6, 6, 6, 1, 1, 1, 3])
    assert result.loser == 1 and game.players[1].count == 1
    round_ = game.round
    assert round_ is not None
    assert round_.palifico and round_.palifico_seat == 1 and round_.opener == 1
    assert game.players[1].palifico_used
    # The palifico player may open on aces; the face is then locked.
    assert game.options(1).min_quantity == (1, 1, 1, 1, 1, 1)
    game.apply(1, Bid(2, 6))
    assert game.options(2).min_quantity == (None, None, None, None, None, 3)
    assert game.options(1).calza is False  # no calza in a palifico round
    with pytest.raises(RuleError) as locked:
        game.apply(2, Bid(2, 1))
    assert locked.value.code == "illegal_bid"
    # Aces are not wild: only the six sixes of seat 0 count.
    game.apply(2, Bid(6, 6))
    game.apply(0, Bid(7, 6))
    outcome = result_of(game.apply(1, Dudo()))
    assert outcome.palifico and outcome.count == 5  # five sixes; the aces do not count
    assert outcome.loser == 0


def test_palifico_only_once_per_game() -> None:
    game, _ = scripted_game([6, 1, 1], [[2] * 5] * 3)
    set_counts(game, {0: 5, 1: 2, 2: 3})
    game.players[1].palifico_used = True
    game.apply(0, Bid(1, 2))
    game.apply(1, Dudo())
    assert game.players[1].count == 1
    assert game.round is not None and not game.round.palifico


def test_no_palifico_with_two_players_left() -> None:
    game, _ = scripted_game([6, 1], [[2] * 5] * 2)
    set_counts(game, {0: 5, 1: 2})
    game.apply(0, Bid(1, 2))
    game.apply(1, Dudo())
    assert game.players[1].count == 1
    round_ = game.round
    assert round_ is not None and not round_.palifico
    # Aces stay wild and may not open, even with one die left.
    assert game.options(1).min_quantity[0] is None


def test_palifico_setting_off() -> None:
    game, _ = scripted_game([6, 1, 1], [[2] * 5] * 3, settings=GameSettings(palifico=False))
    set_counts(game, {0: 5, 1: 2, 2: 3})
    game.apply(0, Bid(1, 2))
    game.apply(1, Dudo())
    assert game.round is not None and not game.round.palifico
    assert not game.players[1].palifico_used


def test_one_die_veteran_may_change_the_face_then_it_locks_again() -> None:
    game, dice = scripted_game([6, 1, 1, 1], [[2] * 5] * 4)
    # seat 3 is a veteran (one die, palifico done); seat 1 is about to get palifico.
    set_counts(game, {0: 5, 1: 2, 2: 3, 3: 1})
    game.players[3].palifico_used = True
    game.apply(0, Bid(1, 2))
    dice.queue(*[3] * 10)
    game.apply(1, Dudo())
    assert game.round is not None and game.round.palifico_seat == 1
    game.apply(1, Bid(2, 3))
    game.apply(2, Bid(3, 3))
    veteran = game.options(3).min_quantity
    assert veteran == (4, 4, 4, 3, 3, 3)
    game.apply(3, Bid(3, 5))
    assert game.options(0).min_quantity == (None, None, None, None, 4, None)
    with pytest.raises(RuleError):
        game.apply(0, Bid(4, 3))


def test_palifico_player_is_never_a_veteran_in_their_own_round() -> None:
    game, dice = scripted_game([6, 1, 1], [[2] * 5] * 3)
    set_counts(game, {0: 5, 1: 2, 2: 3})
    game.apply(0, Bid(1, 2))
    dice.queue(*[3] * 9)
    game.apply(1, Dudo())
    game.apply(1, Bid(2, 3))
    game.apply(2, Bid(3, 3))
    game.apply(0, Bid(4, 3))
    assert game.options(1).min_quantity == (None, None, 5, None, None, None)


def test_no_second_palifico_after_a_calza_win() -> None:
    game, _ = scripted_game([6, 1, 1, 1], [[2] * 5] * 4)
    set_counts(game, {0: 5, 1: 2, 2: 3, 3: 3})
    game.players[1].palifico_used = True  # had it, then regained a die by calza
    game.apply(0, Bid(1, 2))
    game.apply(1, Dudo())
    assert game.players[1].count == 1
    assert game.round is not None and not game.round.palifico


# ----- section 8: end of game --------------------------------------------------------------


def test_last_player_with_dice_wins_and_places_reverse_elimination() -> None:
    game, dice = scripted_game([6, 1, 1], [[2] * 5] * 3)
    set_counts(game, {0: 3, 1: 1, 2: 1}, ScriptedDice([2, 2, 2, 5, 6]))
    game.players[1].palifico_used = game.players[2].palifico_used = True
    game.apply(0, Bid(3, 2))
    dice.queue(2, 2, 2, 6)
    first = result_of(game.apply(1, Dudo()))  # three twos: the bid holds, seat 1 is out
    assert first.eliminated == 1 and first.next_opener == 2
    assert game.round is not None and game.round.opener == 2
    game.apply(2, Bid(2, 6))
    final = result_of(game.apply(0, Dudo()))  # one six: the bid fails, seat 2 is out
    assert final.count == 1 and final.loser == 2 and final.eliminated == 2
    assert final.winner == 0 and final.next_opener is None
    assert game.places() == {0: 1, 2: 2, 1: 3}


def test_game_end_events_and_places() -> None:
    game, _ = scripted_game([6, 1], [[2] * 5, [3] * 5])
    set_counts(game, {0: 1, 1: 1}, ScriptedDice([2, 3]))
    game.apply(0, Bid(1, 6))
    events = game.apply(1, Dudo())
    result = result_of(events)
    assert result.winner == 1 and result.next_opener is None and result.eliminated == 0
    assert GameEnded(1, {1: 1, 0: 2}) in events
    assert game.finished and game.round is None
    assert game.places() == {1: 1, 0: 2}
    with pytest.raises(RuleError) as over:
        game.apply(1, Bid(1, 2))
    assert over.value.code == "game_not_running"
    with pytest.raises(RuleError) as over_calza:
        game.apply(1, Calza())
    assert over_calza.value.code == "game_not_running"
    assert len(game.rounds) == 1


def test_rejected_action_changes_nothing() -> None:
    game, _ = scripted_game([6, 1, 1], [[2] * 5] * 3)
    before = snapshot(game)
    refused: list[tuple[int, Action]] = [(1, Bid(1, 2)), (0, Bid(1, 1)), (0, Dudo()), (2, Calza())]
    for seat, action in refused:
        with pytest.raises(RuleError):
            game.apply(seat, action)
        assert snapshot(game) == before


def test_round_records_keep_everything_for_replay() -> None:
    game, _ = scripted_game([6, 1], [[2, 3, 4, 5, 6], [1, 1, 2, 2, 3]])
    game.apply(0, Bid(3, 2))
    game.apply(1, Bid(4, 2))
    game.apply(0, Dudo())
    record = game.rounds[0].to_dict()
    assert record["number"] == 1 and record["opener"] == 0 and record["palifico"] is False
    assert record["dice"] == [
        {"seat": 0, "dice": [2, 3, 4, 5, 6]},
        {"seat": 1, "dice": [1, 1, 2, 2, 3]},
    ]
    assert record["bids"] == [
        {"quantity": 3, "face": 2, "seat": 0},
        {"quantity": 4, "face": 2, "seat": 1},
    ]
    assert record["result"]["count"] == 5 and record["result"]["loser"] == 0
    assert record["result"]["call"] == "dudo"
