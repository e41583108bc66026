"""Benchmark: peak RSS of a server's worker process for a program of 380 `find_bricks(color=<1 MB string>)` calls
against a plain program, the red team's load (issue 30) on a queued episode.

A real server application with one worker process (agent.server.workers.WorkerPool) runs three episodes of the
first jarvis-mini task one after another with the llm agent answering from a recording (`replay:`): a plain
program twice (the first one warms the worker: its simulator, renderer and sandbox start), then the hostile
one. Each line of JSON gives the worker's peak RSS (VmHWM of /proc/<pid>/status) after that episode, the
record and the response sizes; the last gives the ratio hostile / plain (issue 30's acceptance: within 1.5x).
tests/agent/server/test_byte_budget.py measures the same program in the API process (interactive).

    MUJOCO_GL=osmesa PYOPENGL_PLATFORM=osmesa PYTHONPATH=$PWD python tests/bench/bench_budget_rss.py
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import emit, machine

REPO = Path(__file__).resolve().parents[2]
CALLS, ARG_CHARS = 380, 1_000_000  # under the default 400-call budget, 1 MB arguments
HOSTILE = f"""
big = "r" * {ARG_CHARS}
refused = 0
for i in range({CALLS}):
    try:
        find_bricks(color=big)
    except SkillError as e:
        refused += 1
print(refused)
"""
PLAIN = "bricks = observe()\nprint(len(bricks))\n"


def vm_kib(pid: int, field: str) -> int:
    """A VmXXX figure (kB) of a live process."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(f"{field} not in /proc/{pid}/status")


def recording(tmp: Path, name: str, program: str) -> str:
    """A one-answer replay file whose answer is `program` in a python block; returns its model string."""
    path = tmp / f"{name}.jsonl"
    path.write_text(json.dumps({"text": f"```python\n{program}```\n"}) + "\n", encoding="utf-8")
    return f"replay:{path}"


def run_one(client: Any, task_id: str, model: str, timeout_s: float) -> tuple[dict[str, Any], int]:
    """Submit one queued episode and wait until it is finished; its final body and that response's size."""
    r = client.post("/v1/episodes", json={"task_id": task_id, "agent": {"name": "llm", "model": model}})
    assert r.status_code == 202, r.text
    eid = r.json()["id"]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        got = client.get(f"/v1/episodes/{eid}")
        if got.json()["status"] in ("done", "failed", "cancelled"):
            return dict(got.json()), len(got.content)
        time.sleep(0.2)
    raise TimeoutError(f"episode {eid} not finished within {timeout_s} s")


def main() -> None:
    """Run the three episodes and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--timeout-s", type=float, default=900.0, help="longest wait for one episode")
    args = ap.parse_args()
    sys.path.insert(0, str(REPO))
    from fastapi.testclient import TestClient

    from agent.server.app import create_app
    from agent.server.settings import ServerSettings
    from jarvis_sim.tasks.registry import suite_task_ids

    task_id = suite_task_ids("jarvis-mini")[0]
    tmp = Path(tempfile.mkdtemp(prefix="jarvis-bench-rss-"))
    settings = ServerSettings.model_validate(
        {"data_dir": tmp / "data", "workers": 1, "inline_agents": (), "trust_agent_options": True}
    )  # replay: files are server files
    plain, hostile = recording(tmp, "plain", PLAIN), recording(tmp, "hostile", HOSTILE)
    peaks: dict[str, int] = {}
    with TestClient(create_app(settings)) as client:
        pool = client.app.state.pool  # type: ignore[attr-defined]
        for label, model in (("plain_warm_up", plain), ("plain", plain), ("hostile", hostile)):
            body, size = run_one(client, task_id, model, args.timeout_s)
            (proc,) = pool.procs.values()
            record = client.get(body["links"]["record"])
            rounds = record.json()["rounds"] if record.status_code == 200 else []
            program = (
                {
                    "outcome": rounds[0]["outcome"],
                    "stdout": rounds[0]["stdout"][:40],
                    "skill_calls_kept": len(rounds[0]["skill_calls"]),
                }
                if rounds
                else {}
            )
            peaks[label] = vm_kib(int(proc.pid), "VmHWM")
            emit(
                f"worker_peak_rss_{label}",
                peaks[label] / 1024.0,
                "MiB",
                task_id=task_id,
                status=body["status"],
                error=body.get("error"),
                record_bytes=len(record.content),
                episode_response_bytes=size,
                worker_rss_mib=round(vm_kib(int(proc.pid), "VmRSS") / 1024.0, 1),
                respawned=pool.respawned,
                **program,
            )
    emit(
        "worker_peak_rss_ratio_hostile_to_plain",
        peaks["hostile"] / peaks["plain"],
        "x",
        calls=CALLS,
        argument_chars=ARG_CHARS,
        target="<= 1.5 (issue 30)",
        cpus=os.cpu_count(),
        **machine(),
    )


if __name__ == "__main__":
    main()
