"""A user's model becomes tasks as the pool makes them; task files are read with precise errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jarvis_sim.lego.assembly import Assembly, AssemblyError, make_brick
from jarvis_sim.lego.ldraw import read_ldraw
from jarvis_sim.tasks.collection import tasks_of
from jarvis_sim.tasks.user_tasks import (
    TaskFileError,
    parse_tasks,
    read_task_file,
    suite_strata,
    tasks_from_assembly,
    user_assembly_name,
    write_task_file,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "ldraw"


def test_model_to_tasks_round_trips_through_a_task_file(tmp_path: Path) -> None:
    model = read_ldraw(DATA / "house.mpd")
    a = model.assembly
    assembly = Assembly(a.bricks, a.baseplate, user_assembly_name("house"))
    tasks = tasks_from_assembly(assembly, seed=0)
    assert [t.id for t in tasks][:2] == ["lego/ldraw-house/000", "lego/ldraw-house/001"]
    assert all(t.baseplate and t.difficulty in ("easy", "medium", "hard") for t in tasks)
    # The last task's target is the whole model.
    assert [b.id for b in tasks[-1].target_assembly.bricks] == [b.id for b in a.bricks]
    path = write_task_file(tasks, tmp_path / "house.jsonl")
    assert read_task_file(path) == tasks


def test_strata_come_from_the_shipped_suite() -> None:
    t1, t2 = suite_strata()
    assert 0.41 < t1 < 0.43 and 0.52 < t2 < 0.54


def test_an_unbuildable_assembly_never_becomes_a_task() -> None:
    floating = Assembly([make_brick("a", "3001", 4, 0, 0, 0), make_brick("b", "3001", 4, 10, 0, 3)], name="f")
    with pytest.raises(AssemblyError, match=r"brick b .* has no studs under it"):
        tasks_from_assembly(floating)
    with pytest.raises(AssemblyError, match="brick b"):
        next(tasks_of(floating, 0))


def test_user_names_never_look_like_pool_ids() -> None:
    assert user_assembly_name("My House (v2).ldr") == "ldraw-my-house-v2-ldr"
    assert user_assembly_name("../..") == "ldraw-model"


@pytest.fixture(scope="module")
def one_task_json() -> str:
    a = Assembly([make_brick("a", "3001", 4, 0, 0, 0), make_brick("b", "3003", 1, 0, 0, 3)], name="ldraw-two")
    return tasks_from_assembly(a)[0].model_dump_json()


def test_task_file_formats(tmp_path: Path, one_task_json: str) -> None:
    obj = json.loads(one_task_json)
    assert len(parse_tasks(one_task_json, "one.json")) == 1
    assert len(parse_tasks(json.dumps([obj, {**obj, "id": "lego/ldraw-two/x"}]), "list.json")) == 2
    other = json.dumps({**obj, "id": "lego/ldraw-two/y"})
    assert [t.id for t in parse_tasks(one_task_json + "\n\n" + other + "\n", "t.jsonl")] == [obj["id"], "lego/ldraw-two/y"]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda o: o["action_bricks"][0]["start"].update(x="NaN"), "t.jsonl:2: not a valid TaskSpec: action_bricks.0.start.x"),
        (lambda o: o.update(family="vsp"), "t.jsonl:2: family 'vsp': task files hold LEGO TaskSpecs only"),
        (lambda o: o.update(id="lego/ldraw-two/000"), "t.jsonl:2: task id 'lego/ldraw-two/000' repeats t.jsonl:1"),
    ],
)
def test_task_file_errors_name_line_and_field(one_task_json: str, mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    obj = json.loads(one_task_json)
    obj["id"] = "lego/ldraw-two/other"
    mutate(obj)
    text = one_task_json + "\n" + json.dumps(obj) + "\n"
    with pytest.raises(TaskFileError) as err:
        parse_tasks(text, "t.jsonl")
    assert str(err.value).startswith(message), str(err.value)


def test_task_file_bad_json_and_empty(tmp_path: Path) -> None:
    with pytest.raises(TaskFileError, match=r"t\.jsonl:2: not valid JSON"):
        parse_tasks('{"a": 1}\n{nope\n', "t.jsonl")
    with pytest.raises(TaskFileError, match="no tasks"):
        parse_tasks("\n\n", "t.jsonl")
    with pytest.raises(TaskFileError, match="nested too deeply"):
        parse_tasks("[" * 100_000 + "]" * 100_000, "deep.json")
    with pytest.raises(TaskFileError, match="cannot read"):
        read_task_file(tmp_path / "missing.jsonl")


def test_a_model_larger_than_a_task_or_the_workspace_is_a_clear_error() -> None:
    # 1,005 bricks: the last task would hold all of them, past MAX_TASK_BRICKS (was a pydantic traceback).
    big = Assembly([make_brick(f"b{k:04d}", "3005", 4, k % 20, (k // 20) % 20, 3 * (k // 400)) for k in range(1005)],
                   name="ldraw-big")
    with pytest.raises(AssemblyError, match=r"the model has 1005 bricks .* a task holds at most 1000"):
        tasks_from_assembly(big)
    row = Assembly([make_brick(f"b{k:03d}", "3001", 4, 4 * k, 0, 0) for k in range(60)], name="ldraw-row")
    with pytest.raises(AssemblyError, match=r"footprint is 240 x 2 studs .* far corner lies 1.47 m from the robot"):
        tasks_from_assembly(row)
    deep = Assembly([make_brick(f"b{k:03d}", "3001", 4, 0, 2 * k, 0) for k in range(36)], name="ldraw-deep")
    with pytest.raises(AssemblyError, match="over the staging area where the loose bricks lie"):
        tasks_from_assembly(deep)
