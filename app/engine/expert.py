"""The expert bot: equilibrium play in solved heads-up endgames, played-out rounds elsewhere.

Heads-up with few dice (1v1, 1v2, 2v1: the splits `app.engine.headsup` has tables for) it
samples its action from the CFR+ equilibrium of the round: it cannot be exploited there.

Everywhere else it plays out the round (`app.engine.rollout`): hidden hands dealt consistently
with the bids so far under the `hard` bot's model, each candidate (dudo, calza, the cheapest
raises) played on the same deals, the action that costs us the fewest dice chosen. At six
seats most dice are lost by others, so the measure is our own survival; heads-up it is the
whole game. Against `hard` the model is exact, and the search wins nearly half the games
among five of them and most games heads-up (the figures: bench/README.md).
"""

from __future__ import annotations

import random

from app.engine.bids import Bid
from app.engine.game import Action, Dudo
from app.engine.headsup import strategy
from app.engine.rollout import rollout_action
from app.engine.wire import GameView


def expert_action(view: GameView, rng: random.Random) -> Action:
    """The expert's move for the seat to act in `view` (ValueError if no action is legal)."""
    move = endgame_action(view, rng)
    return move if move is not None else rollout_action(view, rng)


def endgame_action(view: GameView, rng: random.Random) -> Action | None:
    """The equilibrium's move when the round is heads-up and a table covers it, else None."""
    round_ = view["round"]
    me = view["you"]["seat"]
    if round_ is None or me is None or round_["palifico"]:
        return None
    active = [p for p in view["players"] if not p["out"]]
    if len(active) != 2:
        return None
    dice = {p["seat"]: p["dice"] for p in active}
    opener = round_["opener"]
    other = next(seat for seat in dice if seat != opener)
    bids = [Bid(placed["quantity"], placed["face"]) for placed in round_["bids"]]
    mixed = strategy((dice[opener], dice[other]), bids, view["you"]["dice"])
    if mixed is None:
        return None
    draw = rng.random()
    for bid, weight in mixed:
        draw -= weight
        if draw < 0.0:
            return Dudo() if bid is None else bid
    bid = mixed[-1][0]
    return Dudo() if bid is None else bid
