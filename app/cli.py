"""The `perudo` command line: `perudo serve [--host H] [--port P]`."""

from __future__ import annotations

import argparse

import uvicorn

WS_MAX_SIZE = 4096  # PROTOCOL.md: larger text frames are closed with 1009
WS_MAX_QUEUE = 4


def serve(host: str, port: int) -> None:
    """One uvicorn worker: uvloop, httptools, sans-I/O websockets, no compression."""
    uvicorn.run(
        "app.main:create_app",
        factory=True,
        host=host,
        port=port,
        workers=1,
        loop="uvloop",
        http="httptools",
        ws="websockets-sansio",
        ws_max_size=WS_MAX_SIZE,
        ws_max_queue=WS_MAX_QUEUE,
        ws_per_message_deflate=False,
    )


def main(argv: list[str] | None = None) -> None:
    """Entry point of the `perudo` console script."""
    parser = argparse.ArgumentParser(prog="perudo", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve", help="run the game server")
    serve_parser.add_argument("--host", default="127.0.0.1")
    serve_parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    serve(args.host, args.port)


if __name__ == "__main__":
    main()
