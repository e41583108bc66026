"""report.md, summary.json and plots for one run, and side-by-side comparisons of several runs.

`write_run_report` is what the batch runner calls at the end of a run; `write_report` backs
`jarvis report RUN_DIR [RUN_DIR ...] --out DIR`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from evaluator import plots
from evaluator.episode_table import render_episode_table, render_failures
from evaluator.family_reports import append_family_sections
from evaluator.run_dir import RecordsChoice, RunData, read_run_dir
from evaluator.stats import MeanCI
from evaluator.summary import ASSEMBLY_FAMILY, SUB_SCORES, RunSummary, summarise
from jarvis_sim.provenance import differences

SUMMARY_FILE = "summary.json"
FAILED_ACTIONS_PLOT = "failed_actions.png"
REPORT_FILE = "report.md"
COMPARISON_FILE = "comparison.json"


def _ci(c: MeanCI | None, digits: int = 1) -> str:
    return c.fmt(digits) if c else "–"


def _num(v: float | None, digits: int = 1, signed: bool = False) -> str:
    if v is None:
        return "–"
    return f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _outcomes(s: RunSummary) -> str:
    """How the episodes ended, saying how each kind counts (failed ones score 0; cancelled ones and infrastructure
    failures, which a wall-clock safety net ended, are left out)."""
    done = s.n_episodes - s.n_failed - s.n_cancelled
    infra = s.n_infrastructure_failures
    text = f"{done} finished, {s.n_failed - infra} failed and counted as 0, {s.n_cancelled} cancelled and left out"
    if infra:
        text += f", {infra} infrastructure failures (a wall-clock safety net tripped) left out"
    return text


def render_run(summary: RunSummary, plot_files: Sequence[str] = (), run_link: str = "") -> str:
    """The markdown report of one run (`run_link`: its run directory as seen from the report, '' inside it)."""
    s = summary
    lines = [f"# Run `{s.run}`", ""]
    if s.labels:
        lines.append(", ".join(f"{k}: **{v}**" for k, v in s.labels.items()))
        lines.append("")
    lines.append(
        f"{s.n_episodes} episodes ({_outcomes(s)}) from "
        f"`{s.records_file}`; families: {', '.join(s.families) or '–'}; scoring config version "
        f"{s.scoring_config_version if s.scoring_config_version is not None else 'mixed or none'}."
    )
    lines.append("Means with 95% bootstrap confidence intervals in brackets; scores 0-100.")
    lines.append("")
    mixed = s.environment_differences()
    if mixed:
        lines += ["## Warning: episodes ran under different versions", "",
                  "Scores below pool episodes whose software or simulator settings differ:", ""]
        lines += [*_table(["What", *[f"env {k + 1}" for k in range(len(s.environments))]],
                          [[k, *v] for k, v in mixed.items()]), ""]
    if s.by_difficulty:
        lines += ["## Assembly by difficulty", ""]
        header = ["Difficulty", "n", "Soft score", *[k.replace("_", " ") for k in SUB_SCORES], "Failed actions/task"]
        rows = [
            [name.capitalize(), str(d.n), _ci(d.soft_score), *[_ci(d.sub_scores.get(k)) for k in SUB_SCORES],
             _ci(d.failed_actions_per_task, 2)]
            for name, d in s.by_difficulty.items()
        ]
        lines += [*_table(header, rows), ""]
    if ASSEMBLY_FAMILY in s.families:
        lines += _floor_section(s)
    if s.horizon_complexity is not None:
        t = s.horizon_complexity
        lines += ["## Soft score by horizon (rows) and initial complexity (columns)", ""]
        rows = [
            [h, *[f"{c.soft_score.mean:.1f} (n={c.n})" if c.soft_score else "–" for c in row]]
            for h, row in zip(t.horizon_bins, t.cells, strict=True)
        ]
        lines += _table(["Horizon \\ complexity", *t.complexity_bins], rows)
        if t.n_without_task_info:
            lines.append(f"\n{t.n_without_task_info} episode(s) without task size information are not in this table.")
        lines.append("")
    if s.failed_action_kinds:
        n = s.n_assembly_episodes()
        lines += ["## Failed actions by kind", "", "Skill calls that returned a typed error, over all assembly episodes.", ""]
        rows = [[f"`{kind}`", str(c), f"{c / n:.2f}" if n else "–"] for kind, c in s.failed_action_kinds.items()]
        lines += [*_table(["Error kind", "Calls", "Per episode"], rows), ""]
    if s.reflection:
        lines += ["## Reflection rounds", "", "Change is the mean paired change from the previous round.", ""]
        rows = [
            [r.round, str(r.n), _ci(r.soft_score), _num(r.delta, signed=True), _ci(r.soft_score_no_time_penalty),
             _num(r.delta_no_time_penalty, signed=True)]
            for r in s.reflection
        ]
        lines += [*_table(["Round", "n", "Soft score", "Change", "No time penalty", "Change"], rows), ""]
    # Assembly groups repeat the difficulty table unless the run mixes several assembly suites.
    lego_groups = [k for k, g in s.groups.items() if g.family == ASSEMBLY_FAMILY]
    for key, g in s.groups.items():
        if g.family == ASSEMBLY_FAMILY and len(lego_groups) == 1:
            continue
        lines += [f"## Group `{key}` ({g.n} episodes)", ""]
        keys = list(g.scores)
        if g.by_difficulty:
            header = ["Score", "All", *g.by_difficulty]
            rows = [[k, _ci(g.scores.get(k)), *[_ci(v.get(k)) for v in g.by_difficulty.values()]] for k in keys]
        else:
            header, rows = ["Score", "All"], [[k, _ci(g.scores.get(k))] for k in keys]
        lines += [*_table(header, rows), ""]
    lines += [*render_failures(s.episodes), *render_episode_table(s.episodes, run_link)]
    if s.skipped_lines:
        lines += ["## Skipped lines", "", *[f"- {p}" for p in s.skipped_lines], ""]
    if plot_files:
        lines += ["## Plots", "", *[f"![{Path(p).stem}]({p})" for p in plot_files], ""]
    return "\n".join(lines)


FLOOR_COLUMNS = ("strict_soft_score", "pose", "completion", "validity", "strict_validity", "stability")


def _floor_section(s: RunSummary) -> list[str]:
    """This run beside the reference floors, under both scoring profiles."""
    lines = ["## Floors: this run beside agents that build nothing", "",
             "`null` does nothing; `shuffle` picks each loose brick and puts it down again. Soft score is the "
             "paper's profile; the strict profile counts a brick as valid only with pose credit "
             "(`evaluator/config.py: strict_profile`).", ""]
    header = ["Agent", "n", "Soft score", *[k.replace("_", " ").capitalize() for k in FLOOR_COLUMNS]]
    rows = [[f"this run ({s.labels.get('agent', s.run)})", str(s.n_episodes), _ci(s.soft_score),
             *[_ci(s.sub_scores.get(k)) for k in FLOOR_COLUMNS]]]
    rows += [[name, str(f.n_episodes), _ci(f.soft_score), *[_ci(f.sub_scores.get(k)) for k in FLOOR_COLUMNS]]
             for name, f in s.floors.items()]
    lines += _table(header, rows)
    if s.floors_note:
        lines += ["", s.floors_note]
    return [*lines, ""]


class ComparisonRow(BaseModel):
    """One run in a comparison: its labels and headline numbers."""

    model_config = ConfigDict(extra="forbid")

    run: str
    labels: dict[str, str]
    n_episodes: int
    soft_score: MeanCI | None
    by_difficulty: dict[str, MeanCI | None] = Field(default_factory=dict)
    completion: MeanCI | None = None
    groups: dict[str, MeanCI | None] = Field(default_factory=dict, description="soft_score per group.")


class Comparison(BaseModel):
    """Several runs side by side (the paper's Table 2: models x tool libraries)."""

    model_config = ConfigDict(extra="forbid")

    rows: list[ComparisonRow]
    models: list[str]
    tool_libraries: list[str]
    overall: dict[str, dict[str, MeanCI | None]] = Field(
        default_factory=dict, description="model -> tool library -> overall soft score."
    )
    version_differences: dict[str, list[str]] = Field(
        default_factory=dict, description="Provenance key -> each run's value(s), where the runs differ."
    )
    unrecorded_runs: list[str] = Field(default_factory=list, description="Runs with episodes lacking provenance.")


def compare(summaries: Sequence[RunSummary]) -> Comparison:
    """Side-by-side table of several runs."""
    rows = [
        ComparisonRow(
            run=s.run,
            labels=s.labels,
            n_episodes=s.n_episodes,
            soft_score=s.soft_score,
            by_difficulty={d: v.soft_score for d, v in s.by_difficulty.items()},
            completion=s.sub_scores.get("completion"),
            groups={k: g.scores.get("soft_score") for k, g in s.groups.items()},
        )
        for s in summaries
    ]
    models = list(dict.fromkeys(r.labels.get("model", r.run) for r in rows))
    tools = list(dict.fromkeys(r.labels.get("tool_library", "–") for r in rows))
    overall: dict[str, dict[str, MeanCI | None]] = {m: {} for m in models}
    for r in rows:
        overall[r.labels.get("model", r.run)][r.labels.get("tool_library", "–")] = r.soft_score
    return Comparison(rows=rows, models=models, tool_libraries=tools, overall=overall,
                      version_differences=_version_differences(summaries),
                      unrecorded_runs=[s.run for s in summaries if s.n_unrecorded_environment])


def _version_differences(summaries: Sequence[RunSummary]) -> dict[str, list[str]]:
    """Where runs ran under different versions: each run's value, or its values joined when it mixes several."""
    per_run = [s.environments for s in summaries]
    keys = differences([f for envs in per_run for f in envs])
    return {k: ["; ".join(dict.fromkeys(f.get(k, "–") for f in envs)) or "not recorded" for envs in per_run]
            for k in keys}


def render_comparison(c: Comparison, plot_files: Sequence[str] = (), links: Sequence[str] = ()) -> str:
    """The markdown of a comparison."""
    lines = ["# Comparison of runs", "", "Means with 95% bootstrap confidence intervals; scores 0-100.", ""]
    if len(c.tool_libraries) > 1 or len(c.models) > 1:
        lines += ["## Overall soft score: model x tool library", ""]
        rows = [[m, *[_ci(c.overall[m].get(t)) for t in c.tool_libraries]] for m in c.models]
        lines += [*_table(["Model", *c.tool_libraries], rows), ""]
    diffs = [d for d in ("easy", "medium", "hard", "overall") if any(d in r.by_difficulty for r in c.rows)]
    groups = list(dict.fromkeys(k for r in c.rows for k in r.groups))
    lines += ["## Runs", ""]
    header = ["Run", "Agent", "Model", "Tools", "Mode", "n", *[d.capitalize() for d in diffs]]
    if diffs:
        header.append("Completion")
    header += groups if len(groups) > 1 or not diffs else []
    rows = []
    for r in c.rows:
        row = [r.run, r.labels.get("agent", "–"), r.labels.get("model", "–"), r.labels.get("tool_library", "–"),
               r.labels.get("mode", "–"),
               str(r.n_episodes), *[_ci(r.by_difficulty.get(d)) for d in diffs]]
        if diffs:
            row.append(_ci(r.completion))
        row += [_ci(r.groups.get(g)) for g in groups] if len(groups) > 1 or not diffs else []
        rows.append(row)
    lines += [*_table(header, rows), ""]
    if c.version_differences:
        lines += ["## Warning: runs compared across different versions", "",
                  "These runs' scores come from different software or simulator settings; differences between them "
                  "may be the versions', not the agents':", ""]
        lines += [*_table(["What", *[r.run for r in c.rows]], [[k, *v] for k, v in c.version_differences.items()]),
                  ""]
    if c.unrecorded_runs:
        lines += [f"Versions not recorded (episodes from before schema 2) in: {', '.join(c.unrecorded_runs)}.", ""]
    if links:
        lines += ["## Per-run reports", "", *[f"- [{Path(p).parent.name}]({p})" for p in links], ""]
    if plot_files:
        lines += ["## Plots", "", *[f"![{Path(p).stem}]({p})" for p in plot_files], ""]
    return "\n".join(lines)


def write_summary_outputs(summary: RunSummary, out_dir: Path, with_plots: bool = True,
                          run_link: str = "") -> list[Path]:
    """Write summary.json, plots and report.md for one run into out_dir; returns the files written.

    `run_link`: the run directory relative to out_dir ('' when they are one), for links to episode pictures.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / SUMMARY_FILE]
    (out_dir / SUMMARY_FILE).write_text(summary.model_dump_json(indent=2) + "\n", encoding="utf-8")
    made: list[Path] = []
    if with_plots:
        for fn, name in ((plots.plot_difficulty, "difficulty.png"), (plots.plot_heatmap, "horizon_complexity.png"),
                         (plots.plot_rounds, "reflection_rounds.png"),
                         (plots.plot_score_distribution, "score_distribution.png")):
            p = fn(summary, out_dir / name)
            if p is not None:
                made.append(p)
        p = plots.plot_failed_actions([summary], [summary.run], out_dir / FAILED_ACTIONS_PLOT)
        if p is not None:
            made.append(p)
    (out_dir / REPORT_FILE).write_text(render_run(summary, [p.name for p in made], run_link) + "\n",
                                       encoding="utf-8")
    return [*written, *made, out_dir / REPORT_FILE]


FloorsHook = Callable[[RunData, RunSummary], None]  # fills summary.floors (the runner knows where floors live)


def write_run_report(
    run_dir: Path,
    out_dir: Path | None = None,
    strict: bool = True,
    records: RecordsChoice = "auto",
    with_plots: bool = True,
    add_floors: FloorsHook | None = None,
) -> RunSummary:
    """Read a run directory, summarise it and write summary.json, report.md and plots (default: into it)."""
    data = read_run_dir(run_dir, strict=strict, records=records)
    summary = summarise(data)
    if add_floors is not None:
        add_floors(data, summary)
    target = Path(out_dir) if out_dir else Path(run_dir)
    link = os.path.relpath(Path(run_dir).resolve(), target.resolve()) if out_dir else "."
    write_summary_outputs(summary, target, with_plots, "" if link == "." else f"{link}/")
    append_family_sections(data.records, target / REPORT_FILE)  # the tables the families' papers publish
    return summary


def write_report(
    run_dirs: Sequence[Path], out: Path, strict: bool = True, records: RecordsChoice = "auto", with_plots: bool = True,
    add_floors: FloorsHook | None = None,
) -> list[RunSummary]:
    """Reports for one or several runs into `out`; several runs also get a side-by-side comparison.

    One run: out/summary.json, out/report.md, plots. Several: one such folder per run under out/, and
    out/report.md, out/comparison.json and out/comparison.png comparing them.
    """
    out = Path(out)
    if len(run_dirs) == 1:
        return [write_run_report(run_dirs[0], out, strict, records, with_plots, add_floors)]
    summaries: list[RunSummary] = []
    links: list[str] = []
    used: set[str] = set()
    for k, rd in enumerate(run_dirs):
        data = read_run_dir(rd, strict=strict, records=records)
        summary = summarise(data)
        if add_floors is not None:
            add_floors(data, summary)
        name = summary.run if summary.run not in used else f"{summary.run}-{k}"
        used.add(name)
        link = os.path.relpath(Path(rd).resolve(), (out / name).resolve())
        write_summary_outputs(summary, out / name, with_plots, f"{link}/")
        append_family_sections(data.records, out / name / REPORT_FILE)
        summaries.append(summary)
        links.append(f"{name}/{REPORT_FILE}")
    comparison = compare(summaries)
    out.mkdir(parents=True, exist_ok=True)
    (out / COMPARISON_FILE).write_text(comparison.model_dump_json(indent=2) + "\n", encoding="utf-8")
    made: list[str] = []
    if with_plots:
        labels = [" / ".join(v for v in (s.labels.get("model"), s.labels.get("tool_library")) if v) or s.run
                  for s in summaries]
        for fn, name in ((plots.plot_comparison, "comparison.png"),
                         (plots.plot_failed_actions, "comparison_failed_actions.png"),
                         (plots.plot_rounds_comparison, "comparison_rounds.png")):
            p = fn(summaries, labels, out / name)
            if p is not None:
                made.append(p.name)
    (out / REPORT_FILE).write_text(render_comparison(comparison, made, links) + "\n", encoding="utf-8")
    return summaries
