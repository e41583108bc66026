"""GamiBench as its authors run it: their folder discovery, question plan, plan files and prompt text.

The rules are those documented by the official code (github.com/stvngo/GamiBench): examples are the
dataset's sub-folders sorted case-insensitively; a view is any `<name>_<view>.png` (matched without
regard to case, the crease pattern excluded); one `random.Random(seed)` drives, per example and in this
order, the standard question (three distractor examples sampled from all other examples that have views,
one view of each, then the right view, then a shuffle of right + distractors), the alternative-view
question (another view of the right model, the same distractors, a fresh shuffle) and the impossible
question (four distractors, no shuffle, answer E). A step that lacks what it needs is left out without
drawing. The official plan JSON (`TaskPlan.to_dict`) can be read instead of rebuilding.

Nothing here writes into the user's folder, and no prompt text is shipped: `read_prompt` reads the
system prompt, the user prompt and the candidate caption from the user's copy of the official code.
"""

from __future__ import annotations

import ast
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OFFICIAL_SEED = 42
PLAN_VERSION = "gamibench_v1"
NUM_CHOICES = 4
IMPOSSIBLE_LETTER = "E"
# Our kinds and the official task types they correspond to (the ids and plan files use the latter).
TASK_TYPES = {"standard": "standard_mcq", "alternative": "alternative_view", "impossible": "impossible_fold"}
KINDS = {v: k for k, v in TASK_TYPES.items()}
PROMPT_FILE = Path("benchmarks") / "gamibench" / "prompts.py"


class OfficialDataError(ValueError):
    """A GamiBench folder, plan file or official-code copy that cannot be used as given."""


@dataclass(frozen=True)
class Example:
    """One origami folder: its crease patterns (None when absent) and its views (lower-case name -> file)."""

    name: str
    folder: Path
    normal_cp: Path | None
    impossible_cp: Path | None
    views: dict[str, Path] = field(default_factory=dict)

    def view_names(self) -> list[str]:
        """The view names, sorted (the order the official builder draws from)."""
        return sorted(self.views)


@dataclass(frozen=True)
class PlanTask:
    """One question of an official plan: what is shown, in which order, and the right letter."""

    task_id: str  # the official id, e.g. 000001_crane_alternative_view
    kind: str  # standard | alternative | impossible
    name: str
    crease_pattern: Path
    candidates: tuple[Path, ...]
    answer: str
    prerequisite: str | None = None  # official id of the question that must be answered right first

    @property
    def letters(self) -> tuple[str, ...]:
        """The candidates' letters, A onwards."""
        return tuple(chr(ord("A") + k) for k in range(len(self.candidates)))


def _file_ci(folder: Path, wanted: str) -> Path | None:
    low = wanted.lower()
    return next((p for p in sorted(folder.iterdir()) if p.is_file() and p.name.lower() == low), None)


def _views(folder: Path, name: str) -> dict[str, Path]:
    prefix = f"{name.lower()}_"
    out: dict[str, Path] = {}
    for p in sorted(folder.iterdir(), key=lambda q: q.name.lower()):
        low = p.name.lower()
        if not p.is_file() or p.suffix.lower() != ".png" or not low.startswith(prefix) or low.endswith("_cp.png"):
            continue
        view = low[len(prefix):-4]
        if view:
            out[view] = p
    return out


def discover(root: Path) -> list[Example]:
    """The examples of a folder in GamiBench's layout, in the official (case-insensitive) order."""
    if not root.is_dir():
        raise OfficialDataError(f"GamiBench data folder {root} does not exist or is not a folder")
    out = []
    for folder in sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.name.lower()):
        name = folder.name
        out.append(Example(name=name, folder=folder, normal_cp=_file_ci(folder, f"{name}_cp.png"),
                           impossible_cp=_file_ci(folder, f"impossible_{name}_cp.png"), views=_views(folder, name)))
    return out


def _distractors(rng: random.Random, examples: Sequence[Example], target: str, count: int) -> list[Path] | None:
    pool = [e for e in examples if e.name != target and e.views]
    if len(pool) < count:
        return None
    picked = rng.sample(pool, count)
    return [e.views[rng.choice(e.view_names())] for e in picked]


def _official_id(index: int, name: str, kind: str) -> str:
    return f"{index:06d}_{name}_{TASK_TYPES[kind]}"


def build_plan(examples: Sequence[Example], seed: int = OFFICIAL_SEED) -> list[PlanTask]:
    """The official question plan of these examples for a seed (the official builder's default options)."""
    rng = random.Random(seed)
    ordered = sorted(examples, key=lambda e: e.name.lower())
    tasks: list[PlanTask] = []
    for ex in ordered:
        if ex.normal_cp is not None and ex.views:
            distractors = _distractors(rng, ordered, ex.name, NUM_CHOICES - 1)
            if distractors is not None:
                view = rng.choice(ex.view_names())
                right = ex.views[view]
                shown = [right, *distractors]
                rng.shuffle(shown)
                std = PlanTask(_official_id(len(tasks), ex.name, "standard"), "standard", ex.name, ex.normal_cp,
                               tuple(shown), chr(ord("A") + shown.index(right)))
                tasks.append(std)
                others = [v for v in ex.view_names() if v != view]
                if others:
                    alt_right = ex.views[rng.choice(others)]
                    alt = [alt_right, *distractors]
                    rng.shuffle(alt)
                    tasks.append(PlanTask(_official_id(len(tasks), ex.name, "alternative"), "alternative", ex.name,
                                          ex.normal_cp, tuple(alt), chr(ord("A") + alt.index(alt_right)),
                                          prerequisite=std.task_id))
        if ex.impossible_cp is not None:
            four = _distractors(rng, ordered, ex.name, NUM_CHOICES)
            if four is not None:
                tasks.append(PlanTask(_official_id(len(tasks), ex.name, "impossible"), "impossible", ex.name,
                                      ex.impossible_cp, tuple(four), IMPOSSIBLE_LETTER))
    return tasks


def _locate(raw: str, root: Path, where: str) -> Path:
    """A plan's image path on this machine: as written if it exists, else <root>/<folder>/<file>."""
    p = Path(raw)
    if p.is_file():
        return p.resolve()  # workers may run elsewhere: never keep a path relative to this process
    parts = Path(raw.replace("\\", "/")).parts
    if len(parts) >= 2 and (root / parts[-2] / parts[-1]).is_file():
        return root / parts[-2] / parts[-1]
    raise OfficialDataError(f"{where}: image {raw!r} is neither a file nor under {root}")


def read_plan(path: Path, root: Path) -> list[PlanTask]:
    """An official plan JSON (as the official evaluator writes to task_plan_path), images found under root."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise OfficialDataError(f"GamiBench plan {path}: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), list):
        raise OfficialDataError(f"GamiBench plan {path}: expected an object with a 'tasks' list")
    out = []
    for k, row in enumerate(data["tasks"]):
        where = f"{path}: tasks[{k}]"
        try:
            kind = KINDS[row["task_type"]]
            meta: dict[str, Any] = row.get("metadata") or {}
            prereq = meta.get("prerequisite_task_id") if meta.get("requires_previous_correct") else None
            out.append(PlanTask(
                task_id=str(row["task_id"]), kind=kind, name=str(row["origami_name"]),
                crease_pattern=_locate(str(row["crease_pattern_path"]), root, where),
                candidates=tuple(_locate(str(c), root, where) for c in row["candidates"]),
                answer=str(row["correct_label"]), prerequisite=str(prereq) if prereq else None))
        except KeyError as exc:
            raise OfficialDataError(f"{where}: missing or unknown field {exc}") from exc
        except TypeError as exc:
            raise OfficialDataError(f"{where}: {exc}") from exc
    return out


@dataclass(frozen=True)
class OfficialPrompt:
    """The official prompt text, read from the user's copy of the official code."""

    system: str
    user: str
    caption_parts: tuple[str | None, ...]  # literal text, None where the candidate's letter goes
    source: Path

    def caption(self, letter: str) -> str:
        """The text shown before candidate `letter`."""
        return "".join(letter if part is None else part for part in self.caption_parts)


def _caption_parts(fn: ast.FunctionDef, source: Path) -> tuple[str | None, ...]:
    ret = next((n for n in ast.walk(fn) if isinstance(n, ast.Return)), None)
    value = ret.value if ret is not None else None
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return (value.value,)
    if not isinstance(value, ast.JoinedStr):
        raise OfficialDataError(f"{source}: candidate_caption does not return a string or an f-string")
    parts: list[str | None] = []
    for v in value.values:
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            parts.append(v.value)
        else:
            parts.append(None)  # the official caption formats the candidate's label here
    return tuple(parts)


def read_prompt(code_root: Path) -> OfficialPrompt:
    """SYSTEM_PROMPT, USER_PROMPT and the caption of the official prompts module, parsed, never executed."""
    source = code_root / PROMPT_FILE
    try:
        tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
    except OSError as exc:
        raise OfficialDataError(f"official GamiBench code: cannot read {source} ({exc.strerror})") from exc
    except SyntaxError as exc:
        raise OfficialDataError(f"{source}:{exc.lineno}: not Python ({exc.msg})") from exc
    strings: dict[str, str] = {}
    caption: tuple[str | None, ...] | None = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            if isinstance(value, str):
                strings[node.targets[0].id] = value
        elif isinstance(node, ast.FunctionDef) and node.name == "candidate_caption":
            caption = _caption_parts(node, source)
    missing = [n for n in ("SYSTEM_PROMPT", "USER_PROMPT") if n not in strings]
    if caption is None:
        missing.append("candidate_caption")
    if missing:
        raise OfficialDataError(f"{source}: no {', '.join(missing)} found (is this the official GamiBench code?)")
    return OfficialPrompt(strings["SYSTEM_PROMPT"], strings["USER_PROMPT"], caption or (), source)


def find_code_root(data_root: Path) -> Path | None:
    """The official code around a data folder in its default place (<code>/data/GamiBench), if any."""
    for parent in data_root.resolve().parents:
        if (parent / PROMPT_FILE).is_file():
            return parent
    return None
