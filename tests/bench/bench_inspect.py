"""`jarvis bench inspect`: the same work through inspect_ai / Inspect Robots and through `jarvis run`.

Args: [--vsp-suite vsp-gen-mini] [--robots-limit 2] [--robots-steps 150]. Figures: the VSP suite answered
with the solver's answers (inspect_ai's mockllm playing them back vs `jarvis run --agent scripted`): items,
accuracy and wall time each way; jarvis-mini through `inspect-robots run` (jarvis-hold and jarvis-sweep on the
jarvis-mujoco embodiment) vs `jarvis run --agent null`: episodes, mean soft score and wall time.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from common import emit, machine

from agent.cli.run import run_command
from agent.config import AgentConfig
from agent.runs.run_store import RunConfig
from jarvis_sim.tasks.registry import family_of_suite, load_task, suite_task_ids


def bench_vsp(suite: str, tmp: Path) -> None:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ChatMessageUser, ModelOutput, ModelUsage, get_model

    from agent.integrations.inspect_questions import TASK_ID_KEY, vsp

    family = family_of_suite(suite)
    ids = family.task_ids(suite)
    answers = {tid: family.scripted_answer(load_task(tid)) for tid in ids}  # type: ignore[attr-defined, arg-type]

    def reply(messages, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        asked = [m.metadata[TASK_ID_KEY] for m in messages if isinstance(m, ChatMessageUser) and m.metadata]
        out = ModelOutput.from_content(model="mockllm", content=answers[asked[-1]])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    t0 = time.perf_counter()
    (log,) = inspect_eval(vsp(suite=suite), model=get_model("mockllm/model", custom_outputs=reply),
                          log_dir=str(tmp / "inspect"), display="none")
    wall = time.perf_counter() - t0
    assert log.results is not None
    acc = log.results.scores[0].metrics["accuracy"].value
    emit("inspect_eval_vsp_s", wall, "s", suite=suite, items=len(ids), accuracy_pct=100 * acc, **machine())

    t0 = time.perf_counter()
    summary = run_command(RunConfig(suite=suite, agent=AgentConfig(name="scripted")), tmp / "jarvis-vsp", 0, "local",
                          None, False)
    wall = time.perf_counter() - t0
    emit("jarvis_run_vsp_s", wall, "s", suite=suite, items=summary.get("n_episodes", len(ids)),
         soft_score=summary.get("soft_score", {}).get("mean"), **machine())


def bench_robots(limit: int, steps: int, tmp: Path) -> None:
    from inspect_robots.cli import main

    for policy in ("jarvis-hold", "jarvis-sweep"):
        out = tmp / policy
        t0 = time.perf_counter()
        rc = main(["run", "--task", "jarvis-mini", "-T", f"limit={limit}", "-T", f"max_steps={steps}",
                   "--policy", policy, "--embodiment", "jarvis-mujoco", "--log-dir", str(out), "--no-prompt",
                   "--no-live-log", "--seed", "0"])
        wall = time.perf_counter() - t0
        (path,) = out.glob("*.json")
        log = json.loads(path.read_text())
        emit("inspect_robots_run_jarvis_mini_s", wall, "s", policy=policy, rc=rc, episodes=limit,
             steps_per_episode=steps, mean_soft_score=log["results"]["metrics"].get("jarvis_assembly"),
             log_duration_s=log["stats"]["duration_s"], **machine())
    t0 = time.perf_counter()
    ids = suite_task_ids("jarvis-mini")[:limit]
    summary = run_command(RunConfig(task_ids=ids, agent=AgentConfig(name="null")), tmp / "jarvis-null", 0, "local",
                          None, False)
    emit("jarvis_run_null_jarvis_mini_s", time.perf_counter() - t0, "s", episodes=len(ids),
         mean_soft_score=summary.get("soft_score", {}).get("mean"), **machine())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vsp-suite", default="vsp-gen-mini")
    ap.add_argument("--robots-limit", type=int, default=2)
    ap.add_argument("--robots-steps", type=int, default=150)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        bench_vsp(args.vsp_suite, Path(d))
        bench_robots(args.robots_limit, args.robots_steps, Path(d))


if __name__ == "__main__":
    main()
