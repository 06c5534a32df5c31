"""`perudo serve` for the proof scripts (chaos.py, leak_audit.py): a real server on a free
port of 127.0.0.1, its own SQLite file, optionally the code of a commit instead of the working
tree, and its log when it stops."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NoReturn

import httpx

HOST = "127.0.0.1"  # the only address the scripts connect to
ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT = 60.0


class Server:
    """`perudo serve` on a free port, with a SQLite file in a temporary folder."""

    def __init__(self, env: dict[str, str], commit: str | None = None, name: str = "bench") -> None:
        self.home = Path(tempfile.mkdtemp(prefix=f"perudo-{name}-"))
        code = ROOT
        if commit is not None:  # the server as committed, whatever the working tree holds
            code = self.home / "server"
            code.mkdir()
            archive = subprocess.run(
                ["git", "archive", commit, "app", "migrations", "alembic.ini", "static",
                 "templates"],
                cwd=ROOT, capture_output=True, check=True,
            ).stdout  # fmt: skip
            subprocess.run(["tar", "-x", "-C", str(code)], input=archive, check=True)
        with socket.socket() as probe:
            probe.bind((HOST, 0))
            self.port = probe.getsockname()[1]
        self.base = f"http://{HOST}:{self.port}"
        self.log = self.home / "server.log"
        environment = os.environ | {
            "PERUDO_DATABASE_URL": f"sqlite:///{self.home / 'perudo.db'}",
            "PERUDO_BOT_DELAY_MS": "0",
            "PERUDO_CALZA_WINDOW_MS": "0",
            "PERUDO_ROOMS_PER_MINUTE": "0",
            **({"PYTHONPATH": str(code)} if commit else {}),
            **env,
        }
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "app.cli",
                    "serve",
                    "--host",
                    HOST,
                    "--port",
                    str(self.port),
                ],
                cwd=code,
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"perudo serve exited:\n{self.log.read_text()[-2000:]}")
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{self.base}/healthz", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("perudo serve did not start")
            time.sleep(0.1)

    def rss_mb(self) -> float:
        """The server's resident memory now, in MB (from /proc)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self) -> str:
        """Stop the server; its log."""
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
        log = self.log.read_text()
        shutil.rmtree(self.home, ignore_errors=True)
        return log


def report_and_exit(report: dict[str, Any], json_to: str | None, width: int) -> NoReturn:
    """Print a script's report (as JSON with `--json -`, else one line a figure, and as JSON
    to the `--json` file), then exit 1 if it counted any failure."""
    if json_to == "-":
        print(json.dumps(report))
    else:
        if json_to:
            Path(json_to).write_text(json.dumps(report, indent=2))
        for key, value in report.items():
            print(f"{key:>{width}}: {value}")
    sys.exit(1 if report["failure_count"] else 0)
