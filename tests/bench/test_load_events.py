"""`bench/load.py`'s players with bid events and in rooms that only bid: an event makes the
`state` PROTOCOL.md says, a gap asks for `sync`, and a bids-only player raises least."""

from __future__ import annotations

import asyncio
import importlib
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def load() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module("load")
    finally:
        sys.path.remove(str(BENCH))


def state(seq: int, least: list[int | None], bids: bool = True) -> dict[str, Any]:
    round_: dict[str, Any] = {"number": 1, "turn": 0, "bid": None, "turn_deadline": None}
    if bids:
        round_["bids"] = []
    legal = {"min_quantity": least, "dudo": False, "calza": False}
    return {"type": "state", "seq": seq, "phase": "playing", "host": 0, "round": round_,
            "you": {"seat": 0, "legal": legal}}  # fmt: skip


class Sent:
    """A player's transport, keeping what it was asked to send."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def send(self, _kind: Any, payload: bytes) -> None:
        self.frames.append(payload)


def table_of(load: ModuleType, held: dict[str, Any], bids_only: bool = False) -> Any:
    async def build() -> Any:
        table = load.Table("r", random.Random(1), load.Tally(), True, bids_only)
        player = load.Player(table, "P0", True)
        player.seat, player.state, player.transport = 0, held, Sent()
        table.players.append(player)
        return table

    return asyncio.run(build())


def test_a_bid_event_is_applied_to_the_state_held(load: ModuleType) -> None:
    table = table_of(load, state(3, [None] * 6))
    event = {"type": "bid", "seq": 4, "seat": 1, "quantity": 2, "face": 5, "turn": 0,
             "turn_deadline": 9.5, "you": {"seat": 0, "legal": {"dudo": True}}}  # fmt: skip
    table.receive(table.players[0], event, 120)
    held = table.players[0].state
    bid = {"quantity": 2, "face": 5, "seat": 1}
    assert held["seq"] == 4 and held["round"]["bid"] == bid and held["round"]["bids"] == [bid]
    assert held["round"]["turn_deadline"] == 9.5 and held["you"]["legal"] == {"dudo": True}
    bare = state(3, [None] * 6, bids=False)  # the bare stack's round keeps no list of bids
    load.apply_bid(bare, {key: value for key, value in event.items() if key != "you"})
    assert bare["round"]["bid"] == bid and "bids" not in bare["round"]
    assert bare["you"]["legal"]["min_quantity"] == [None] * 6  # no `you`: the one held stays


def test_a_seq_gap_asks_for_sync_and_leaves_the_state_as_it_was(load: ModuleType) -> None:
    table = table_of(load, state(3, [None] * 6))
    event = {"type": "bid", "seq": 6, "seat": 1, "quantity": 2, "face": 5, "turn": 0,
             "turn_deadline": None}  # fmt: skip
    table.receive(table.players[0], event, 80)
    assert table.players[0].state["seq"] == 3 and table.players[0].state["round"]["bid"] is None
    assert table.tally.gaps == 1 and table.players[0].transport.frames == [b'{"type":"sync"}']


@pytest.mark.parametrize(
    ("least", "move"),
    [
        ([None, 1, 1, 1, 1, 1], {"type": "bid", "quantity": 1, "face": 2}),
        ([2, 4, 4, 3, 3, 3], {"type": "bid", "quantity": 3, "face": 4}),  # aces last
        ([5, None, None, None, None, None], {"type": "bid", "quantity": 5, "face": 1}),
        ([None] * 6, {"type": "dudo"}),  # no bid is left
    ],
)
def test_a_player_that_only_bids_raises_least(
    load: ModuleType, least: list[int | None], move: dict[str, Any]
) -> None:
    table = table_of(load, state(3, least), bids_only=True)
    assert table.next_move()[1] == move


def test_the_options_name_the_server_tree_and_go_into_the_json(
    load: ModuleType, tmp_path: Path
) -> None:
    opts, _ = load.parse_args(["--server-tree", str(tmp_path), "--json", "-"])
    assert opts.server_tree == tmp_path.resolve()
    written = load.orjson.loads(load.report_json(opts, {"tree": "abc", "runs": []}))
    assert written["options"]["server_tree"] == str(tmp_path.resolve())
    assert written["tree"] == "abc"
