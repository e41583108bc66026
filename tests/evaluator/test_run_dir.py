"""Reading run directories: malformed ones rejected with a clear message, corrupt lines isolated."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.run_dir import RunDirError, read_run_dir
from tests.evaluator.runs import standard_records, write_run


def test_reads_a_good_run(tmp_path: Path) -> None:
    run = read_run_dir(write_run(tmp_path / "r", standard_records()))
    assert len(run.records) == 8 and run.problems == [] and run.config["model"] == "oracle"


def test_missing_directory_and_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="no such run directory"):
        read_run_dir(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunDirError, match=r"empty: not a run directory \(no config.json\)"):
        read_run_dir(tmp_path / "empty")
    (tmp_path / "empty" / "config.json").write_text("{}")
    with pytest.raises(RunDirError, match=r"no episodes.jsonl"):
        read_run_dir(tmp_path / "empty")


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json", r"config.json:1: not valid JSON"), ("[1, 2]", r"config.json: expected a JSON object, got list")],
)
def test_bad_config_json(tmp_path: Path, content: str, message: str) -> None:
    run = write_run(tmp_path / "r", standard_records())
    (run / "config.json").write_text(content)
    with pytest.raises(RunDirError, match=message):
        read_run_dir(run)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"episode_id": "x", "task_id"', r"episodes.jsonl:10: not valid JSON"),
        ('{"episode_id": "x", "task_id": "t", "family": "lego", "bogus": 1}', r"episodes.jsonl:10: .*bogus"),
        ('{"episode_id": "x", "family": "lego"}', r"episodes.jsonl:10: not a valid EpisodeRecord: task_id"),
        ("[1]", r"episodes.jsonl:10: expected a JSON object"),
    ],
)
def test_corrupt_line_named_or_skipped(tmp_path: Path, line: str, message: str) -> None:
    records = standard_records()
    run = write_run(tmp_path / "r", records, extra_lines=["", line])  # line 9 blank, line 10 corrupt
    with pytest.raises(RunDirError, match=message):
        read_run_dir(run)
    lenient = read_run_dir(run, strict=False)
    assert len(lenient.records) == len(records)
    assert len(lenient.problems) == 1 and lenient.problems[0].line == 10


def test_corrupt_line_in_the_middle_keeps_the_lines_after_it(tmp_path: Path) -> None:
    records = standard_records()
    run = write_run(tmp_path / "r", records[:3])
    with (run / "episodes.jsonl").open("a") as fh:
        fh.write("garbage\n" + "\n".join(r.model_dump_json() for r in records[3:]) + "\n")
    lenient = read_run_dir(run, strict=False)
    assert [r.episode_id for r in lenient.records] == [r.episode_id for r in records]
    assert str(lenient.problems[0]).endswith("episodes.jsonl:4: not valid JSON (Expecting value at column 1)")


def test_non_utf8_bytes(tmp_path: Path) -> None:
    run = write_run(tmp_path / "r", standard_records()[:2])
    with (run / "episodes.jsonl").open("ab") as fh:
        fh.write(b"\xff\xfe\n" + standard_records()[2].model_dump_json().encode() + b"\n")
    with pytest.raises(RunDirError, match=r"episodes.jsonl:3: not UTF-8"):
        read_run_dir(run)
    assert len(read_run_dir(run, strict=False).records) == 3
