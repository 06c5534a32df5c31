"""Heads-up endgames: solve them (the tables the expert bot plays) and measure every level.

    .venv/bin/python bench/solver.py build             # remake app/engine/tables/headsup.bin
    .venv/bin/python bench/solver.py exploit --samples 16

`build` runs CFR+ (`bench/cfr.py`) on each split in `EXACT_SPLITS`, the later ones paying off
the values of the earlier (a round of 1v2 that the two-dice player loses leads to 1v1), and
stores each player's average strategy, quantised to 1/255, at every information set its own
play can reach; it also solves the last-bid abstraction of the same splits and prints its
exploitability in the real round.

`exploit` measures each level's exploitability: the level's mixed strategy is estimated by
asking the bot `--samples` times at every information set its own play reaches (more while its
answers differ), and an exact best response is computed against it, for either seat; payoffs
are 2 * P(win the game) - 1.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import shlex
import sys
import time
from array import array
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cfr import LastBidSolver, RoundSolver

from app.engine import BOT_LEVELS, BotLevel, choose_action
from app.engine.bids import Bid, BidContext, min_quantities
from app.engine.game import Dudo
from app.engine.headsup import (
    DUDO,
    PROBABILITY_SCALE,
    PlayerTable,
    Split,
    SplitTable,
    encode_tables,
    loaded_tables,
    use_tables,
)
from app.engine.wire import GameView
from app.paths import HEADSUP_TABLES, headsup_tables

# Solved exactly: with 2v2 the perfect-recall tree has 2**24 histories, too big for the memory
# and time here (the last-bid abstraction, solved and measured beside them, loses 0.17-0.21
# per round to a best response at 1v2 and 2v1, and more than it wins against `hard`).
EXACT_SPLITS: tuple[Split, ...] = ((1, 1), (1, 2), (2, 1))


def payoffs(split: Split, value: dict[Split, float]) -> tuple[float, float]:
    """Player 0's payoff when player 0, or player 1, loses the round's die: the game's end,
    or the value of the smaller split that follows (its opener is the player who lost)."""
    first, second = split
    lose0 = -1.0 if first == 1 else value[(first - 1, second)]
    lose1 = 1.0 if second == 1 else -value[(second - 1, first)]
    return lose0, lose1


def _quantised(weights: np.ndarray, best: np.ndarray) -> np.ndarray:
    """Probabilities to k / 255, the row's most likely action kept at one step at least."""
    steps = np.round(weights * PROBABILITY_SCALE)
    return np.where((weights == best) & (weights > 0), np.maximum(steps, 1), steps)


def _player_table(
    positions: np.ndarray, hand: np.ndarray, codes: np.ndarray, steps: np.ndarray
) -> PlayerTable:
    """Entries (position, hand, action code, steps) sorted into `PlayerTable` arrays."""
    key = (positions.astype(np.int64) << 8) | hand
    order = np.lexsort((codes, key))
    key, codes, steps = key[order], codes[order], steps[order]
    unique, first = np.unique(key, return_index=True)
    return PlayerTable(
        _uint_array(unique),
        _uint_array(np.append(first, len(key))),
        codes.astype(np.uint8).tobytes(),
        steps.astype(np.uint8).tobytes(),
    )


def _uint_array(values: np.ndarray) -> array[int]:
    out = array("I")
    out.frombytes(values.astype(np.uint32).tobytes())
    return out


def tabulate_exact(solver: RoundSolver, value: float) -> tuple[SplitTable, float]:
    """Both players' quantised average strategies at the information sets their own play
    reaches, and the exploitability of that quantised profile (what the bot really plays)."""
    raise_, dudo = solver.average()
    best = dudo.copy()
    for b, part in enumerate(raise_):
        best[: 1 << b] = np.maximum(best[: 1 << b], part)
    steps = [_quantised(part, best[: 1 << b]) for b, part in enumerate(raise_)]
    dudo_steps = _quantised(dudo, best)
    played_raise, played_dudo = solver._normalise(steps, dudo_steps)
    gap, _ = solver.exploitability(played_raise, played_dudo)
    players = []
    for player in (0, 1):
        width = len(solver.hands[player])
        reach = solver.reaches(played_raise, player)
        own = (solver.mover == player)[:, None] & (reach > 0)
        parts = []
        for code, part in [*enumerate(steps), (DUDO, dudo_steps)]:
            chosen = own[: len(part)] & (part[:, :width] > 0)
            m, h = np.nonzero(chosen)
            parts.append((m, h, np.full(len(m), code), part[:, :width][chosen]))
        players.append(
            _player_table(*(np.concatenate(column) for column in zip(*parts, strict=True)))
        )
    return SplitTable(value, (players[0], players[1])), gap


Task = tuple[Split, float, float, int, float]


def solve_exact(task: Task) -> tuple[Split, float, float, float, SplitTable]:
    """Solve one split exactly: (split, value, exploitability, the quantised table's, table)."""
    split, lose0, lose1, limit, target = task
    solver = RoundSolver(split[0], split[1], lose0, lose1)
    solution = solver.solve(target, limit, check_every=25)
    table, played = tabulate_exact(solver, solution.value)
    return split, solution.value, solution.exploitability, played, table


def solve_last_bid(task: Task) -> tuple[Split, float, float]:
    """Solve one split's last-bid abstraction: (split, its value, its exploitability in the
    real round)."""
    split, lose0, lose1, iterations, window = task
    solver = LastBidSolver(split[0], split[1], lose0, lose1, window=int(window) or None)
    solver.iterate(iterations)
    policy = solver.average()
    exact = RoundSolver(split[0], split[1], lose0, lose1)
    gap, _ = exact.exploitability(*solver.expand(policy))
    return split, solver.value(policy), gap


def build(args: argparse.Namespace) -> None:
    value: dict[Split, float] = {}
    tables: dict[Split, SplitTable] = {}
    started = time.perf_counter()
    print("exact splits (CFR+, perfect recall):", flush=True)
    split, value[split], gap, played, tables[split] = solve_exact(
        ((1, 1), *payoffs((1, 1), value), 4000, args.target / 10)
    )
    report_exact(split, value[split], gap, played, tables[split])
    with multiprocessing.Pool(args.workers) as pool:
        rest = [(s, *payoffs(s, value), args.iterations, args.target) for s in EXACT_SPLITS[1:]]
        for split, value[split], gap, played, tables[split] in pool.imap_unordered(
            solve_exact, rest
        ):
            report_exact(split, value[split], gap, played, tables[split])
        print("last-bid abstraction (CFR+, imperfect recall), measured, not shipped:", flush=True)
        measured = [
            (split, *payoffs(split, value), args.abstract_iterations, args.window)
            for split in EXACT_SPLITS
        ]
        for split, abstract_value, gap in pool.imap_unordered(solve_last_bid, measured):
            print(f"  {split[0]}v{split[1]}: value {abstract_value:+.4f}, exploitability {gap:.5f}")
    data = encode_tables(tables)
    HEADSUP_TABLES.parent.mkdir(exist_ok=True)
    HEADSUP_TABLES.write_bytes(data)
    print(f"wrote {HEADSUP_TABLES} ({len(data)} bytes) in {time.perf_counter() - started:.0f} s")


def entries(table: SplitTable) -> int:
    return sum(len(player.keys) for player in table.players)


def report_exact(split: Split, value: float, gap: float, played: float, table: SplitTable) -> None:
    print(
        f"  {split[0]}v{split[1]}: value {value:+.4f}, exploitability {gap:.5f}, quantised "
        f"table's {played:.5f}, {entries(table)} information sets",
        flush=True,
    )


def bot_view(split: Split, bids: Sequence[Bid], hand: Sequence[int]) -> GameView:
    """What the seat to move sees after `bids` in a heads-up round of `split` (seat 0 opened
    it), holding `hand`."""
    total = sum(split)
    seat = len(bids) % 2
    standing = bids[-1] if bids else None
    placed = [{"quantity": b.quantity, "face": b.face, "seat": i % 2} for i, b in enumerate(bids)]
    return {
        "phase": "playing",
        "players": [
            {"seat": s, "dice": split[s], "out": False, "palifico_used": False} for s in (0, 1)
        ],
        "round": {
            "number": 1,
            "opener": 0,
            "turn": seat,
            "palifico": False,
            "palifico_seat": None,
            "total_dice": total,
            "bid": placed[-1] if placed else None,  # type: ignore[typeddict-item]
            "bids": placed,  # type: ignore[typeddict-item]
            "turn_deadline": None,
            "roll_off": None,
        },
        "last_result": None,
        "winner": None,
        "you": {
            "seat": seat,
            "dice": list(hand),
            "legal": {
                "min_quantity": min_quantities(BidContext(standing, total)),
                "dudo": standing is not None,
                "calza": False,
            },
            "odds": None,
        },
    }


def asked(level: BotLevel, view: GameView, rng: random.Random, samples: int) -> Counter[Bid | None]:
    """The level's answers to `view`, `samples` times (and as many again while they differ,
    up to 8 times `samples`): its mixed strategy, estimated; None stands for dudo."""
    answers: Counter[Bid | None] = Counter()
    asked_times = 0
    while asked_times < 8 * samples:
        for _ in range(samples):
            action = choose_action(view, level, rng)
            answers[None if isinstance(action, Dudo) else action] += 1  # type: ignore[index]
        asked_times += samples
        if len(answers) == 1:
            break
    return answers


def level_profile(
    level: BotLevel, split: Split, seat: int, samples: int, rng: random.Random
) -> tuple[list[np.ndarray], np.ndarray, int]:
    """The level's estimated strategy when it holds player `seat` of `split`, in
    `RoundSolver`'s layout, at every history its own play reaches; and how many it asked."""
    solver = RoundSolver(*split)
    rungs = {bid: b for b, bid in enumerate(solver.ladder)}
    raise_ = [np.zeros((1 << b, solver.width), np.float32) for b in range(solver.rungs)]
    dudo = np.zeros((solver.rows, solver.width), np.float32)
    hands_of = solver.hands[seat]
    queried = 0
    # depth-first over histories, carrying which of the level's hands still reach them
    stack: list[tuple[int, tuple[Bid, ...], frozenset[int]]] = [
        (0, (), frozenset(range(len(hands_of))))
    ]
    while stack:
        mask, bids, alive = stack.pop()
        top = mask.bit_length() - 1
        if len(bids) % 2 != seat:
            for b in range(top + 1, solver.rungs):
                if not (mask == 0 and solver.opening_closed[b]):
                    stack.append((mask | 1 << b, (*bids, solver.ladder[b]), alive))
            continue
        follow: dict[int, set[int]] = {}
        for hand in alive:
            answers = asked(level, bot_view(split, bids, hands_of[hand]), rng, samples)
            queried += 1
            total = sum(answers.values())
            for action, count in answers.items():
                if action is None:
                    dudo[mask, hand] = count / total
                else:
                    b = rungs[action]
                    raise_[b][mask, hand] = count / total
                    follow.setdefault(b, set()).add(hand)
        for b, reaching in follow.items():
            stack.append((mask | 1 << b, (*bids, solver.ladder[b]), frozenset(reaching)))
    return raise_, dudo, queried


def exploit(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    use_tables(headsup_tables)
    tables = loaded_tables()
    print(
        f"{'split':<6}{'level':<8}{'exploitability':>15}{'(as opener':>12}{', as 2nd)':>10}"
        f"{'asked':>9}{'seconds':>9}   equilibrium value {'':>1}"
    )
    for name in args.splits:
        split = (int(name[0]), int(name[2]))
        for level in args.levels:
            started = time.perf_counter()
            values = {known: table.value for known, table in tables.items()}
            solver = RoundSolver(split[0], split[1], *payoffs(split, values))
            gains = []
            queried = 0
            for seat in (0, 1):
                raise_, dudo, count = level_profile(level, split, seat, args.samples, rng)
                queried += count
                best = solver.best_response_value(1 - seat, raise_, dudo)
                gains.append(best)
            value = tables[split].value
            # the best responder's gain over the equilibrium's value, from either seat
            as_opener = gains[0] + value  # the level opened: the responder is player 1
            as_second = gains[1] - value
            print(
                f"{name:<6}{level:<8}{(as_opener + as_second) / 2:>15.4f}{as_opener:>12.4f}"
                f"{as_second:>10.4f}{queried:>9}{time.perf_counter() - started:>9.0f}"
                f"   {value:+.4f}",
                flush=True,
            )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    making = commands.add_parser("build", help="solve the splits and write the tables")
    making.add_argument("--target", type=float, default=0.002, help="exact splits' aim")
    making.add_argument("--iterations", type=int, default=400, help="at most, per exact split")
    making.add_argument("--abstract-iterations", type=int, default=150)
    making.add_argument("--window", type=int, default=12, help="most rungs per abstract raise")
    making.add_argument("--workers", type=int, default=2)
    measuring = commands.add_parser("exploit", help="each level's exploitability")
    measuring.add_argument(
        "--samples", type=int, default=16, help="bot queries per information set"
    )
    measuring.add_argument("--levels", nargs="*", default=list(BOT_LEVELS))
    measuring.add_argument("--splits", nargs="*", default=[f"{a}v{b}" for a, b in EXACT_SPLITS])
    measuring.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("command:", shlex.join(sys.orig_argv), flush=True)
    if args.command == "build":
        build(args)
    else:
        exploit(args)


if __name__ == "__main__":
    main()
