"""From a user's LDraw file to episodes: `tasks from-ldraw`, `episode --task-file`, `run --tasks-file`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli.main import app
from jarvis_sim.tasks.user_tasks import read_task_file

DATA = Path(__file__).resolve().parents[2] / "data" / "ldraw"


def _invoke(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(app, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_from_ldraw_writes_tasks_and_reports_notes(tmp_path: Path) -> None:
    out = tmp_path / "car.jsonl"
    code, stdout, stderr = _invoke("tasks", "from-ldraw", str(DATA / "car.mpd"), "--out", str(out),
                                   "--unsupported", "substitute")
    assert code == 0, stderr
    summary = json.loads(stdout)
    assert summary["bricks"] == 5 and summary["tasks"] == len(read_task_file(out))
    assert "note: car.mpd:10: skipped: 4315.dat" in stderr


def test_from_ldraw_drops_what_cannot_be_built_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "rover.jsonl"
    code, stdout, stderr = _invoke("tasks", "from-ldraw", str(DATA / "rover.ldr"), "--out", str(out),
                                   "--unsupported", "skip", "--unbuildable", "drop")
    assert code == 0, stderr
    assert json.loads(stdout)["bricks"] == 3 and read_task_file(out)
    assert "note: rover.ldr:14: dropped: 3023 (Plate 1 x 2): not buildable from above" in stderr
    code, _, stderr = _invoke("tasks", "from-ldraw", str(DATA / "rover.ldr"), "--out", str(out),
                              "--unsupported", "skip", "--unbuildable", "maybe")
    assert code == 2 and "--unbuildable must be fail, drop or keep" in stderr


def test_from_ldraw_errors_are_exit_2_with_the_reference_chain(tmp_path: Path) -> None:
    code, _, stderr = _invoke("tasks", "from-ldraw", str(DATA / "car.mpd"), "--out", str(tmp_path / "x.jsonl"))
    assert code == 2 and "car.mpd:9: unknown part '3794b.dat'" in stderr
    code, _, stderr = _invoke("tasks", "from-ldraw", str(DATA / "hanging.ldr"), "--out", str(tmp_path / "x.jsonl"))
    assert code == 2 and "hanging.ldr:7: not buildable from above" in stderr
    code, _, stderr = _invoke("ldraw", "import", str(DATA / "car.mpd"), "--out", str(tmp_path / "a.json"),
                              "--map-colour", "nope")
    assert code == 2 and "--map-colour 'nope': expected CODE=CODE" in stderr


def test_ldraw_import_with_policy_and_colour_map(tmp_path: Path) -> None:
    out = tmp_path / "car.json"
    code, _, stderr = _invoke("ldraw", "import", str(DATA / "car.mpd"), "--out", str(out), "--unsupported", "skip",
                              "--map-colour", f"{0x2FF0000}=4")
    assert code == 0, stderr
    obj = json.loads(out.read_text())
    assert len(obj["bricks"]) == 3 and len(obj["import_notes"]) == 3


def test_episode_needs_exactly_one_task_source(tmp_path: Path) -> None:
    code, _, stderr = _invoke("episode", "--out", str(tmp_path / "r"))
    assert code == 2 and "exactly one of --task ID and --task-file" in stderr


@pytest.mark.slow
def test_episode_and_run_from_a_task_file(tmp_path: Path) -> None:
    tasks = tmp_path / "house.jsonl"
    assert _invoke("tasks", "from-ldraw", str(DATA / "house.mpd"), "--out", str(tasks))[0] == 0
    lines = tasks.read_text().splitlines()
    one = tmp_path / "roof.json"
    one.write_text(lines[-2] + "\n")  # the roof plate and the medium-lime tile
    code, stdout, stderr = _invoke("episode", "--task-file", str(one), "--agent", "oracle", "--out", str(tmp_path / "e"))
    assert code == 0, stdout + stderr
    result = json.loads(stdout)
    assert result["status"] == "done" and result["scores"]["completion"] == 100.0
    # The run stores the user's task whole in config.json, so the directory is self-contained and resumable.
    two = tmp_path / "two.jsonl"
    two.write_text(lines[-1] + "\n")
    code, stdout, stderr = _invoke("run", "--tasks-file", str(two), "--agent", "oracle", "--workers", "0",
                                   "--out", str(tmp_path / "r"))
    assert code == 0, stdout + stderr
    config = json.loads((tmp_path / "r" / "config.json").read_text())
    assert [t["id"] for t in config["tasks"]] == ["lego/ldraw-house/005"]
    record = json.loads((tmp_path / "r" / "episodes.jsonl").read_text().splitlines()[0])
    assert record["task_id"] == "lego/ldraw-house/005" and record["status"] == "done"


@pytest.mark.slow
def test_a_failed_episode_exits_non_zero(tmp_path: Path) -> None:
    tasks = tmp_path / "house.jsonl"
    assert _invoke("tasks", "from-ldraw", str(DATA / "house.mpd"), "--out", str(tasks))[0] == 0
    one = tmp_path / "first.json"
    one.write_text(tasks.read_text().splitlines()[0] + "\n")
    code, stdout, _ = _invoke("episode", "--task-file", str(one), "--agent", "llm", "--model", "nosuch:model",
                              "--out", str(tmp_path / "e"))
    assert code != 0, stdout


def test_from_ldraw_checks_what_one_arm_can_press_on(tmp_path: Path) -> None:
    """A 1x8 held by one stud at its end, then a 2x2 on its far end: the seating press there pries the stud out
    (StableLego statics), so `fail` refuses the model naming it, `drop` leaves it out, `keep` keeps it; each says
    so. The 2x2's own task starts from a structure that stands, so no task is refused for its initial structure."""
    from jarvis_sim.lego.assembly import Assembly, make_brick
    from jarvis_sim.lego.ldraw import write_ldraw

    bricks = [make_brick("a", "3005", 4, 0, 0, 0), make_brick("arm", "3008", 4, 0, 0, 3),
              make_brick("far", "3003", 1, 6, 0, 6)]
    model = write_ldraw(Assembly(bricks, baseplate=True), tmp_path / "lever.ldr")
    out = tmp_path / "lever.jsonl"
    code, _, stderr = _invoke("tasks", "from-ldraw", str(model), "--out", str(out))
    assert code == 2 and "one arm cannot press on" in stderr and "Brick 2 x 2" in stderr
    code, stdout, stderr = _invoke("tasks", "from-ldraw", str(model), "--out", str(out), "--unbuildable", "drop")
    assert code == 0, stderr
    assert "note: dropped: " in stderr and "Brick 2 x 2" in stderr and json.loads(stdout)["bricks"] == 2
    assert all(len(t.target_assembly) <= 2 for t in read_task_file(out))
    code, stdout, stderr = _invoke("tasks", "from-ldraw", str(model), "--out", str(out), "--unbuildable", "keep")
    assert code == 0, stderr
    assert "note: kept: " in stderr and json.loads(stdout)["bricks"] == 3


def test_from_ldraw_on_files_real_tools_write(tmp_path: Path) -> None:
    for name, bricks in (("mlcad_tower.ldr", 4), ("ldcad_house.mpd", 5), ("leocad_garden.ldr", 4),
                         ("tiny_tower.ldr_Packed.mpd", 3)):
        code, stdout, stderr = _invoke("tasks", "from-ldraw", str(DATA / "tools" / name), "--out",
                                       str(tmp_path / f"{name}.jsonl"))
        assert code == 0, stderr
        assert json.loads(stdout)["bricks"] == bricks
    assert "note: mlcad_tower.ldr:9: colour_mapped: 12-bit dither colour 0x4073073" in _invoke(
        "tasks", "from-ldraw", str(DATA / "tools" / "mlcad_tower.ldr"), "--out", str(tmp_path / "m.jsonl"))[2]


def test_from_ldraw_on_a_model_too_large_for_a_task_is_a_clear_error(tmp_path: Path) -> None:
    rows = ["0 Big"] + [f"1 4 {(k % 20) * 20} {-24 - 24 * (k // 400)} {((k // 20) % 20) * 20} 1 0 0 0 1 0 0 0 1 3005.dat"
                        for k in range(1005)]
    model = tmp_path / "big.ldr"
    model.write_text("\n".join(rows) + "\n")
    code, stdout, stderr = _invoke("tasks", "from-ldraw", str(model), "--out", str(tmp_path / "big.jsonl"))
    assert code == 2 and stderr.startswith("error: the model has 1005 bricks") and "Traceback" not in stderr + stdout


def test_answers_score_names_an_unknown_id_by_line_and_scores_the_rest(tmp_path: Path) -> None:
    from jarvis_sim.tasks.registry import suite_task_ids

    known = suite_task_ids("vsp-gen-mini-maze-main")[0]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join([json.dumps({"task_id": known, "answer": "Action plan: D"}),
                                  json.dumps({"task_id": "vsp/nope/0", "answer": "x"}),
                                  json.dumps({"task_id": "lego/v7-00020-stairs/001", "answer": "x"})]) + "\n")
    code, stdout, stderr = _invoke("answers", "score", str(answers))
    assert code == 0, stderr
    summary = json.loads(stdout.strip().splitlines()[-1])["summary"]
    assert summary["n_items"] == 1 and summary["n_unscored"] == 2
    assert [u["line"] for u in summary["unscored"]] == [2, 3]
    assert f"not scored: {answers}:2:" in stderr and "is not a question item" in stderr
    only_bad = tmp_path / "bad.jsonl"
    only_bad.write_text(json.dumps({"task_id": "vsp/nope/0", "answer": "x"}) + "\n")
    assert _invoke("answers", "score", str(only_bad))[0] == 2
