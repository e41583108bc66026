"""A real `jarvis serve` killed with SIGKILL takes its worker processes with it (no orphan keeps claiming)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.agent.server.test_faults import wait_until


def _children(pid: int) -> set[int]:
    """Direct children of pid (every thread's), from /proc."""
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out.update(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _is_worker(pid: int) -> bool:
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs /proc to find the workers")
def test_workers_exit_when_the_server_is_killed(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "JARVIS_PLUGINS": "tests.fakes.quiz_family", "JARVIS_INLINE_AGENTS": ""}
    server = subprocess.Popen(
        [sys.executable, "-m", "agent.cli.main", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--workers", "2", "--data-dir", str(tmp_path / "data")],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    workers: set[int] = set()
    try:
        def up() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    return r.status == 200
            except OSError:
                return False

        wait_until(up, timeout=120, what="the server to answer /healthz")
        workers = wait_until(lambda: (w := {p for p in _children(server.pid) if _is_worker(p)}) and len(w) == 2 and w,
                             timeout=60, what="two worker processes")
        # A worker past its start-up, in its claim loop (the state in which orphans used to live on):
        body = json.dumps({"task_id": "quiz/1", "agent": {"name": "scripted"}}).encode()  # queued: no inline agents
        req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/episodes", data=body,
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            eid = json.loads(r.read())["id"]

        def done() -> bool:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/episodes/{eid}", timeout=10) as r:
                return bool(json.loads(r.read())["status"] == "done")

        wait_until(done, timeout=120, what="a worker to run an episode")
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=10)
        # Generous for a loaded machine: a worker still importing checks its parent once the imports end.
        wait_until(lambda: not any(_alive(p) for p in workers), timeout=60, what="the orphaned workers to exit")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        for pid in workers:  # only if the test failed: leave no orphan behind
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
