"""A real `jarvis serve` in a subprocess on a loopback port, for tests and benchmarks that need real sockets.

Settings travel as JARVIS_* environment variables. `nofile` lowers the server's RLIMIT_NOFILE in the child
only (never raises anything of the host's), so a test can reach the file-descriptor limit cheaply. The
server's log goes to a file whose size the caller can read.
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[3]


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LiveServer:
    """A started server: its base URL, process and log file."""

    url: str
    port: int
    proc: subprocess.Popen[bytes]
    log_path: Path

    def log_bytes(self) -> int:
        """Size of the server's log so far."""
        return self.log_path.stat().st_size if self.log_path.exists() else 0

    def rss_mb(self) -> float:
        """The server process's peak resident memory (VmHWM), in MB."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
        return 0.0


@contextmanager
def live_server(tmp_path: Path, env: dict[str, str] | None = None, nofile: int | None = None,
                startup_s: float = 120.0) -> Iterator[LiveServer]:
    """Run `jarvis serve` until the block ends."""
    port = free_port()
    log_path = tmp_path / "server.log"
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "JARVIS_DATA_DIR": str(tmp_path / "data"),
                "JARVIS_HOST": "127.0.0.1", "JARVIS_PORT": str(port), "JARVIS_WORKERS": "0", **(env or {})}

    def lower_fd_limit() -> None:
        if nofile is not None:
            _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, min(hard, nofile) if hard != -1 else nofile))

    with log_path.open("wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "agent.cli.main", "serve"], cwd=ROOT, env=full_env,
                                stdout=log, stderr=subprocess.STDOUT, preexec_fn=lower_fd_limit)
    server = LiveServer(f"http://127.0.0.1:{port}", port, proc, log_path)
    try:
        deadline = time.monotonic() + startup_s
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited ({proc.returncode}): {log_path.read_text()[-3000:]}")
            try:
                if httpx.get(f"{server.url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start in {startup_s} s: {log_path.read_text()[-3000:]}")
            time.sleep(0.2)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
