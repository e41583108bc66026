"""Dashboard load time: the run page, runs list and an episode page of a 50-episode run directory.

Run: `jarvis bench dashboard [--episodes 50] [--repeat 10] [--record-from RUN_DIR]`. The run is built from
one stored record copied `--episodes` times under new ids, task ids and seeds (by default a crafted,
scored assembly record with eight LLM-sized rounds; `--record-from` takes the first record of a real
run, e.g. an oracle episode). Pages are fetched through the real app (TestClient, no network). The
same-run baseline is the work every page stands on: reading episodes.jsonl and summarising it
(evaluator.run_dir + evaluator.summary), and `jarvis report` without plots.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.*

from common import emit, machine, median_ms, timed

from jarvis_sim.records import EpisodeRecord, RoundRecord, SkillCallRecord, Timings, TokenAccount


def crafted_record() -> EpisodeRecord:
    """A scored assembly record with eight rounds of prompt, program, 20 skill calls and feedback each."""
    from tests.evaluator.builders import perfect_state, shifted
    from tests.evaluator.runs import TASKS, lego_record

    task = TASKS["medium"]
    code = "\n".join(f"pick('p{k}')\nplace_at({k}, {k + 1}, 0, 0)" for k in range(10))
    rounds = [RoundRecord(index=i, kind="reflective_step", prompt_text="You are a robot arm. " * 200,
                          response="```python\n" + code + "\n```", code=code, outcome="skill_error", outcome_line=7,
                          feedback="place_at failed: the stud is occupied\n" * 5,
                          skill_calls=[SkillCallRecord(name="pick" if k % 2 == 0 else "place_at", args={"brick": f"p{k}"},
                                                       ok=k != 7, result={"brick": f"p{k}", "lifted_to_mm": 69.6},
                                                       error_kind=None if k != 7 else "placement_occupied",
                                                       error=None if k != 7 else "occupied", line=k + 1, wall_s=0.4)
                                       for k in range(20)])
              for i in range(8)]
    rec = lego_record(task, shifted(perfect_state(task), "a1", dx=0.003), 0, rounds=rounds)
    return rec.model_copy(update={"timings": Timings(wall_s=95.0, sim_time_s=60.0),
                                  "tokens": TokenAccount(input=40_000, output=6_000, cost_usd=0.21)})


def build_run(root: Path, template: EpisodeRecord, n: int) -> Path:
    """A run directory of n copies of the template record under distinct ids, task ids and seeds."""
    root.mkdir(parents=True)
    task_ids = [f"{template.task_id}#{k}" for k in range(n)]
    (root / "config.json").write_text(json.dumps({"task_ids": task_ids, "agent": template.agent}))
    lines = [template.model_copy(update={"episode_id": f"ep-{k:03d}", "task_id": task_ids[k], "seed": k})
             .model_dump_json() for k in range(n)]
    (root / "episodes.jsonl").write_text("\n".join(lines) + "\n")
    return root


def main() -> None:
    """Print one JSON object per figure."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--record-from", type=Path, default=None, help="Copy the first record of this run.")
    args = parser.parse_args()

    from fastapi.testclient import TestClient

    from agent.server.dashboard.app import create_view_app
    from evaluator.report import write_run_report
    from evaluator.run_dir import read_run_dir
    from evaluator.summary import summarise

    if args.record_from:
        first = (args.record_from / "episodes.jsonl").read_text(encoding="utf-8").splitlines()[0]
        template, source = EpisodeRecord.model_validate_json(first), str(args.record_from)
    else:
        template, source = crafted_record(), "crafted"
    with tempfile.TemporaryDirectory() as tmp:
        run = build_run(Path(tmp) / "bench-run", template, args.episodes)
        size_kb = (run / "episodes.jsonl").stat().st_size / 1024
        ctx = {"episodes": args.episodes, "record": source, "episodes_jsonl_kb": round(size_kb, 1), **machine()}

        baseline = timed(lambda: summarise(read_run_dir(run, strict=False)), args.repeat)
        report = timed(lambda: write_run_report(run, Path(tmp) / "report", strict=False, with_plots=False), 3)
        other = build_run(Path(tmp) / "bench-run-b", template, args.episodes)  # a second run, to compare with
        client = TestClient(create_view_app([run, other]))
        cold = timed(lambda: client.get(f"/runs/{run.name}").raise_for_status(), 1)
        warm = timed(lambda: client.get(f"/runs/{run.name}").raise_for_status(), args.repeat)
        runs_list = timed(lambda: client.get("/").raise_for_status(), args.repeat)
        episode = timed(lambda: client.get(f"/runs/{run.name}/episodes/ep-025").raise_for_status(), args.repeat)
        page_kb = len(client.get(f"/runs/{run.name}").content) / 1024
        progress = timed(lambda: client.get(f"/runs/{run.name}/progress").raise_for_status(), args.repeat)
        pair = [("run", run.name), ("run", other.name)]
        compare_cold = timed(lambda: client.get("/compare", params=pair).raise_for_status(), 1)
        plots_cold = timed(lambda: client.get("/compare/plots/difficulty.png", params=pair).raise_for_status(), 1)
        compare_warm = timed(lambda: client.get("/compare", params=pair).raise_for_status(), args.repeat)
        side = timed(lambda: client.get("/compare/task", params=[("task", template.task_id + "#25"), *pair])
                     .raise_for_status(), args.repeat)
        task = timed(lambda: client.get("/tasks/lego/v7-00020-stairs/001").raise_for_status(), args.repeat)

        base = median_ms(baseline)
        emit("dashboard.baseline_read_and_summarise", base, "ms", **ctx)
        emit("dashboard.baseline_jarvis_report_no_plots", median_ms(report), "ms", **ctx)
        emit("dashboard.run_page_first_request", cold[0] * 1000.0, "ms", ratio_to_baseline=round(cold[0] * 1000.0 / base, 2), **ctx)
        emit("dashboard.run_page", median_ms(warm), "ms", ratio_to_baseline=round(median_ms(warm) / base, 2),
             page_kb=round(page_kb, 1), **ctx)
        emit("dashboard.runs_list", median_ms(runs_list), "ms", ratio_to_baseline=round(median_ms(runs_list) / base, 2), **ctx)
        emit("dashboard.episode_page", median_ms(episode), "ms", ratio_to_baseline=round(median_ms(episode) / base, 2), **ctx)
        for name, samples in (("progress_json", progress), ("compare_page_first_request", compare_cold),
                              ("compare_plots_first_request", plots_cold),
                              ("compare_page", compare_warm), ("task_side_by_side", side), ("task_page", task)):
            ms = median_ms(samples)
            emit(f"dashboard.{name}", ms, "ms", ratio_to_baseline=round(ms / base, 2), **ctx)


if __name__ == "__main__":
    main()
