"""Run the nginx of `deploy/nginx.conf` in front of N `perudo serve` processes on 127.0.0.1.

`deploy/local-cluster --port P --instances N` (all on `PERUDO_DATABASE_URL`, a PostgreSQL
URL; other `PERUDO_*` settings are passed on). In the foreground it prints one line per
process and then `ready`; SIGTERM or Ctrl-C stops everything it started. The tests drive the
same `Cluster` to kill, restart and roll instances.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

DEPLOY = Path(__file__).resolve().parent
REPOSITORY = DEPLOY.parent
START_SECONDS = 30.0
STOP_SECONDS = 10.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def find_perudo() -> str:
    """The `perudo` command: the repository's virtualenv first, else the one on PATH."""
    for candidate in (
        REPOSITORY / ".venv" / "bin" / "perudo",
        Path(sys.executable).parent / "perudo",
    ):
        if candidate.exists():
            return str(candidate)
    found = shutil.which("perudo")
    if found is None:
        raise SystemExit("perudo is not installed: run `make install` first")
    return found


def find_nginx() -> str:
    found = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )
    if found is None:
        raise SystemExit("nginx is not installed: `apt-get install nginx` (it runs unprivileged)")
    return found


def wait_until_healthy(url: str, process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + START_SECONDS
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not answer /healthz in {START_SECONDS:.0f} s")
        time.sleep(0.1)


@dataclass
class Instance:
    number: int
    port: int
    log: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def name(self) -> str:
        """What this instance sends as `X-Perudo-Instance`."""
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class Cluster:
    """nginx on `port` in front of `instances` perudo processes, in a temporary prefix."""

    port: int
    instances: int
    env: dict[str, str] = field(default_factory=dict)
    home: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="perudo-cluster-")))
    members: list[Instance] = field(default_factory=list)
    nginx: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        if not self.env.get("PERUDO_DATABASE_URL", os.environ.get("PERUDO_DATABASE_URL")):
            raise SystemExit("set PERUDO_DATABASE_URL to a PostgreSQL database")
        self.members = [
            Instance(k, free_port(), self.home / f"instance-{k}.log")
            for k in range(1, self.instances + 1)
        ]
        for member in self.members:  # together: they migrate an empty database at once
            self.launch(member)
        for member in self.members:
            assert member.process is not None
            wait_until_healthy(member.url, member.process, f"instance {member.number}")
        self.start_nginx()

    def launch(self, member: Instance) -> None:
        environment = os.environ | self.env | {"PERUDO_INSTANCE": member.name}
        with member.log.open("ab") as out:
            member.process = subprocess.Popen(
                [find_perudo(), "serve", "--host", "127.0.0.1", "--port", str(member.port)],
                cwd=self.home,
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def restart(self, member: Instance) -> None:
        """Start a stopped instance again on its port (nginx sends its rooms back to it)."""
        self.launch(member)
        assert member.process is not None
        wait_until_healthy(member.url, member.process, f"instance {member.number}")

    def kill(self, member: Instance, sig: signal.Signals = signal.SIGKILL) -> None:
        """Stop one instance (SIGKILL: a crash; SIGTERM: a clean stop) and wait for it."""
        assert member.process is not None
        member.process.send_signal(sig)
        member.process.wait(timeout=STOP_SECONDS + 5)

    def start_nginx(self) -> None:
        (self.home / "tmp").mkdir(exist_ok=True)
        shutil.copy(DEPLOY / "nginx.conf", self.home / "nginx.conf")
        (self.home / "upstreams.conf").write_text(
            "".join(
                f"server 127.0.0.1:{m.port} max_fails=1 fail_timeout=2s;\n" for m in self.members
            )
        )
        (self.home / "listen.conf").write_text(f"listen 127.0.0.1:{self.port};\n")
        with (self.home / "nginx.log").open("ab") as log:
            self.nginx = subprocess.Popen(
                [find_nginx(), "-p", str(self.home), "-c", str(self.home / "nginx.conf"),
                 "-g", "daemon off;", "-e", "stderr"],
                stdout=subprocess.DEVNULL,
                stderr=log,
            )  # fmt: skip
        wait_until_healthy(f"http://127.0.0.1:{self.port}", self.nginx, "nginx")

    def stop(self) -> None:
        """Stop everything this cluster started: nginx first, then the instances (cleanly)."""
        processes = [self.nginx, *(m.process for m in self.members)]
        for process in processes:
            if process is not None and process.poll() is None:
                process.terminate()
        for process in processes:
            if process is None:
                continue
            try:
                process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def describe(self) -> list[str]:
        lines = [
            f"instance {m.number} pid {m.process.pid if m.process else '-'} port {m.port} "
            f"name {m.name}"
            for m in self.members
        ]
        lines.append(f"nginx pid {self.nginx.pid if self.nginx else '-'} port {self.port}")
        return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="local-cluster", description=__doc__)
    parser.add_argument("--port", type=int, required=True, help="where nginx listens")
    parser.add_argument("--instances", type=int, default=2)
    args = parser.parse_args(argv)
    find_nginx()
    cluster = Cluster(args.port, args.instances)
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        cluster.start()
        for line in cluster.describe():
            print(line, flush=True)
        print("ready", flush=True)
        while not stopping:
            time.sleep(0.2)
    finally:
        cluster.stop()
        shutil.rmtree(cluster.home, ignore_errors=True)


if __name__ == "__main__":
    main()
