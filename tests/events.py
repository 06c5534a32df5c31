"""A client of bid events, as PROTOCOL.md describes one: the room tests and the browser tests
apply each `bid` event to the last `state` with it."""

from __future__ import annotations

import copy
from typing import Any

Frame = dict[str, Any]


def apply_event(state: Frame, event: Frame) -> Frame:
    """What PROTOCOL.md says a client does with a `bid` event."""
    applied = copy.deepcopy(state)
    placed = {"quantity": event["quantity"], "face": event["face"], "seat": event["seat"]}
    applied["round"]["bid"] = placed
    applied["round"]["bids"] = [*applied["round"]["bids"], dict(placed)]
    applied["round"]["turn"] = event["turn"]
    applied["round"]["turn_deadline"] = event["turn_deadline"]
    applied["seq"] = event["seq"]
    if "you" in event:
        applied["you"] = event["you"]
    marks = applied.get("autoplayed")
    if marks is not None:
        marks["bids"] = [*marks["bids"], event.get("autoplayed")]
    elif "autoplayed" in event:  # the round's first move the bot made for a person
        bids = applied["round"]["bids"]
        applied["autoplayed"] = {
            "bids": [None] * (len(bids) - 1) + [event["autoplayed"]],
            "calls": [None] * (applied["round"]["number"] - 1),  # the rounds before
        }
    return applied
