"""Bot tournament on the engine alone: how often each bot level wins, with 95% intervals.

Matchups (seats rotate so that seat order and the opener's advantage even out):
- hard against a naive baseline, heads-up;
- one hard against five baselines (its fair share is 1/6);
- two each of hard, normal and easy at a six-seat table (fair share 1/3 per level);
- expert against hard, heads-up, and one expert among five hard (its fair share is 1/6),
  with the expert's CPU time per decision (p50, p99) and its tables' memory.

After every bid, each bot that may call calza is asked through `maybe_calza` (in seat order
from the bidder); the baseline never calls calza.

    .venv/bin/python bench/bots.py --games 2000 --seed 1
    .venv/bin/python bench/bots.py --games 1000 --matchups 6 7   # the expert's two
"""

from __future__ import annotations

import argparse
import itertools
import math
import multiprocessing
import random
import shlex
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from app.engine import (
    Bid,
    BidMade,
    BotLevel,
    Calza,
    Dudo,
    Game,
    GameSettings,
    GameView,
    choose_action,
    maybe_calza,
    player_view,
)
from app.engine.bids import ACE
from app.engine.game import Action, count_matching
from app.engine.headsup import loaded_tables, use_tables
from app.paths import headsup_tables

Policy = BotLevel | Literal["baseline"]


def baseline_action(view: GameView) -> Action:
    """The naive baseline, from the player view too: dudo when the standing bid exceeds the
    expected count (own matching dice plus the unseen dice's share); else the minimum raise on
    the face where that raise is most plausible by the same measure."""
    round_ = view["round"]
    assert round_ is not None
    own = view["you"]["dice"]
    palifico = bool(round_["palifico"])
    unseen: int = round_["total_dice"] - len(own)

    def expected(face: int) -> float:
        share = 1 / 6 if palifico or face == ACE else 1 / 3
        return count_matching(own, face, aces_wild=not palifico) + unseen * share

    legal = view["you"]["legal"]
    standing = round_["bid"]
    if legal["dudo"] and standing["quantity"] > expected(standing["face"]):
        return Dudo()
    raises = [
        Bid(least, face)
        for face, least in enumerate(legal["min_quantity"], start=1)
        if least is not None
    ]
    if not raises:
        return Dudo()
    return max(raises, key=lambda bid: (expected(bid.face) - bid.quantity, bid.face))


EXPERT_TIMES: list[int] = []  # CPU ns of each expert decision in this process


def act(policy: Policy, view: GameView, rng: random.Random) -> Action:
    if policy == "baseline":
        return baseline_action(view)
    if policy != "expert":
        return choose_action(view, policy, rng)
    started = time.thread_time_ns()
    action = choose_action(view, policy, rng)
    EXPERT_TIMES.append(time.thread_time_ns() - started)
    return action


def play_game(policies: dict[int, Policy], seed: int, settings: GameSettings) -> int:
    """Play one game to the end; return the winning seat."""
    game = Game(sorted(policies), random.Random(seed), settings)
    bots = random.Random(seed ^ 0x5EED)
    order = sorted(policies)
    while game.round is not None:
        seat = game.round.turn
        events = game.apply(seat, act(policies[seat], player_view(game, seat), bots))
        if not isinstance(events[0], BidMade):
            continue
        start = order.index(seat)
        for other in order[start:] + order[:start]:
            policy = policies[other]
            if policy == "baseline" or not game.options(other).calza:
                continue
            if maybe_calza(player_view(game, other), policy, bots):
                game.apply(other, Calza())
                break
    assert game.winner is not None
    return game.winner


@dataclass(frozen=True, slots=True)
class Matchup:
    """A table line-up; game `i` seats the `i`-th arrangement (cycling through all of them)."""

    name: str
    arrangements: tuple[tuple[Policy, ...], ...]

    @classmethod
    def rotating(cls, name: str, line_up: Sequence[Policy]) -> Matchup:
        distinct = sorted(set(itertools.permutations(line_up)))
        return cls(name, tuple(distinct))

    def seats(self, index: int) -> dict[int, Policy]:
        return dict(enumerate(self.arrangements[index % len(self.arrangements)]))


MATCHUPS = (
    Matchup.rotating("hard vs baseline, heads-up", ["hard", "baseline"]),
    Matchup.rotating(
        "1 hard vs 5 baseline", ["hard", "baseline", "baseline", "baseline", "baseline", "baseline"]
    ),
    Matchup.rotating(
        "2 hard, 2 normal, 2 easy", ["hard", "hard", "normal", "normal", "easy", "easy"]
    ),
    Matchup.rotating("normal vs baseline, heads-up", ["normal", "baseline"]),
    Matchup.rotating("easy vs baseline, heads-up", ["easy", "baseline"]),
    Matchup.rotating("hard vs normal, heads-up", ["hard", "normal"]),
    Matchup.rotating("expert vs hard, heads-up", ["expert", "hard"]),
    Matchup.rotating("1 expert vs 5 hard", ["expert", "hard", "hard", "hard", "hard", "hard"]),
)
SETTINGS = GameSettings()
use_tables(headsup_tables)  # at import: every worker process has them too


def run_one(task: tuple[int, int, int]) -> tuple[Policy, list[int]]:
    """One game of matchup `task[0]`: the policy of the winning seat, and the expert's CPU
    time of each of its decisions in that game."""
    matchup_index, index, seed = task
    seats = MATCHUPS[matchup_index].seats(index)
    EXPERT_TIMES.clear()
    return seats[play_game(seats, seed, SETTINGS)], list(EXPERT_TIMES)


def percentile(values: Sequence[int], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else math.nan


def tables_memory() -> int:
    """Bytes the expert's tables take once loaded (traced allocations of the load)."""
    loaded_tables.cache_clear()
    tracemalloc.start()
    loaded_tables()
    size = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return size


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a win rate."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    centre = rate + z * z / (2 * games)
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return (centre - spread) / scale, (centre + spread) / scale


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per matchup")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument(
        "--matchups", type=int, nargs="*", help="indexes into the matchup list (default: all)"
    )
    args = parser.parse_args(argv)
    chosen = args.matchups if args.matchups else list(range(len(MATCHUPS)))
    print("command:", shlex.join(sys.orig_argv))
    with multiprocessing.Pool(args.workers) as pool:
        for matchup_index in chosen:
            matchup = MATCHUPS[matchup_index]
            started = time.perf_counter()
            tasks = [
                (matchup_index, i, args.seed * 1_000_003 + matchup_index * 100_003 + i)
                for i in range(args.games)
            ]
            winners: Counter[Policy] = Counter()
            times: list[int] = []
            for winner, spent in pool.imap_unordered(run_one, tasks, chunksize=20):
                winners[winner] += 1
                times += spent
            elapsed = time.perf_counter() - started
            line_up = Counter(matchup.arrangements[0])
            print(f"\n{matchup.name}: {args.games} games in {elapsed:.1f} s")
            for policy in ("expert", "hard", "normal", "easy", "baseline"):
                if policy not in line_up:
                    continue
                wins = winners[policy]
                low, high = wilson(wins, args.games)
                fair = line_up[policy] / sum(line_up.values())
                print(
                    f"  {policy:<8} x{line_up[policy]}  wins {wins / args.games:6.1%}"
                    f"  95% CI [{low:6.1%}, {high:6.1%}]  fair share {fair:.1%}"
                )
            if times:
                print(
                    f"  expert decisions: {len(times)}, CPU p50 {percentile(times, 0.5) / 1e6:.2f}"
                    f" ms, p99 {percentile(times, 0.99) / 1e6:.2f} ms,"
                    f" max {max(times) / 1e6:.2f} ms"
                )
    print(f"\nexpert tables: {tables_memory() / 2**20:.1f} MiB once loaded")


if __name__ == "__main__":
    main()
