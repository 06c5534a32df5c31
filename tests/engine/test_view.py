"""player_view: what one seat may know (PROTOCOL.md `state`, the game part)."""

from __future__ import annotations

import orjson

from app.engine import Bid, Dudo, lobby_you, no_legal, player_view, you_view
from tests.engine.helpers import scripted_game

HANDS = [[4, 4, 1, 2, 6], [4, 5, 5, 3, 2], [6, 6, 3, 3, 1]]


def test_a_seat_sees_its_own_dice_and_only_counts_of_the_others() -> None:
    game, _ = scripted_game([6, 1, 1], HANDS)
    view = player_view(game, 1)
    assert view["you"]["seat"] == 1 and view["you"]["dice"] == HANDS[1]
    assert view["players"] == [
        {"seat": s, "dice": 5, "out": False, "palifico_used": False} for s in range(3)
    ]
    assert view["phase"] == "playing" and view["winner"] is None
    assert view["last_result"] is None


def test_spectators_see_no_dice_and_may_do_nothing() -> None:
    game, _ = scripted_game([6, 1, 1], HANDS)
    view = player_view(game, None)
    assert view["you"] == {"seat": None, "dice": [], "legal": no_legal(), "odds": None}
    assert no_legal() == {"min_quantity": [None] * 6, "dudo": False, "calza": False}


def test_round_view_and_legal_options_follow_the_turn() -> None:
    game, _ = scripted_game([6, 1, 1], HANDS)
    opening = player_view(game, 0)
    assert opening["you"]["legal"] == {
        "min_quantity": [None, 1, 1, 1, 1, 1],
        "dudo": False,
        "calza": False,
    }
    game.apply(0, Bid(4, 4))
    round_view = player_view(game, 1)["round"]
    assert round_view is not None
    assert round_view["number"] == 1 and round_view["opener"] == 0 and round_view["turn"] == 1
    assert round_view["total_dice"] == 15 and round_view["palifico"] is False
    assert round_view["bid"] == {"quantity": 4, "face": 4, "seat": 0}
    assert round_view["bids"] == [{"quantity": 4, "face": 4, "seat": 0}]
    assert round_view["roll_off"] == [
        [{"seat": 0, "die": 6}, {"seat": 1, "die": 1}, {"seat": 2, "die": 1}]
    ]
    assert player_view(game, 1)["you"]["legal"] == {
        "min_quantity": [2, 5, 5, 5, 4, 4],
        "dudo": True,
        "calza": False,
    }
    assert player_view(game, 2)["you"]["legal"]["min_quantity"] == [None] * 6
    assert player_view(game, 2)["you"]["legal"]["calza"] is True


def test_revealed_dice_appear_in_last_result_and_roll_off_only_in_round_one() -> None:
    game, _ = scripted_game([6, 1, 1], HANDS)
    game.apply(0, Bid(4, 4))
    game.apply(1, Dudo())
    view = player_view(game, None)
    assert view["last_result"] is not None
    assert view["last_result"]["reveal"] == [
        {"seat": 1, "dice": HANDS[1]},
        {"seat": 2, "dice": HANDS[2]},
        {"seat": 0, "dice": HANDS[0]},
    ]
    assert view["round"] is not None and view["round"]["roll_off"] is None
    assert view["you"]["dice"] == []


def test_the_view_is_the_wire_json_key_for_key_in_protocol_order() -> None:
    """The TypedDicts only type the view: its JSON is PROTOCOL.md's `state`, in field order."""
    game, dice = scripted_game([6, 1, 1], HANDS)
    game.apply(0, Bid(4, 4))
    game.apply(1, Bid(4, 5))
    dice.queue(2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4)
    game.apply(2, Dudo())  # RULES.md section 10: four fives hold, Csilla loses a die
    game.apply(2, Bid(3, 3))
    last_result = (
        '{"round":1,"call":"dudo","caller":2,"bid":{"quantity":4,"face":5,"seat":1},'
        '"palifico":false,"reveal":[{"seat":2,"dice":[6,6,3,3,1]},'
        '{"seat":0,"dice":[4,4,1,2,6]},{"seat":1,"dice":[4,5,5,3,2]}],'
        '"count":4,"loser":2,"gainer":null,"eliminated":null,"next_opener":2,"winner":null}'
    )
    assert orjson.dumps(player_view(game, 0)).decode() == (
        '{"phase":"playing","players":['
        '{"seat":0,"dice":5,"out":false,"palifico_used":false},'
        '{"seat":1,"dice":5,"out":false,"palifico_used":false},'
        '{"seat":2,"dice":4,"out":false,"palifico_used":false}],'
        '"round":{"number":2,"opener":2,"turn":0,"palifico":false,"palifico_seat":null,'
        '"total_dice":14,"bid":{"quantity":3,"face":3,"seat":2},'
        '"bids":[{"quantity":3,"face":3,"seat":2}],"turn_deadline":null,"roll_off":null},'
        f'"last_result":{last_result},"winner":null,'
        '"you":{"seat":0,"dice":[2,2,2,2,2],'
        '"legal":{"min_quantity":[2,4,4,3,3,3],"dudo":true,"calza":false},"odds":null}}'
    )
    assert orjson.dumps(game.rounds[0].to_dict()).decode() == (
        '{"number":1,"palifico":false,"palifico_seat":null,"opener":0,'
        '"dice":[{"seat":0,"dice":[4,4,1,2,6]},{"seat":1,"dice":[4,5,5,3,2]},'
        '{"seat":2,"dice":[6,6,3,3,1]}],'
        '"bids":[{"quantity":4,"face":4,"seat":0},{"quantity":4,"face":5,"seat":1}],'
        f'"result":{last_result}}}'
    )


def test_odds_are_in_you_only_when_the_room_asks_for_them() -> None:
    game, _ = scripted_game([6, 1, 1], HANDS)
    assert you_view(game, 0)["odds"] is None
    assert player_view(game, 0)["you"]["odds"] is None
    with_odds = player_view(game, 0, odds=True)["you"]
    assert with_odds == you_view(game, 0, odds=True)
    assert with_odds["odds"] is not None and with_odds["odds"]["bid"] is None  # no bid yet
    assert player_view(game, 0, odds=True)["round"] == player_view(game, 0)["round"]


def test_lobby_you_holds_nothing() -> None:
    assert lobby_you(3) == {"seat": 3, "dice": [], "legal": no_legal(), "odds": None}
    assert lobby_you(None)["seat"] is None
