"""Baseline: how fast the engine alone plays random full six-player games.

.venv/bin/python bench/engine.py --games 1000
"""

from __future__ import annotations

import argparse
import random
import time

from app.engine import Bid, Dudo, Game
from app.engine.game import Action


def random_action(game: Game, seat: int, rng: random.Random) -> Action:
    """A legal move for the seat to act: a small raise on a random open face, or dudo."""
    options = game.options(seat)
    if options.dudo and rng.random() < 0.25:
        return Dudo()
    open_faces = [(f, q) for f, q in enumerate(options.min_quantity, 1) if q is not None]
    if not open_faces:
        return Dudo()
    face, least = rng.choice(open_faces)
    return Bid(min(least + rng.randint(0, 1), game.total_dice()), face)


def play(games: int, seed: int) -> tuple[int, int]:
    """Play `games` six-player games; return (rounds, actions) played."""
    rng = random.Random(seed)
    rounds = actions = 0
    for _ in range(games):
        game = Game(range(6), random.Random(rng.random()))
        while game.round is not None:
            seat = game.round.turn
            game.apply(seat, random_action(game, seat, rng))
            actions += 1
        rounds += len(game.rounds)
    return rounds, actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    rounds, actions = play(args.games, args.seed)
    elapsed = time.perf_counter() - start
    print(
        f"{args.games} six-player games, {rounds} rounds, {actions} actions "
        f"in {elapsed:.2f} s: {args.games / elapsed:.0f} games/s, "
        f"{elapsed / actions * 1e6:.1f} us/action"
    )


if __name__ == "__main__":
    main()
