"""PROTOCOL.md and RULES.md written down as checks, independently of the server's code.

Shapes (`check_*`) are asserted on every frame a test client receives; the rules model
(`expected_legal`, `check_outcome`) recomputes what RULES.md says from public information only.
"""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]

SETTINGS_DEFAULTS: dict[str, Any] = {
    "max_players": 6,
    "calza": True,
    "palifico": True,
    "calza_rule": "pressman",
    "turn_seconds": None,
    "odds": False,
}
CLOSED_LEGAL: Message = {"min_quantity": [None] * 6, "dudo": False, "calza": False}
ANY_CODE = (
    "bad_message",
    "not_joined",
    "name_taken",
    "room_full",
    "unknown_token",
    "game_in_progress",
    "not_host",
    "not_enough_players",
    "game_not_running",
    "not_your_turn",
    "illegal_bid",
    "no_bid",
    "calza_not_allowed",
    "rate_limited",
)
PHASES = {"lobby", "playing", "finished"}
# Keys whose list values would be dice; the only places they may appear are listed per frame.
DICE_WORDS = ("dice", "die", "faces", "hand", "cup", "roll")


def is_int(value: Any) -> bool:
    return type(value) is int


def is_bool(value: Any) -> bool:
    return type(value) is bool


def is_seat(value: Any) -> bool:
    return is_int(value) and 0 <= value <= 5


def is_opt_int(value: Any) -> bool:
    return value is None or is_int(value)


def check_settings(settings: Any) -> None:
    assert isinstance(settings, dict), settings
    assert set(settings) >= set(SETTINGS_DEFAULTS), settings
    assert is_int(settings["max_players"]) and 2 <= settings["max_players"] <= 6
    assert is_bool(settings["calza"]) and is_bool(settings["palifico"])
    assert settings["calza_rule"] in ("pressman", "asmodee")
    seconds = settings["turn_seconds"]
    assert seconds is None or (is_int(seconds) and 10 <= seconds <= 600), settings


def check_bid(bid: Any) -> None:
    assert isinstance(bid, dict) and set(bid) >= {"quantity", "face", "seat"}, bid
    assert is_int(bid["quantity"]) and bid["quantity"] >= 1
    assert is_int(bid["face"]) and 1 <= bid["face"] <= 6
    assert is_seat(bid["seat"])


def check_welcome(message: Message, room_id: str) -> None:
    assert set(message) >= {"type", "room_id", "seat", "token"}, message
    assert message["room_id"] == room_id
    assert message["seat"] is None or is_seat(message["seat"])
    assert message["token"] is None or isinstance(message["token"], str)
    assert (message["seat"] is None) == (message["token"] is None), message


def dice_lists(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every list held under a dice-like key, anywhere in a frame."""
    found: list[tuple[Any, ...]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            here = (*path, key)
            if isinstance(value, list) and any(word in str(key).lower() for word in DICE_WORDS):
                found.append(here)
            found.extend(dice_lists(value, here))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(dice_lists(value, (*path, index)))
    return found


def allowed_dice_path(path: tuple[Any, ...]) -> bool:
    """Own dice, revealed dice of a finished round, and the public roll-off."""
    return (
        path == ("you", "dice")
        or path[:1] == ("roll_off",)
        or path[:2] == ("round", "roll_off")
        or (len(path) == 3 and path[0] == "reveal" and path[2] == "dice")
        or (len(path) == 4 and path[:2] == ("last_result", "reveal") and path[3] == "dice")
    )


def check_round_result_shape(result: Message) -> None:
    keys = {"round", "call", "caller", "bid", "palifico", "reveal", "count"}
    keys |= {"loser", "gainer", "eliminated", "next_opener", "winner"}
    assert set(result) >= keys, f"missing {keys - set(result)}"
    assert is_int(result["round"]) and result["round"] >= 1
    assert result["call"] in ("dudo", "calza")
    assert is_seat(result["caller"])
    check_bid(result["bid"])
    assert is_bool(result["palifico"])
    assert isinstance(result["reveal"], list) and len(result["reveal"]) >= 2
    for entry in result["reveal"]:
        assert is_seat(entry["seat"]) and isinstance(entry["dice"], list)
        assert 1 <= len(entry["dice"]) <= 5
        assert all(is_int(d) and 1 <= d <= 6 for d in entry["dice"]), entry
    assert is_int(result["count"]) and result["count"] >= 0
    for key in ("loser", "gainer", "eliminated", "next_opener", "winner"):
        assert result[key] is None or is_seat(result[key]), (key, result[key])
    assert result["loser"] is None or result["gainer"] is None, "one die changes hands at most"
    assert (result["winner"] is None) != (result["next_opener"] is None), result
    leaks = [p for p in dice_lists(result) if not allowed_dice_path(p)]
    assert not leaks, f"dice-like lists outside the reveal: {leaks}"


def check_round_shape(round_: Message, players: dict[int, Message]) -> None:
    keys = {"number", "opener", "turn", "palifico", "palifico_seat", "total_dice"}
    keys |= {"bid", "bids", "turn_deadline", "roll_off"}
    assert set(round_) >= keys, f"round lacks {keys - set(round_)}"
    active = {seat for seat, p in players.items() if not p["out"]}
    assert is_int(round_["number"]) and round_["number"] >= 1
    assert round_["opener"] in active and round_["turn"] in active, (round_, active)
    assert is_bool(round_["palifico"])
    if round_["palifico"]:
        assert round_["palifico_seat"] == round_["opener"], round_
        assert players[round_["opener"]]["palifico_used"], "used up when it starts"
    else:
        assert round_["palifico_seat"] is None, round_
    assert round_["total_dice"] == sum(p["dice"] for p in players.values()), round_
    assert isinstance(round_["bids"], list)
    for bid in round_["bids"]:
        check_bid(bid)
    assert round_["bid"] == (round_["bids"][-1] if round_["bids"] else None), round_
    deadline = round_["turn_deadline"]
    assert deadline is None or (type(deadline) in (int, float) and deadline > 1e9), deadline
    if round_["number"] == 1:
        check_roll_off(round_["roll_off"], active, round_["opener"])
    else:
        assert round_["roll_off"] is None, "roll_off is for round 1 only"


def check_roll_off(roll_off: Any, seats: set[int], opener: int) -> None:
    """RULES.md 1: everyone rolls one die, only the tied highest roll again, highest opens."""
    assert isinstance(roll_off, list) and roll_off, roll_off
    rolling = seats
    for throw in roll_off:
        assert {entry["seat"] for entry in throw} == rolling, (throw, rolling)
        assert len(throw) == len(rolling)
        assert all(is_int(entry["die"]) and 1 <= entry["die"] <= 6 for entry in throw)
        top = max(entry["die"] for entry in throw)
        rolling = {entry["seat"] for entry in throw if entry["die"] == top}
    assert rolling == {opener}, f"roll-off {roll_off} does not name opener {opener}"


def check_state(state: Message, room_id: str, seat: int | None) -> None:
    """Every field of PROTOCOL.md's `state`, as seen by `seat` (None: a spectator)."""
    keys = {"type", "seq", "room_id", "phase", "settings", "host", "players", "you"}
    keys |= {"round", "last_result", "winner", "game_id"}
    assert set(state) >= keys, f"state lacks {keys - set(state)}"
    assert is_int(state["seq"]) and state["room_id"] == room_id
    assert state["phase"] in PHASES
    check_settings(state["settings"])
    players: dict[int, Message] = {}
    for player in state["players"]:
        fields = {"seat", "name", "dice", "connected", "bot", "out", "palifico_used"}
        assert set(player) >= fields, f"player lacks {fields - set(player)}"
        assert is_seat(player["seat"]) and player["seat"] not in players
        assert isinstance(player["name"], str) and 1 <= len(player["name"]) <= 24
        assert is_int(player["dice"]) and 0 <= player["dice"] <= 5, player
        for flag in ("connected", "bot", "out", "palifico_used"):
            assert is_bool(player[flag]), (flag, player)
        if state["phase"] != "lobby":
            assert player["out"] == (player["dice"] == 0), player
        players[player["seat"]] = player
    assert len(players) <= state["settings"]["max_players"]
    if any(not p["bot"] for p in players.values()):
        assert state["host"] in players, "the host is a seated player"
    else:  # nobody, or bots only: PROTOCOL.md names no host (the server sends null)
        assert state["host"] is None or state["host"] in players, state["host"]
    you = state["you"]
    assert set(you) >= {"seat", "dice", "legal"} and you["seat"] == seat, (you, seat)
    assert isinstance(you["dice"], list) and all(is_int(d) and 1 <= d <= 6 for d in you["dice"])
    legal = you["legal"]
    assert set(legal) >= {"min_quantity", "dudo", "calza"}, legal
    assert isinstance(legal["min_quantity"], list) and len(legal["min_quantity"]) == 6
    assert all(is_opt_int(q) for q in legal["min_quantity"]), legal
    assert is_bool(legal["dudo"]) and is_bool(legal["calza"]), legal
    assert is_opt_int(state["winner"])
    assert state["game_id"] is None or isinstance(state["game_id"], str)
    leaks = [p for p in dice_lists(state) if not allowed_dice_path(p)]
    assert not leaks, f"dice-like lists besides my own and revealed ones: {leaks}"
    if state["last_result"] is not None:
        check_round_result_shape({"type": "round_result", **state["last_result"]})
    mine = players.get(seat) if seat is not None else None
    if state["phase"] == "playing":
        assert state["round"] is not None and state["winner"] is None
        check_round_shape(state["round"], players)
        expected_dice = mine["dice"] if mine is not None else 0
        assert len(you["dice"]) == expected_dice, (you["dice"], mine)
        assert legal == expected_legal(state, seat), (
            f"you.legal {legal} != RULES.md {expected_legal(state, seat)} in {state['round']}"
        )
    else:
        assert you["dice"] == [] or state["phase"] == "finished", you
        assert legal == CLOSED_LEGAL, legal
    if state["phase"] == "finished":
        assert state["winner"] in players, state["winner"]
    if state["phase"] == "lobby":
        assert state["winner"] is None and state["round"] is None


def player(state: Message, seat: int) -> Message | None:
    """The `players[]` entry of `seat`, if it is seated."""
    return next((p for p in state["players"] if p["seat"] == seat), None)


def active_seats(state: Message) -> list[int]:
    return sorted(p["seat"] for p in state["players"] if not p["out"])


def clockwise_after(seats: list[int], seat: int) -> int:
    """The next seat of `seats` (sorted) after `seat`, wrapping around."""
    later = [s for s in seats if s > seat]
    return later[0] if later else seats[0]


def least_quantity(state: Message, seat: int, face: int) -> int | None:
    """RULES.md 4 and 7: the least legal quantity on `face` for `seat` now (None: never)."""
    round_ = state["round"]
    bid = round_["bid"]
    if round_["palifico"]:
        me = next(p for p in state["players"] if p["seat"] == seat)
        veteran = seat != round_["palifico_seat"] and me["dice"] == 1 and me["palifico_used"]
        least = palifico_least(bid, face, veteran)
    else:
        least = normal_least(bid, face)
    if least is None or least > round_["total_dice"]:
        return None
    return least


def normal_least(bid: Message | None, face: int) -> int | None:
    """RULES.md 4: aces wild, never opened on, half the quantity to go to aces, 2q+1 back."""
    if bid is None:
        return None if face == 1 else 1
    q, f = int(bid["quantity"]), int(bid["face"])
    if f == 1:
        return q + 1 if face == 1 else 2 * q + 1
    if face == 1:
        return (q + 1) // 2
    return q if face > f else q + 1


def palifico_least(bid: Message | None, face: int, veteran: bool) -> int | None:
    """RULES.md 7: any opening face; the face locked, except for a one-die veteran."""
    if bid is None:
        return 1
    q, f = int(bid["quantity"]), int(bid["face"])
    if veteran:
        return q if face > f else q + 1
    return q + 1 if face == f else None


def expected_legal(state: Message, seat: int | None) -> Message:
    """`you.legal` as RULES.md defines it, from the public part of `state`."""
    if state["phase"] != "playing" or seat is None:
        return CLOSED_LEGAL
    me = next((p for p in state["players"] if p["seat"] == seat), None)
    if me is None or me["out"]:
        return CLOSED_LEGAL
    round_ = state["round"]
    bid = round_["bid"]
    settings = state["settings"]
    if settings["calza_rule"] == "pressman":
        excluded = round_["turn"]
    else:
        excluded = bid["seat"] if bid is not None else None
    calza = (
        settings["calza"]
        and bid is not None
        and not round_["palifico"]
        and len(active_seats(state)) > 2
        and seat != excluded
    )
    if round_["turn"] != seat:
        return {"min_quantity": [None] * 6, "dudo": False, "calza": calza}
    return {
        "min_quantity": [least_quantity(state, seat, face) for face in range(1, 7)],
        "dudo": bid is not None,
        "calza": calza,
    }


def counted(dice: list[int], face: int, palifico: bool) -> int:
    """RULES.md 3."""
    wild = face != 1 and not palifico
    return sum(1 for d in dice if d == face or (wild and d == 1))


def check_outcome(before: Message, result: Message, after: Message) -> None:
    """A `round_result` against RULES.md 3, 5, 6, 7 and 8, given the last `state` of the round
    (`before`) and the first `state` after it (`after`)."""
    round_ = before["round"]
    players = {p["seat"]: p for p in before["players"]}
    seats = active_seats(before)
    caller = result["caller"]
    assert result["round"] == round_["number"], (result, round_)
    assert result["bid"] == round_["bid"], (result["bid"], round_["bid"])
    assert result["palifico"] == round_["palifico"]
    assert caller in seats
    start = seats.index(caller)
    order = seats[start:] + seats[:start]
    assert [e["seat"] for e in result["reveal"]] == order, "reveal: caller first, clockwise"
    for entry in result["reveal"]:
        assert len(entry["dice"]) == players[entry["seat"]]["dice"], entry
    all_dice = [d for entry in result["reveal"] for d in entry["dice"]]
    bid = result["bid"]
    count = counted(all_dice, bid["face"], result["palifico"])
    assert result["count"] == count, f"count {result['count']} != {count} ({bid}, {all_dice})"
    dice = {seat: players[seat]["dice"] for seat in seats}
    loser: int | None
    gainer: int | None = None
    if result["call"] == "dudo":
        assert caller == round_["turn"], "only the player to act calls dudo"
        loser = caller if count >= bid["quantity"] else bid["seat"]
    elif count == bid["quantity"]:
        loser, gainer = None, caller
    else:
        loser = caller
    assert (result["loser"], result["gainer"]) == (loser, gainer), (result, loser, gainer)
    if loser is not None:
        dice[loser] -= 1
    if gainer is not None:
        dice[gainer] = min(5, dice[gainer] + 1)
    eliminated = loser if loser is not None and dice[loser] == 0 else None
    assert result["eliminated"] == eliminated
    left = [seat for seat in seats if dice[seat] > 0]
    pivot = loser if loser is not None else caller
    if len(left) == 1:
        assert (result["winner"], result["next_opener"]) == (left[0], None), result
    else:
        opener = pivot if dice[pivot] > 0 else clockwise_after(left, pivot)
        assert (result["winner"], result["next_opener"]) == (None, opener), (result, opener)
    assert after["last_result"] == {k: v for k, v in result.items() if k != "type"}
    now = {p["seat"]: p for p in after["players"]}
    for seat in players:
        assert now[seat]["dice"] == dice.get(seat, 0), (seat, now[seat], dice)
    if result["winner"] is not None:
        assert after["phase"] == "finished" and after["winner"] == result["winner"]
        return
    new = after["round"]
    assert after["phase"] == "playing" and new["number"] == round_["number"] + 1
    assert new["opener"] == result["next_opener"] and new["turn"] == new["opener"]
    assert new["bid"] is None and new["bids"] == []
    palifico = (
        before["settings"]["palifico"]
        and loser is not None
        and players[loser]["dice"] == 2
        and not players[loser]["palifico_used"]
        and len(left) >= 3
    )
    assert new["palifico"] == palifico, f"palifico round expected: {palifico}; {new}"
    if palifico:
        assert new["palifico_seat"] == loser and now[loser]["palifico_used"]
    for seat, player in players.items():
        if player["palifico_used"]:
            assert now[seat]["palifico_used"], "palifico is used up for good"
