"""Tasks from a user's own model, and task files (JSON or JSONL of TaskSpecs) read with precise errors.

A model (an imported LDraw file or an assembly) becomes tasks the way the pool makes them: its build
order is decomposed into segments (jarvis_sim.tasks.decompose), each segment is a TaskSpec with staged
loose bricks, manual steps, a budget and the difficulty fields; the difficulty label uses the strata of
the jarvis-v1 suite, so "hard" means the same for a user's task as for a benchmark task. The model must
be buildable in order: an assembly the evaluator would reject never becomes a task.

It must be buildable by one arm, too, as the generated pools are by construction (jarvis_sim/lego/press_order.py):
every brick takes its seating press, with everything's weight, where the skills press. `unbuildable` says what
happens to a brick that cannot: "fail" refuses the model naming it, "drop" leaves it out (with what rests on it),
"keep" keeps it where it is; each dropped, kept or postponed brick is named in the notes. A task whose initial
structure cannot stand under its own weight is refused either way (named in the notes).

User task ids are `lego/ldraw-<name>/<k>`: the `ldraw-` prefix never matches a generated pool id, so a
user task cannot shadow a benchmark task.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from jarvis_sim.lego.assembly import Assembly, AssemblyError, LatticeBrick
from jarvis_sim.lego.press_order import single_arm_order
from jarvis_sim.lego.statics import stands
from jarvis_sim.tasks.collection import tasks_of
from jarvis_sim.tasks.difficulty import stratum_of
from jarvis_sim.tasks.spec import MAX_TASK_BRICKS, TaskSpec
from jarvis_sim.tasks.staging import out_of_reach
from jarvis_sim.tasks.suites import suite_path

MAX_TASK_FILE_BYTES = 64 << 20
MAX_TASKS_PER_FILE = 10_000
_NAME = re.compile(r"[^a-z0-9_]+")
Unbuildable = Literal["fail", "drop", "keep"]


class TaskFileError(ValueError):
    """A task file that cannot be read; the message names the file, the line and the field."""


def user_assembly_name(stem: str) -> str:
    """`ldraw-<stem>` in lower case with anything but letters, digits and '_' turned into '-'."""
    clean = _NAME.sub("-", stem.lower()).strip("-")[:60] or "model"
    return f"ldraw-{clean}"


@cache
def suite_strata(suite: str = "jarvis-v1") -> tuple[float, float]:
    """The D thresholds (easy below the first, hard from the second) of a shipped suite's labels."""
    scores: dict[str, list[float]] = {"easy": [], "medium": [], "hard": []}
    for line in suite_path(suite).read_text(encoding="utf-8").splitlines():
        if line.strip():
            t = TaskSpec.model_validate_json(line)
            if t.difficulty and t.difficulty_fields:
                scores[t.difficulty].append(t.difficulty_fields.score)
    if not all(scores.values()):
        raise ValueError(f"suite {suite} lacks a difficulty stratum; cannot label user tasks")
    return ((max(scores["easy"]) + min(scores["medium"])) / 2, (max(scores["medium"]) + min(scores["hard"])) / 2)


def _where(b: LatticeBrick) -> str:
    return f"{b.id} ({b.spec.name} at stud {b.x}, {b.y}, level {b.z})"


def single_arm_assembly(assembly: Assembly, unbuildable: Unbuildable = "fail") -> tuple[Assembly, list[str]]:
    """The assembly in an order one arm can build (see the module docstring), with notes naming each brick postponed,
    dropped or kept; AssemblyError under "fail" when a brick cannot be built by one arm."""
    if unbuildable not in ("fail", "drop", "keep"):
        raise ValueError(f"unbuildable must be fail, drop or keep, not {unbuildable!r}")
    built, refused = single_arm_order(list(assembly), assembly.baseplate)
    notes = []
    before = {b.id: k for k, b in enumerate(assembly)}
    late, latest = [], -1  # postponed: built after a brick that came after it in the file
    for b, _ in built:
        if before[b.id] < latest:
            late.append(b)
        latest = max(latest, before[b.id])
    if refused and unbuildable == "fail":
        raise AssemblyError(f"{len(refused)} brick(s) one arm cannot press on without breaking the structure (StableLego "
                            f"statics), or resting on such a brick: {', '.join(_where(b) for b in refused[:5])}; use "
                            "--unbuildable drop or keep", refused[0].id)
    if unbuildable == "keep":
        notes += [f"kept: {_where(b)}: one arm cannot press it on without breaking the structure, or it rests on "
                  "such a brick" for b in refused]
        return assembly, notes
    notes += [f"reordered: {_where(b)} is built after bricks that steady its support" for b in late[:20]]
    notes += [f"dropped: {_where(b)}: one arm cannot press it on without breaking the structure, or it rests on "
              "such a brick" for b in refused]
    return Assembly([b for b, _ in built], assembly.baseplate, assembly.name), notes


def tasks_from_assembly(assembly: Assembly, seed: int = 0, unbuildable: Unbuildable = "fail",
                        notes: list[str] | None = None) -> list[TaskSpec]:
    """Every task of a user's assembly that one arm can build, difficulty labelled; AssemblyError when it cannot be
    built in order or is larger than a task may be (see single_arm_assembly for `unbuildable`; what it did is
    appended to `notes`)."""
    if len(assembly) > MAX_TASK_BRICKS:
        raise AssemblyError(f"the model has {len(assembly)} bricks and its last task would hold all of them; a task "
                            f"holds at most {MAX_TASK_BRICKS} (jarvis_sim.tasks.spec.MAX_TASK_BRICKS): import a "
                            "submodel of it, or split it into models of at most that many bricks")
    far = out_of_reach(assembly.footprint_bounds())
    if far is not None:
        raise AssemblyError(f"the model does not fit the robot's workspace: {far}")
    assembly.validate()
    assembly, said = single_arm_assembly(assembly, unbuildable)
    thresholds = suite_strata()
    out = []
    for task in tasks_of(assembly, seed):
        assert task.difficulty_fields is not None
        if not stands(task.initial_assembly, task.workspace.lattice_origin, task.baseplate):
            said.append(f"refused: task {task.id}: its initial structure ({len(task.initial)} bricks) cannot stand "
                        "under its own weight")
            continue
        out.append(task.model_copy(update={"difficulty": stratum_of(task.difficulty_fields.score, thresholds)}))
    if notes is not None:
        notes += said
    return out


def write_task_file(tasks: list[TaskSpec], path: Path) -> Path:
    """Write TaskSpecs as JSONL (one a line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(t.model_dump_json() + "\n" for t in tasks), encoding="utf-8")
    return path


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "task"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where}: {first['msg']}{more}"


def parse_tasks(text: str, source: str) -> list[TaskSpec]:
    """TaskSpecs from JSON text (one object or a list) or JSONL (one object a line)."""
    stripped = text.lstrip()
    objects: list[tuple[str, object]] = []
    try:
        whole = json.loads(stripped) if stripped[:1] in ("{", "[") else None
    except json.JSONDecodeError:
        whole = None  # JSONL: several objects, one a line
    except RecursionError:
        raise TaskFileError(f"{source}: JSON nested too deeply") from None
    if isinstance(whole, dict):
        objects = [(source, whole)]
    elif isinstance(whole, list):
        objects = [(f"{source}[{k}]", o) for k, o in enumerate(whole)]
    else:
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                objects.append((f"{source}:{n}", json.loads(line)))
            except json.JSONDecodeError as exc:
                raise TaskFileError(f"{source}:{n}: not valid JSON ({exc.msg} at column {exc.colno})") from None
            except RecursionError:
                raise TaskFileError(f"{source}:{n}: JSON nested too deeply") from None
    if not objects:
        raise TaskFileError(f"{source}: no tasks in the file")
    if len(objects) > MAX_TASKS_PER_FILE:
        raise TaskFileError(f"{source}: {len(objects)} tasks; at most {MAX_TASKS_PER_FILE} per file")
    tasks: list[TaskSpec] = []
    seen: dict[str, str] = {}
    for where, obj in objects:
        if not isinstance(obj, dict):
            raise TaskFileError(f"{where}: expected a TaskSpec JSON object, got {type(obj).__name__}")
        if obj.get("family", "lego") != "lego":
            raise TaskFileError(f"{where}: family {obj.get('family')!r}: task files hold LEGO TaskSpecs only")
        try:
            task = TaskSpec.model_validate(obj)
        except ValidationError as exc:
            raise TaskFileError(f"{where}: not a valid TaskSpec: {_first_error(exc)}") from None
        if task.id in seen:
            raise TaskFileError(f"{where}: task id {task.id!r} repeats {seen[task.id]}")
        seen[task.id] = where
        tasks.append(task)
    return tasks


def read_task_file(path: str | Path) -> list[TaskSpec]:
    """TaskSpecs from a .json or .jsonl file; TaskFileError names the file, line and field."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_TASK_FILE_BYTES:
            raise TaskFileError(f"{p}: {size:,} bytes; a task file may be at most {MAX_TASK_FILE_BYTES >> 20} MB")
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskFileError(f"{p}: cannot read ({exc})") from None
    return parse_tasks(text, str(p))
