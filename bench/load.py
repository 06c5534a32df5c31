"""Load generator: many rooms of scripted players against a running `perudo serve`.

    .venv/bin/python bench/load.py --url http://127.0.0.1:8000 --rooms 50 --players 6

Each player acts on its turn after a think time (default 60 ms, which keeps every connection
under the protocol's 20 messages a second) with the least legal bid or, now and then, dudo.
Reports how long the server took from an action to the acting player's next `state`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect


def choose(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The least legal bid on a random open face, or dudo a third of the time it is open."""
    legal = state["you"]["legal"]
    faces = [face for face, q in enumerate(legal["min_quantity"], 1) if q is not None]
    if legal["dudo"] and (not faces or rng.random() < 0.33):
        return {"type": "dudo"}
    face = rng.choice(faces)
    return {"type": "bid", "quantity": legal["min_quantity"][face - 1], "face": face}


async def player(
    ws: ClientConnection, think: float, latencies: list[float], rng: random.Random
) -> None:
    """Play until the game is saved; record action-to-state latencies."""
    sent_at: float | None = None
    async for raw in ws:
        message = json.loads(raw)
        if message["type"] == "error":
            raise RuntimeError(message)
        if message["type"] != "state":
            continue
        if sent_at is not None:
            latencies.append(time.perf_counter() - sent_at)
            sent_at = None
        if message["phase"] == "finished":
            if message["game_id"]:
                return
            continue
        legal = message["you"]["legal"]
        if message["phase"] == "playing" and (legal["dudo"] or any(legal["min_quantity"])):
            await asyncio.sleep(think)
            sent_at = time.perf_counter()
            await ws.send(json.dumps(choose(message, rng)))


async def room(url: str, players: int, think: float, latencies: list[float], seed: int) -> None:
    async with httpx.AsyncClient(base_url=url) as http:
        response = await http.post("/api/rooms", json={"max_players": players})
        room_id = response.json()["room_id"]
    ws_url = url.replace("http", "ws", 1) + f"/ws/{room_id}"
    sockets = [await connect(ws_url, proxy=None) for _ in range(players)]
    try:
        for i, ws in enumerate(sockets):
            await ws.send(json.dumps({"type": "join", "name": f"Load {i}"}))
            assert json.loads(await ws.recv())["type"] == "welcome"
        await sockets[0].send(json.dumps({"type": "start"}))
        rng = random.Random(seed)
        await asyncio.gather(*(player(ws, think, latencies, rng) for ws in sockets))
    finally:
        for ws in sockets:
            await ws.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--think-ms", type=float, default=60.0)
    args = parser.parse_args()
    latencies: list[float] = []
    started = time.perf_counter()
    await asyncio.gather(
        *(
            room(args.url, args.players, args.think_ms / 1000, latencies, i)
            for i in range(args.rooms)
        )
    )
    elapsed = time.perf_counter() - started
    ms = sorted(1000 * x for x in latencies)
    quantiles = statistics.quantiles(ms, n=100)
    print(
        f"{args.rooms} rooms x {args.players} players: {len(ms)} actions in {elapsed:.1f} s "
        f"({len(ms) / elapsed:.0f}/s); action -> state ms: p50 {quantiles[49]:.2f}, "
        f"p95 {quantiles[94]:.2f}, p99 {quantiles[98]:.2f}, max {ms[-1]:.2f}"
    )


if __name__ == "__main__":
    asyncio.run(main())
