"""Bot players: decide from a player view only, so they can never see hidden dice.

The bot never re-implements legality: it picks among the bids `you.legal` opens and the calls it
allows. It weighs each option by the expected number of dice it costs the bot:

- dudo loses a die when the standing bid holds;
- a raise loses a die when the next player calls dudo on it and it fails; when they raise
  instead, the bot still carries a share of the rest of the round;
- calza wins a die when the count is exact and loses one otherwise.

"The bid holds" is a binomial tail over the dice the bot cannot see (aces wild or not), where
each opponent's dice are tilted towards the faces that opponent has bid this round: whoever
bids a face probably holds some of it. Noise and occasional bluffs keep the bot unreadable.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from app.engine.bids import ACE, FACES, Bid
from app.engine.game import MAX_DICE, Action, Calza, Dudo, count_matching
from app.engine.view import GameView

BotLevel = Literal["easy", "normal", "hard"]
BOT_LEVELS: tuple[BotLevel, ...] = ("easy", "normal", "hard")

Distribution = tuple[float, ...]


@dataclass(frozen=True, slots=True)
class Style:
    """How one level plays; every number is a tuning knob of the cost model above."""

    inference: float  # log-odds shift per bid an opponent made on a face (0: ignore bids)
    read_caller: bool  # model when the next player calls dudo (False: assume they always do)
    continuation: float  # share of the round's die still ours when the next player raises
    noise: float  # standard deviation added to each option's expected die loss
    bluff: float  # chance to raise on another face than the best one, if it is nearly as good
    bluff_slack: float  # how much more expected loss a bluff may cost
    calza_margin: float  # extra expected gain a calza must promise before the bot calls it


STYLES: dict[BotLevel, Style] = {
    "easy": Style(0.3, False, 0.4, 0.12, 0.25, 0.25, 0.15),
    "normal": Style(0.6, True, 0.4, 0.05, 0.12, 0.12, 0.08),
    "hard": Style(0.9, True, 0.4, 0.02, 0.08, 0.06, 0.04),
}

# Weight of the signal each kind of bid carries about the bidder's own dice.
SIGNAL_CHOSEN = 1.0  # an opening bid or a change of face: the bidder picked this face
SIGNAL_KEPT = 0.6  # a raise on the standing face: the bidder backs it
SIGNAL_LOCKED = 0.4  # a raise on a palifico round's locked face: the bidder had no other face
SIGNAL_CAP = 2.0
ACES_SPILL = 0.5  # in a normal round, aces bid by a player count towards every face
CALL_SOFTNESS = 0.75  # how sharply the next player's dudo follows the bid's excess over their mean
TEMPO = 0.01  # among equally safe raises, prefer the higher bar


def choose_action(view: GameView, level: BotLevel, rng: random.Random) -> Action:
    """The bot's move for the seat in `view`, which must be the seat to act.

    Raises ValueError when the view allows no action (not the seat's turn).
    """
    style = STYLES[level]
    table = _Table.read(view, style)
    legal = view["you"]["legal"]
    options: list[tuple[float, Action]] = []
    raises = _raises(table, legal["min_quantity"], style)
    for cost, bid in raises:
        options.append((cost + rng.gauss(0.0, style.noise), bid))
    if legal["dudo"] and table.standing is not None:
        held = table.holds(table.standing)
        options.append((held + rng.gauss(0.0, style.noise), Dudo()))
    if legal["calza"] and table.standing is not None:
        options.append(
            (-_calza_value(table, table.standing) + rng.gauss(0.0, style.noise), Calza())
        )
    if not options:
        raise ValueError("the view allows no action: not this seat's turn")
    best_cost, best = min(options, key=lambda option: option[0])
    if isinstance(best, Bid) and rng.random() < style.bluff:
        bluffs = [
            (c, b) for c, b in raises if b.face != best.face and c <= best_cost + style.bluff_slack
        ]
        if bluffs:
            return min(bluffs, key=lambda option: option[0])[1]
    return best


def maybe_calza(view: GameView, level: BotLevel, rng: random.Random) -> bool:
    """Whether the bot calls calza now, out of turn; False whenever calza is not legal for it.

    Calling ends the round, so it is weighed against the share of this round's die the bot
    would otherwise carry.
    """
    if not view["you"]["legal"]["calza"]:
        return False
    style = STYLES[level]
    table = _Table.read(view, style)
    if table.standing is None:
        return False
    waiting = -1.0 / len(table.counts)
    gain = _calza_value(table, table.standing) + rng.gauss(0.0, style.noise)
    return gain > waiting + style.calza_margin


def _calza_value(table: _Table, bid: Bid) -> float:
    """Expected dice won by calling calza on `bid` (negative: expected loss)."""
    exact = table.exact(bid)
    gain = 1.0 if table.counts[table.me] < MAX_DICE else 0.0
    loss = 1.5 if table.counts[table.me] == 1 else 1.0  # the last die ends the game for us
    return exact * gain - (1.0 - exact) * loss


def _raises(table: _Table, min_quantity: list[int | None], style: Style) -> list[tuple[float, Bid]]:
    """Every sensible legal raise with its expected die loss; hopeless ones are left out."""
    share = style.continuation / max(1, len(table.counts) - 1)
    found: list[tuple[float, Bid]] = []
    for face, least in zip(FACES, min_quantity, strict=True):
        if least is None:
            continue
        # Raises far below the expected count all cost about the same: skip all but the top few.
        floor = int(table.expected(face)) - 3
        for quantity in range(max(least, floor), table.total + 1):
            bid = Bid(quantity, face)
            held = table.holds(bid)
            if held < 0.05 and found:
                break
            called = table.call_chance(bid) if style.read_caller else 1.0
            cost = called * (1.0 - held) + (1.0 - called) * share
            found.append((cost - TEMPO * quantity / table.total, bid))
    return found


@dataclass(slots=True)
class _Table:
    """What the bot knows: its own dice, dice counts, and per-face estimates of the rest."""

    me: int
    own_counts: list[int]  # own dice meeting a bid on face 1..6
    total: int
    palifico: bool
    standing: Bid | None
    counts: dict[int, int]  # active seats -> dice held
    next_seat: int | None
    signals: dict[int, list[float]]  # other seat -> how strongly its bids point at face 1..6
    inference: float
    _unknown: dict[int, tuple[Distribution, Distribution]] = field(default_factory=dict)

    @classmethod
    def read(cls, view: GameView, style: Style) -> _Table:
        round_ = view["round"]
        me = view["you"]["seat"]
        if round_ is None or me is None:
            raise ValueError("the bot needs a running round and a seat")
        palifico = bool(round_["palifico"])
        own = view["you"]["dice"]
        counts = {p["seat"]: p["dice"] for p in view["players"] if not p["out"]}
        order = sorted(counts)
        later = [seat for seat in order if seat > me] + [seat for seat in order if seat < me]
        standing = round_["bid"]
        return cls(
            me=me,
            own_counts=[count_matching(own, face, aces_wild=not palifico) for face in FACES],
            total=int(round_["total_dice"]),
            palifico=palifico,
            standing=Bid(standing["quantity"], standing["face"]) if standing else None,
            counts=counts,
            next_seat=later[0] if later else None,
            signals=_signals(round_["bids"], me, palifico),
            inference=style.inference,
        )

    def holds(self, bid: Bid) -> float:
        """P(the table shows at least `bid.quantity` dice meeting `bid`)."""
        needed = bid.quantity - self.own_counts[bid.face - 1]
        tails = self._distribution(bid.face)[1]
        return tails[max(0, needed)] if needed < len(tails) else 0.0

    def exact(self, bid: Bid) -> float:
        """P(the table shows exactly `bid.quantity` dice meeting `bid`)."""
        needed = bid.quantity - self.own_counts[bid.face - 1]
        pmf = self._distribution(bid.face)[0]
        return pmf[needed] if 0 <= needed < len(pmf) else 0.0

    def expected(self, face: int) -> float:
        """The expected number of dice on the table meeting a bid on `face`."""
        return self.own_counts[face - 1] + sum(
            dice * self.tilt(seat, face) for seat, dice in self.counts.items() if seat != self.me
        )

    def call_chance(self, bid: Bid) -> float:
        """P(the next player calls dudo on `bid`): likelier the more it exceeds their mean.

        Their mean is their own matching dice (estimated like any opponent's) plus the
        expected share of every die they cannot see.
        """
        seat = self.next_seat
        if seat is None or seat == self.me:
            return 0.0
        theirs = self.counts[seat]
        blind_mean = (self.total - theirs) * _base_p(bid.face, self.palifico)
        chance = 0.0
        for matching, weight in enumerate(_binomial(theirs, self.tilt(seat, bid.face))):
            excess = bid.quantity - matching - blind_mean
            chance += weight * _logistic(excess / CALL_SOFTNESS)
        return chance

    def tilt(self, seat: int, face: int) -> float:
        """P(one die of `seat` meets a bid on `face`), given that seat's bids this round."""
        return _tilted(face, self.palifico, self.signals.get(seat), self.inference)

    def _distribution(self, face: int) -> tuple[Distribution, Distribution]:
        """(pmf, tails) of the matching dice among all dice the bot cannot see."""
        cached = self._unknown.get(face)
        if cached is None:
            untilted = 0
            parts: list[tuple[int, float]] = []
            base = _base_p(face, self.palifico)
            for seat, dice in self.counts.items():
                if seat == self.me:
                    continue
                p = self.tilt(seat, face)
                if p == base:
                    untilted += dice
                else:
                    parts.append((dice, p))
            parts.append((untilted, base))
            cached = _sum_of_binomials(tuple(sorted(parts)))
            self._unknown[face] = cached
        return cached


def _signals(bids: list[dict[str, Any]], me: int, palifico: bool) -> dict[int, list[float]]:
    """Per other seat, how strongly its bids this round point at each face 1..6 (index 0..5)."""
    strength: dict[int, list[float]] = {}
    previous: int | None = None
    for placed in bids:
        seat, face = placed["seat"], placed["face"]
        if seat != me:
            if previous is None or face != previous:
                weight = SIGNAL_CHOSEN
            else:
                weight = SIGNAL_LOCKED if palifico else SIGNAL_KEPT
            per_face = strength.setdefault(seat, [0.0] * 6)
            per_face[face - 1] = min(SIGNAL_CAP, per_face[face - 1] + weight)
        previous = face
    return strength


def _tilted(face: int, palifico: bool, signals: list[float] | None, inference: float) -> float:
    """P(one die of a player meets `face`), shifted by that player's bids (exponential tilt)."""
    base = _base_p(face, palifico)
    if signals is None or inference == 0.0:
        return base
    strength = signals[face - 1]
    if not palifico and face != ACE:
        strength += ACES_SPILL * signals[ACE - 1]
    if strength == 0.0:
        return base
    weight = math.exp(inference * strength)
    return round(base * weight / (1.0 - base + base * weight), 4)


def _base_p(face: int, palifico: bool) -> float:
    return 1.0 / 6.0 if palifico or face == ACE else 1.0 / 3.0


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


@lru_cache(maxsize=4096)
def _binomial(n: int, p: float) -> Distribution:
    return tuple(math.comb(n, k) * p**k * (1.0 - p) ** (n - k) for k in range(n + 1))


@lru_cache(maxsize=16384)
def _sum_of_binomials(parts: tuple[tuple[int, float], ...]) -> tuple[Distribution, Distribution]:
    """(pmf, tails) of a sum of independent binomials; tails[k] = P(X >= k)."""
    pmf: list[float] = [1.0]
    for n, p in parts:
        step = _binomial(n, p)
        merged = [0.0] * (len(pmf) + len(step) - 1)
        for i, a in enumerate(pmf):
            for j, b in enumerate(step):
                merged[i + j] += a * b
        pmf = merged
    tails = [0.0] * (len(pmf) + 1)
    for k in range(len(pmf) - 1, -1, -1):
        tails[k] = tails[k + 1] + pmf[k]
    return tuple(pmf), tuple(tails)
