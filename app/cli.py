"""The `perudo` command line: `perudo serve [--host H] [--port P]`, and `perudo recount`
(every rating again from the stored games, app/db/ratings.py)."""

from __future__ import annotations

import argparse
import os
import sys

import uvicorn

from app import garbage
from app.config import Settings
from app.db import ratings
from app.db.migrate import upgrade
from app.db.session import make_engine
from app.logs import log_config
from app.protocol import MAX_FRAME_BYTES
from app.web.transport import MAX_WAITING, HttpProtocol, SansIOProtocol

GIL_SWITCH_SECONDS = 0.001


def serve(host: str, port: int) -> None:
    """One uvicorn worker: uvloop, httptools, sans-I/O websockets, no compression. Forwarded
    headers are trusted from 127.0.0.1 only (nginx on the same machine)."""
    os.environ.setdefault("PERUDO_INSTANCE", f"{host}:{port}")
    garbage.serve_mode()
    # The database threads (journal, saved games, leases) hold the GIL for Python work too:
    # one must hand it back to the event loop within 1 ms, not Python's 5 ms.
    sys.setswitchinterval(GIL_SWITCH_SECONDS)
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=host,
        port=port,
        workers=1,
        loop="uvloop",
        http=HttpProtocol,
        ws=SansIOProtocol,
        ws_max_size=MAX_FRAME_BYTES,  # larger text frames are closed with 1009
        ws_max_queue=MAX_WAITING,
        ws_per_message_deflate=False,
        log_config=log_config(Settings().log_json),
    )


def recount() -> int:
    """Replay the stored games into the ratings; prints how many differed (0 when the
    running updates were right) and returns it."""
    settings = Settings()
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        changed = ratings.recount(engine)
    finally:
        engine.dispose()
    print(f"recounted the ratings: {changed} differed from the stored ones")
    return changed


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `perudo` console script."""
    parser = argparse.ArgumentParser(prog="perudo", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve", help="run the game server")
    serve_parser.add_argument("--host", default="127.0.0.1")
    serve_parser.add_argument("--port", type=int, default=8000)
    commands.add_parser("recount", help="rate the stored games again (PERUDO_DATABASE_URL)")
    args = parser.parse_args(argv)
    if args.command == "recount":
        recount()
    else:
        serve(args.host, args.port)


if __name__ == "__main__":
    main()
