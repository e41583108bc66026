"""Benchmark: one heavy assembly episode at full speed and on a CPU slowed about 3x scores the same.

`jarvis bench slow_cpu [--task ID | --task-file FILE] [--slowdown 3] [--agent oracle]`

Scores must not depend on the machine: the budgets that decide them are simulated time, skill calls and
rounds, and wall clocks are only safety nets (agent.config.Budget). The episode runs twice in a child process
(`jarvis episode`): once as is, once duty-cycled with SIGSTOP/SIGCONT (the child and everything it spawned run
1/slowdown of each 100 ms period), which is how a machine that many times slower looks from inside. Printed:
both wall times, the slowdown achieved (wall ratio), simulated times, both records' scores and whether they are
identical, and the program safety net the episode ran under.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import emit, machine

DEFAULT_TASK = "lego/v7-00064-stairs/026"  # jarvis-v1-buildable, hard: 8 action bricks on 59, ~170 s simulated
PERIOD_S = 0.1


def _descendants(root: int) -> list[int]:
    """root and every process below it (read from /proc), so the sandbox child is slowed too."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def _signal_all(pids: list[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _duty_cycle(proc: subprocess.Popen[bytes], slowdown: float, stop: threading.Event) -> None:
    """Let the child tree run 1/slowdown of each period; stopped the rest."""
    run_s = PERIOD_S / slowdown
    pids = [proc.pid]
    rescan = 0.0
    while not stop.is_set() and proc.poll() is None:
        if time.monotonic() >= rescan:
            pids, rescan = _descendants(proc.pid), time.monotonic() + 0.5
        time.sleep(run_s)
        _signal_all(pids, signal.SIGSTOP)
        time.sleep(PERIOD_S - run_s)
        _signal_all(pids, signal.SIGCONT)
    _signal_all(_descendants(proc.pid), signal.SIGCONT)


def run_once(task_args: list[str], agent: str, out: Path, slowdown: float) -> tuple[dict, float]:
    """One `jarvis episode` in a child process; returns its record and wall seconds."""
    cmd = [sys.executable, "-m", "agent.cli.main", "episode", *task_args, "--agent", agent, "--out", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stop = threading.Event()
    cycler = None
    if slowdown > 1:
        cycler = threading.Thread(target=_duty_cycle, args=(proc, slowdown, stop), daemon=True)
        cycler.start()
    _, err = proc.communicate()
    stop.set()
    if cycler is not None:
        cycler.join()
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"jarvis episode exited {proc.returncode}: {err.decode()[-2000:]}")
    record = json.loads((out / "episodes.jsonl").read_text(encoding="utf-8").splitlines()[0])
    return record, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default=DEFAULT_TASK)
    ap.add_argument("--task-file", default=None, help="A TaskSpec file (e.g. from jarvis tasks from-ldraw) instead")
    ap.add_argument("--agent", default="oracle")
    ap.add_argument("--slowdown", type=float, default=3.0)
    args = ap.parse_args()
    task_args = ["--task-file", args.task_file] if args.task_file else ["--task", args.task]
    from agent.config import Budget
    from agent.episodes.assembly import SIM_BUDGET_FACTOR

    with tempfile.TemporaryDirectory(prefix="jarvis-slow-cpu-") as tmp:
        normal, wall_n = run_once(task_args, args.agent, Path(tmp) / "normal", 1.0)
        slowed, wall_s = run_once(task_args, args.agent, Path(tmp) / "slowed", args.slowdown)
    ctx = {"task": normal["task_id"], "agent": args.agent, **machine()}
    budget_s = normal["timings"]["budget_s"]
    emit("slow_cpu_wall_normal", wall_n, "s", sim_time_s=normal["timings"]["sim_time_s"], **ctx)
    emit("slow_cpu_wall_slowed", wall_s, "s", sim_time_s=slowed["timings"]["sim_time_s"],
         duty_cycle=f"1/{args.slowdown:g} of each {PERIOD_S:g} s", **ctx)
    emit("slow_cpu_achieved_slowdown", wall_s / wall_n, "x", requested=args.slowdown, **ctx)
    emit("slow_cpu_soft_score_normal", normal["scores"].get("soft_score"), "points", status=normal["status"], **ctx)
    emit("slow_cpu_soft_score_slowed", slowed["scores"].get("soft_score"), "points", status=slowed["status"],
         error=slowed["error"], **ctx)
    emit("slow_cpu_scores_identical", normal["scores"] == slowed["scores"], "bool",
         sim_times_identical=normal["timings"]["sim_time_s"] == slowed["timings"]["sim_time_s"],
         program_safety_net_s=Budget().program_net_s(budget_s * SIM_BUDGET_FACTOR) if budget_s else None, **ctx)


if __name__ == "__main__":
    main()
