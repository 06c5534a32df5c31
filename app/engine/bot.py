"""Bot players: decide from a player view only, so they can never see hidden dice.

The bot never re-implements legality: it picks among the bids `you.legal` opens and the calls it
allows. It weighs each option by the expected number of dice it costs the bot:

- dudo loses a die when the standing bid holds;
- a raise loses a die when the next player calls dudo on it and it fails; when they raise
  instead, the bot still carries a share of the rest of the round;
- calza wins a die when the count is exact and loses one otherwise.

"The bid holds" is computed exactly over the dice the bot cannot see (aces wild or not): each
opponent's hand is a binomial tilted towards the faces that opponent has bid this round, and
(hard) weighted by how plausible their bid quantities are with each possible hand. Noise and
occasional bluffs on another face keep the bot unreadable. The levels differ in how much they
read into others' bids and how they foresee the next player's dudo (see `STYLES`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal, NamedTuple, get_args

from app.engine.bids import ACE, FACES, Bid
from app.engine.game import MAX_DICE, Action, Calza, Dudo, count_matching, match_chance
from app.engine.wire import BidView, GameView, LegalView

BotLevel = Literal["easy", "normal", "hard", "expert"]
BOT_LEVELS: tuple[BotLevel, ...] = get_args(BotLevel)

Distribution = tuple[float, ...]
HandKey = tuple[int, float, float | None, float]  # the arguments of `_hand`


class Unseen(NamedTuple):
    """The matching dice among every die the bot cannot see, for one face."""

    pmf: Distribution
    tails: Distribution  # tails[k] = P(at least k)
    mean: float


@dataclass(frozen=True, slots=True)
class Style:
    """How one level plays; every number is a tuning knob of the cost model above."""

    inference: float  # log-odds shift per bid an opponent made on a face (0: ignore bids)
    trust: float  # 0..1, how far an opponent's bid quantity is taken as a claim on their dice
    caller: int  # next player's dudo: 0 assume always, 1 vs a blind mean, 2 reading our bids too
    continuation: float  # share of the round's die still ours when the next player raises
    noise: float  # standard deviation added to each option's expected die loss
    bluff: float  # chance to raise on another face than the best one, if it is nearly as good
    bluff_slack: float  # how much more expected loss a bluff may cost
    calza_margin: float  # expected dice a calza out of turn must promise (negative: loose)


STYLES: dict[BotLevel, Style] = {
    "easy": Style(0.2, 0.0, 0, 0.4, 0.12, 0.2, 0.25, -0.15),
    "normal": Style(0.4, 0.0, 1, 0.4, 0.05, 0.12, 0.12, -0.05),
    "hard": Style(0.6, 0.3, 2, 0.5, 0.01, 0.08, 0.06, 0.05),
    "expert": Style(0.6, 0.3, 2, 0.5, 0.01, 0.05, 0.04, 0.05),  # its search: app/engine/expert.py
}

# Weight of the signal each kind of bid carries about the bidder's own dice.
SIGNAL_CHOSEN = 1.0  # an opening bid or a change of face: the bidder picked this face
SIGNAL_KEPT = 0.6  # a raise on the standing face: the bidder backs it
SIGNAL_LOCKED = 0.4  # a raise on a palifico round's locked face: the bidder had no other face
SIGNAL_CAP = 2.0
ACES_SPILL = 0.5  # in a normal round, aces bid by a player count towards every face
CALL_SOFTNESS = 0.75  # how sharply the next player's dudo follows the bid's excess over their mean
CLAIM_SOFTNESS = 0.8  # how sharply a bid's plausibility to its bidder follows their own dice
TEMPO = 0.01  # among equally safe raises, prefer the higher bar


def heuristic_action(view: GameView, level: BotLevel, rng: random.Random) -> Action:
    """The move of the heuristic levels (easy, normal, hard; `levels.choose_action` is every
    level's) for the seat in `view`, which must be the seat to act.

    Raises ValueError when the view allows no action (not the seat's turn).
    """
    style = STYLES[level]
    options, raises = priced_options(Reading.read(view, style), view["you"]["legal"], style)
    if not options:
        raise ValueError("the view allows no action: not this seat's turn")
    noisy = [(cost + rng.gauss(0.0, style.noise), action) for cost, action in options]
    return pick(noisy, raises, style, rng)


def priced_options(
    table: Reading, legal: LegalView, style: Style
) -> tuple[list[tuple[float, Action]], list[tuple[float, Bid]]]:
    """Every option `legal` opens with its expected die loss, before noise (the raises first,
    then dudo and calza), and the raises alone."""
    raises = _raises(table, legal["min_quantity"], style)
    options: list[tuple[float, Action]] = list(raises)
    if legal["dudo"] and table.standing is not None:
        options.append((table.holds(table.standing), Dudo()))
    if legal["calza"] and table.standing is not None:
        options.append((-_calza_value(table, table.standing), Calza()))
    return options, raises


def pick(
    options: list[tuple[float, Action]],
    raises: Sequence[tuple[float, Bid]],
    style: Style,
    rng: random.Random,
) -> Action:
    """The cheapest of `options` (expected dice lost, noise added), or now and then, when the
    best is a raise, a bluff: a raise on another face that costs little more."""
    best_cost, best = min(options, key=lambda option: option[0])
    if isinstance(best, Bid) and rng.random() < style.bluff:
        return bluff(best, best_cost, raises, style) or best
    return best


def bluff(
    best: Bid, best_cost: float, raises: Sequence[tuple[float, Bid]], style: Style
) -> Bid | None:
    """The bluff a bot whose best option is `best` would make: the cheapest raise on another
    face within the style's slack (None if there is none)."""
    bluffs = [
        (c, b) for c, b in raises if b.face != best.face and c <= best_cost + style.bluff_slack
    ]
    return min(bluffs, key=lambda option: option[0])[1] if bluffs else None


def maybe_calza(view: GameView, level: BotLevel, rng: random.Random) -> bool:
    """Whether the bot calls calza now, out of turn; False whenever calza is not legal for it.

    Only when the call's expected dice beat the level's margin: an exact count is rarely likely,
    and tournaments showed that eager calls lose more dice than waiting does.
    """
    if not view["you"]["legal"]["calza"]:
        return False
    style = STYLES[level]
    table = Reading.read(view, style)
    if table.standing is None:
        return False
    gain = _calza_value(table, table.standing) + rng.gauss(0.0, style.noise)
    return gain > style.calza_margin


def _calza_value(table: Reading, bid: Bid) -> float:
    """Expected dice won by calling calza on `bid` (negative: expected loss)."""
    exact = table.exact(bid)
    gain = 1.0 if table.counts[table.me] < MAX_DICE else 0.0
    loss = 1.5 if table.counts[table.me] == 1 else 1.0  # the last die ends the game for us
    return exact * gain - (1.0 - exact) * loss


def _raises(
    table: Reading, min_quantity: list[int | None], style: Style
) -> list[tuple[float, Bid]]:
    """Every sensible legal raise with its expected die loss."""
    return [(cost, bid) for cost, bid, _ in priced_raises(table, min_quantity, style)]


def priced_raises(
    table: Reading, min_quantity: list[int | None], style: Style
) -> list[tuple[float, Bid, float]]:
    """The legal raises worth weighing, each with its expected die loss and the chance it
    holds."""
    share = carried_share(table, style)
    found: list[tuple[float, Bid, float]] = []
    for face, least in zip(FACES, min_quantity, strict=True):
        if least is not None:
            own = table.own_counts[face - 1]
            found += [
                (cost, Bid(quantity, face), held)
                for cost, quantity, held in face_prices(
                    table, face, own, least, bool(found), share, style
                )
            ]
    return found


def carried_share(table: Reading, style: Style) -> float:
    """The share of the round's die a raise that is not called still costs."""
    return style.continuation / max(1, len(table.counts) - 1)


def face_prices(
    table: Reading, face: int, own: int, least: int, more: bool, share: float, style: Style
) -> list[tuple[float, int, float]]:
    """The raises worth weighing on `face` for a hand with `own` matching dice, as (expected
    die loss, quantity, chance it holds): from a little below the expected count up to the
    first that is hopeless (raises far below it all cost about the same), that one left out
    if `more` were found on other faces. A raise loses a die when the next player calls it
    and it fails, and otherwise still costs `share`. One loop, reading the tails itself: the
    expert's search prices thousands of hands per decision."""
    unseen = table.unseen(face)
    tails = unseen.tails
    found: list[tuple[float, int, float]] = []
    for quantity in range(max(least, int(own + unseen.mean) - 3), table.total + 1):
        needed = quantity - own
        held = tails[max(0, needed)] if needed < len(tails) else 0.0
        if held < 0.05 and (more or found):
            break
        called = table.called(face, quantity) if style.caller else 1.0
        cost = called * (1.0 - held) + (1.0 - called) * share - TEMPO * quantity / table.total
        found.append((cost, quantity, held))
    return found


@dataclass(slots=True)
class Reading:
    """What the bot knows: its own dice, dice counts, and per-face estimates of the rest."""

    me: int
    own_counts: list[int]  # own dice meeting a bid on face 1..6
    total: int
    palifico: bool
    standing: Bid | None
    counts: dict[int, int]  # active seats -> dice held
    next_seat: int | None
    signals: dict[int, list[float]]  # seat -> how strongly its bids point at face 1..6
    claims: dict[tuple[int, int], float]  # (other seat, face) -> matching dice its bids imply
    style: Style
    _unseen: dict[int, Unseen] = field(default_factory=dict)
    _keys: dict[tuple[int, int], HandKey] = field(default_factory=dict)
    _called: dict[int, float] = field(default_factory=dict)
    _seen: dict[int, float] = field(default_factory=dict)

    @classmethod
    def read(cls, view: GameView, style: Style) -> Reading:
        round_ = view["round"]
        me = view["you"]["seat"]
        if round_ is None or me is None:
            raise ValueError("the bot needs a running round and a seat")
        palifico = round_["palifico"]
        own = view["you"]["dice"]
        counts = {p["seat"]: p["dice"] for p in view["players"] if not p["out"]}
        order = sorted(counts)
        later = [seat for seat in order if seat > me] + [seat for seat in order if seat < me]
        standing = round_["bid"]
        return cls(
            me=me,
            own_counts=[count_matching(own, face, aces_wild=not palifico) for face in FACES],
            total=round_["total_dice"],
            palifico=palifico,
            standing=Bid(standing["quantity"], standing["face"]) if standing else None,
            counts=counts,
            next_seat=later[0] if later else None,
            signals=_signals(round_["bids"], palifico),
            claims=_claims(round_["bids"], me, counts, palifico) if style.trust else {},
            style=style,
        )

    def holds(self, bid: Bid) -> float:
        """P(the table shows at least `bid.quantity` dice meeting `bid`)."""
        needed = bid.quantity - self.own_counts[bid.face - 1]
        tails = self._distribution(bid.face).tails
        return tails[max(0, needed)] if needed < len(tails) else 0.0

    def exact(self, bid: Bid) -> float:
        """P(the table shows exactly `bid.quantity` dice meeting `bid`)."""
        needed = bid.quantity - self.own_counts[bid.face - 1]
        pmf = self._distribution(bid.face).pmf
        return pmf[needed] if 0 <= needed < len(pmf) else 0.0

    def expected(self, face: int) -> float:
        """The expected number of dice on the table meeting a bid on `face`."""
        return self.own_counts[face - 1] + self._distribution(face).mean

    def seen_by_next(self, face: int) -> float:
        """What the next player expects, on `face`, of the dice they cannot see.

        Level 1: their share of every such die. Level 2: each player's dice shifted by that
        player's bids, ours included, counting the raise we are about to make on `face`.
        """
        seat = self.next_seat
        if seat is None or seat == self.me:
            return 0.0
        if self.style.caller < 2:
            return (self.total - self.counts[seat]) * _base_p(face, self.palifico)
        ours = list(self.signals.get(self.me, [0.0] * 6))
        standing = self.standing
        if standing is None or standing.face != face:
            ours[face - 1] = min(SIGNAL_CAP, ours[face - 1] + SIGNAL_CHOSEN)
        else:
            kept = SIGNAL_LOCKED if self.palifico else SIGNAL_KEPT
            ours[face - 1] = min(SIGNAL_CAP, ours[face - 1] + kept)
        mine = _tilted(face, self.palifico, ours, self.style.inference)
        return self.counts[self.me] * mine + sum(
            _hand_mean(self._hand_key(other, face))
            for other in self.counts
            if other not in (self.me, seat)
        )

    def called(self, face: int, quantity: int) -> float:
        """`call_chance` of a raise to `quantity` on `face` against the next player's
        `seen_by_next`, remembered."""
        key = face << 6 | quantity
        chance = self._called.get(key)
        if chance is None:
            seen = self._seen.get(face)
            if seen is None:
                seen = self._seen[face] = self.seen_by_next(face)
            chance = self._called[key] = self.call_chance(Bid(quantity, face), seen)
        return chance

    def call_chance(self, bid: Bid, seen: float) -> float:
        """P(the next player calls dudo on `bid`): likelier the more it exceeds their mean,
        their own matching dice (estimated like any opponent's) plus `seen_by_next`."""
        seat = self.next_seat
        if seat is None or seat == self.me:
            return 0.0
        chance = 0.0
        for matching, weight in enumerate(self.hand(seat, bid.face)):
            chance += weight * logistic((bid.quantity - matching - seen) / CALL_SOFTNESS)
        return chance

    def hand(self, seat: int, face: int) -> Distribution:
        """P(`seat` holds k dice meeting a bid on `face`), k = 0..dice, given its bids."""
        return _hand(*self._hand_key(seat, face))

    def _hand_key(self, seat: int, face: int) -> HandKey:
        key = self._keys.get((seat, face))
        if key is None:
            p = _tilted(face, self.palifico, self.signals.get(seat), self.style.inference)
            key = (self.counts[seat], p, self.claims.get((seat, face)), self.style.trust)
            self._keys[seat, face] = key
        return key

    def unseen_without(self, seat: int, face: int) -> Distribution:
        """P(at least k) of the matching dice held by neither us nor `seat`, k = 0.. ."""
        parts = tuple(
            self._hand_key(other, face) for other in self.counts if other not in (self.me, seat)
        )
        return _sum_of_hands(parts).tails

    def unseen(self, face: int) -> Unseen:
        """The matching dice on `face` among all the dice this seat cannot see."""
        return self._distribution(face)

    def _distribution(self, face: int) -> Unseen:
        cached = self._unseen.get(face)
        if cached is None:
            base = _base_p(face, self.palifico)
            untouched = 0
            parts: list[HandKey] = []
            for seat, dice in self.counts.items():
                if seat == self.me:
                    continue
                key = self._hand_key(seat, face)
                if key[1] == base and key[2] is None:
                    untouched += dice
                else:
                    parts.append(key)
            parts.append((untouched, base, None, 0.0))
            cached = _sum_of_hands(tuple(parts))
            self._unseen[face] = cached
        return cached


def _signals(bids: list[BidView], palifico: bool) -> dict[int, list[float]]:
    """Per seat, how strongly its bids this round point at each face 1..6 (index 0..5)."""
    strength: dict[int, list[float]] = {}
    previous: int | None = None
    for placed in bids:
        seat, face = placed["seat"], placed["face"]
        if previous is None or face != previous:
            weight = SIGNAL_CHOSEN
        else:
            weight = SIGNAL_LOCKED if palifico else SIGNAL_KEPT
        per_face = strength.setdefault(seat, [0.0] * 6)
        per_face[face - 1] = min(SIGNAL_CAP, per_face[face - 1] + weight)
        previous = face
    return strength


def _claims(
    bids: list[BidView], me: int, counts: dict[int, int], palifico: bool
) -> dict[tuple[int, int], float]:
    """Per (other seat, face): the most matching dice that seat's bids on the face imply it
    holds, i.e. the quantity beyond what it can expect among the dice it cannot see."""
    total = sum(counts.values())
    claims: dict[tuple[int, int], float] = {}
    for placed in bids:
        seat, face = placed["seat"], placed["face"]
        if seat == me or seat not in counts:
            continue
        implied = placed["quantity"] - (total - counts[seat]) * _base_p(face, palifico)
        key = (seat, face)
        claims[key] = round(max(implied, claims.get(key, -math.inf)), 1)
    return claims


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
    return match_chance(face, aces_wild=not palifico)


def logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


@lru_cache(maxsize=4096)
def _binomial(n: int, p: float) -> Distribution:
    return tuple(math.comb(n, k) * p**k * (1.0 - p) ** (n - k) for k in range(n + 1))


@lru_cache(maxsize=8192)
def _hand(n: int, p: float, claim: float | None, trust: float) -> Distribution:
    """Binomial(n, p) weighted by how plausible the bidder's claim is with k matching dice."""
    prior = _binomial(n, p)
    if claim is None or trust == 0.0:
        return prior
    weighted = [
        weight * (1.0 - trust + trust * logistic((k - claim) / CLAIM_SOFTNESS))
        for k, weight in enumerate(prior)
    ]
    scale = sum(weighted)
    return tuple(weight / scale for weight in weighted)


@lru_cache(maxsize=8192)
def _hand_mean(key: HandKey) -> float:
    return sum(k * weight for k, weight in enumerate(_hand(*key)))


@lru_cache(maxsize=16384)
def _sum_of_hands(parts: tuple[HandKey, ...]) -> Unseen:
    """The sum of independent hands, each given by its `_hand` arguments."""
    pmf: list[float] = [1.0]
    for part in parts:
        step = _hand(*part)
        merged = [0.0] * (len(pmf) + len(step) - 1)
        for i, a in enumerate(pmf):
            for j, b in enumerate(step):
                merged[i + j] += a * b
        pmf = merged
    tails = [0.0] * (len(pmf) + 1)
    for k in range(len(pmf) - 1, -1, -1):
        tails[k] = tails[k + 1] + pmf[k]
    return Unseen(tuple(pmf), tuple(tails), sum(k * weight for k, weight in enumerate(pmf)))
