"""Reports flag runs (and episodes within a run) recorded under different versions; old records still read."""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.report import write_report
from jarvis_sim.provenance import collect
from jarvis_sim.records import EpisodeRecord
from tests.evaluator.runs import standard_records, write_run


def _with(records: list[EpisodeRecord], **packages: str) -> list[EpisodeRecord]:
    here = collect()
    prov = here.model_copy(update={"packages": {**here.packages, **packages}})
    return [r.model_copy(update={"provenance": prov}) for r in records]


def test_comparison_flags_runs_on_different_versions(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", _with(standard_records(), mujoco="4.0.0"), {"model": "m1"})
    b = write_run(tmp_path / "b", _with(standard_records(), mujoco="3.3.0"), {"model": "m2"})
    summaries = write_report([a, b], tmp_path / "out", with_plots=False)
    comparison = json.loads((tmp_path / "out" / "comparison.json").read_text())
    assert comparison["version_differences"] == {"package:mujoco": ["4.0.0", "3.3.0"]}
    report = (tmp_path / "out" / "report.md").read_text()
    assert "runs compared across different versions" in report and "| package:mujoco | 4.0.0 | 3.3.0 |" in report
    assert all(len(s.environments) == 1 and s.n_unrecorded_environment == 0 for s in summaries)


def test_same_versions_raise_no_flag(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", _with(standard_records()), {"model": "m1"})
    b = write_run(tmp_path / "b", _with(standard_records()), {"model": "m2"})
    write_report([a, b], tmp_path / "out", with_plots=False)
    assert json.loads((tmp_path / "out" / "comparison.json").read_text())["version_differences"] == {}
    assert "different versions" not in (tmp_path / "out" / "report.md").read_text()


def test_one_run_mixing_versions_is_flagged(tmp_path: Path) -> None:
    records = standard_records()
    mixed = _with(records[:3], numpy="2.4.6") + _with(records[3:], numpy="2.3.0")
    write_report([write_run(tmp_path / "run", mixed)], tmp_path / "out", with_plots=False)
    report = (tmp_path / "out" / "report.md").read_text()
    assert "episodes ran under different versions" in report and "| package:numpy | 2.4.6 | 2.3.0 |" in report


def test_version_1_records_read_without_provenance_and_are_named(tmp_path: Path) -> None:
    old = []
    for r in standard_records():
        row = json.loads(r.model_dump_json())
        row.pop("provenance")
        row["schema_version"] = 1
        old.append(json.dumps(row))
    run = tmp_path / "old"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"model": "m0"}))
    (run / "episodes.jsonl").write_text("\n".join(old) + "\n")
    new = write_run(tmp_path / "new", _with(standard_records()), {"model": "m1"})
    summaries = write_report([run, new], tmp_path / "out", with_plots=False)
    assert summaries[0].n_unrecorded_environment == len(old) and summaries[0].environments == []
    assert "Versions not recorded (episodes from before schema 2) in: old" in (tmp_path / "out" / "report.md").read_text()
