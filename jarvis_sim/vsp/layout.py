"""Reading the VSP dataset layout (the official one and our generated sets, which share it).

A root holds `VSP-main/{maze,blocks}/<task folder>/` with `maps/<level>/` items, `example/<level>/`
in-context items, `prompt-text/prompt-text.txt` and `prompt-visual-images/`. Each item is read into
a `VspRecord`: its test visuals (image path plus text representations), question text and ground
truth as plain JSON-able data.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from jarvis_sim.vsp import blocks as B
from jarvis_sim.vsp import maze as M

SCENARIOS = ("maze", "blocks")
TASKS = ("main", "t1", "t2", "t3", "t4")
TASK_FOLDER = {"main": "task-main", "t1": "task1", "t2": "task2", "t3": "task3", "t4": "task4"}
ENV_ROOT = "JARVIS_VSP_ROOT"
ITEMS_PER_LEVEL_OFFICIAL = 100
# Tasks that ask to match an image with text; without the image there is nothing to ask.
IMAGE_ONLY = {("maze", "t3"), ("blocks", "t3")}

# What the explanation figures of the templates show (the templates describe them in words too):
# the text variants put these configurations in place of the figures.
FIGURE_MAZE = M.MazeMap(4, (0, 0), (3, 3), frozenset({(0, 1), (3, 0)}))
FIGURE_BLOCKS = B.BlocksState((("purple",), ("blue",), ("orange", "red")))
MAZE_LEGEND = (
    'In the text map, "@" is the player, "#" is a hole, "_" is safe land, "*" is the goal and "%" is '
    "the player standing on the goal."
)


class VspLayoutError(ValueError):
    """A dataset directory that does not follow the VSP layout; the message names the path."""


@dataclass(frozen=True)
class Visual:
    """One picture of a scene: its image file and the same scene as text ('pure_text', 'table')."""

    image: Path
    reps: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class VspRecord:
    """One item as read from the layout."""

    scenario: str
    task: str
    level: str
    index: int
    visuals: tuple[Visual, ...]  # the test visuals in prompt order (two for blocks main)
    question: str | None  # text filling <QUESTION>, <CANDIDATES> or <ACTION-SEQ>
    answer: dict[str, Any]


@dataclass(frozen=True)
class VspExample:
    """One in-context example: text and visuals in order, ending with the worked answer."""

    parts: tuple[str | Visual, ...]


def resolve_root(root: str | os.PathLike[str] | None = None) -> Path | None:
    """The folder holding VSP-main/ (accepting VSP-main itself), from the argument or $JARVIS_VSP_ROOT."""
    raw = root if root is not None else os.environ.get(ENV_ROOT)
    if not raw:
        return None
    p = Path(raw).expanduser().resolve()
    if p.name == "VSP-main":
        p = p.parent
    return p


def task_dir(root: Path, scenario: str, task: str) -> Path:
    """The folder of one task inside a root."""
    if scenario not in SCENARIOS or task not in TASKS:
        raise VspLayoutError(f"unknown VSP task {scenario}/{task}; scenarios {SCENARIOS}, tasks {TASKS}")
    return root / "VSP-main" / scenario / TASK_FOLDER[task]


def _level_key(name: str) -> int:
    m = re.search(r"(\d+)$", name)
    return int(m.group(1)) if m else 0


@lru_cache(maxsize=256)
def levels(root: Path, scenario: str, task: str) -> tuple[str, ...]:
    """Level folder names of a task, in difficulty order."""
    maps = task_dir(root, scenario, task) / "maps"
    if not maps.is_dir():
        raise VspLayoutError(f"{maps}: missing (is {root} a VSP root?)")
    return tuple(sorted((p.name for p in maps.iterdir() if p.is_dir()), key=_level_key))


@lru_cache(maxsize=256)
def item_count(root: Path, scenario: str, task: str, level: str) -> int:
    """Number of items in a level folder."""
    d = task_dir(root, scenario, task) / "maps" / level
    sub = {"maze": "img", "blocks": "input_img" if task == "main" else "image_input"}[scenario]
    if not (d / sub).is_dir():
        raise VspLayoutError(f"{d / sub}: missing")
    return sum(1 for p in (d / sub).iterdir() if p.stem.isdigit())


@lru_cache(maxsize=64)
def template(root: Path, scenario: str, task: str) -> str:
    """The task's prompt template, read at run time."""
    p = task_dir(root, scenario, task) / "prompt-text" / "prompt-text.txt"
    if not p.is_file():
        raise VspLayoutError(f"{p}: missing prompt template")
    return p.read_text(encoding="utf-8")


def figures(root: Path, scenario: str, task: str) -> list[Path]:
    """The template's explanation figures (<IMAGE-1>, <IMAGE-2>), in order."""
    d = task_dir(root, scenario, task) / "prompt-visual-images"
    names = ["system-figure-1.png", "system-figure-2.png"] if scenario == "maze" else ["example0.jpg"]
    return [d / n for n in names]


def _read(path: Path) -> str:
    """A text file of the layout, or a VspLayoutError naming it; accepts a missing '.txt'."""
    for p in (path, path.with_suffix(".txt") if path.suffix != ".txt" else path.with_suffix("")):
        if p.is_file():
            return p.read_text(encoding="utf-8")
    raise VspLayoutError(f"{path}: missing")


@lru_cache(maxsize=512)
def _lines(path: Path) -> tuple[str, ...]:
    return tuple(_read(path).split("\n"))


def _maze_visual(d: Path, i: int) -> tuple[Visual, M.MazeMap]:
    table = _read(d / "table" / f"{i}.txt")
    where = str(d / "table" / f"{i}.txt")
    try:
        m = M.parse_table(table, where)
    except M.MazeFormatError as exc:
        raise VspLayoutError(str(exc)) from None
    pure = d / "pure_text" / f"{i}.txt"
    reps = {"table": table.rstrip("\n"), "pure_text": _read(pure) if pure.exists() else m.to_pure_text()}
    return Visual(d / "img" / f"{i}.png", reps), m


def _blocks_visual(image: Path, state: B.BlocksState) -> Visual:
    return Visual(image, {"pure_text": state.to_pure_text().rstrip("\n"), "table": state.to_table().rstrip("\n")})


def _maze_t3_map(d: Path, i: int, candidates: str) -> tuple[M.MazeMap, int, list[str]]:
    lines = _read(d / "answer" / f"{i}.txt").strip().split("\n")
    if len(lines) != 5 or not lines[-1].strip().isdigit():
        raise VspLayoutError(f"{d / 'answer' / f'{i}.txt'}: expected 4 candidate ids and the answer index")
    choice = int(lines[-1])
    tables = re.split(r"^\([A-D]\)\s*$", candidates.strip(), flags=re.M)[1:]
    if len(tables) != 4:
        raise VspLayoutError(f"{d / 'question' / f'{i}.txt'}: expected candidates (A)-(D)")
    tables = [t.strip() for t in tables]
    return M.parse_table(tables[choice], f"{d}/question/{i}.txt"), choice, tables


def read_record(root: Path, scenario: str, task: str, level: str, index: int) -> VspRecord:
    """Read one item of the layout."""
    d = task_dir(root, scenario, task) / "maps" / level
    if not d.is_dir():
        raise VspLayoutError(f"{d}: missing level folder; levels: {', '.join(levels(root, scenario, task))}")
    reader = _READERS[(scenario, task)]
    try:
        return reader(root, d, scenario, task, level, index)
    except (M.MazeFormatError, B.BlocksFormatError, IndexError, ValueError) as exc:
        if isinstance(exc, VspLayoutError):
            raise
        raise VspLayoutError(f"{d} item {index}: {exc}") from None


def _rec(scenario: str, task: str, level: str, i: int, visuals: list[Visual], q: str | None, a: dict[str, Any]) -> VspRecord:
    return VspRecord(scenario, task, level, i, tuple(visuals), q, a)


def _maze_main(root: Path, d: Path, s: str, t: str, lvl: str, i: int) -> VspRecord:
    v, m = _maze_visual(d, i)
    plan = M.shortest_plan(m)
    if plan is None:
        raise VspLayoutError(f"{d} item {i}: the goal cannot be reached")
    return _rec(s, t, lvl, i, [v], None, {"map": m.to_table(), "optimal_length": len(plan)})


def _maze_t1(root: Path, d: Path, s: str, t: str, lvl: str, i: int) -> VspRecord:
    v, m = _maze_visual(d, i)
    question = _read(d / "question" / f"{i}.txt").strip()
    gt = _read(d / "answer" / f"{i}.txt").strip()
    if gt not in ("Y", "N"):
        raise VspLayoutError(f"{d}/answer/{i}.txt: expected Y or N, found {gt!r}")
    return _rec(s, t, lvl, i, [v], question, {"hole": gt == "Y", "map": m.to_table()})


def _maze_t2(root: Path, d: Path, s: str, t: str, lvl: str, i: int) -> VspRecord:
    v, m = _maze_visual(d, i)
    return _rec(s, t, lvl, i, [v], None, {"relation": sorted(m.relation()), "map": m.to_table()})


def _maze_t3(root: Path, d: Path, s: str, t: str, lvl: str, i: int) -> VspRecord:
    candidates = _read(d / "question" / f"{i}.txt")
    m, choice, tables = _maze_t3_map(d, i, candidates)
    v = Visual(d / "img" / f"{i}.png", {})
    answer = {"choice": "ABCD"[choice], "candidates": tables, "map": m.to_table()}
    return _rec(s, t, lvl, i, [v], candidates.strip("\n"), answer)


def _maze_t4(root: Path, d: Path, s: str, t: str, lvl: str, i: int) -> VspRecord:
    v, m = _maze_visual(d, i)
    plan = _read(d / "question" / f"{i}.txt").strip()
    gt = _read(d / "answer" / f"{i}.txt").strip()
    if gt not in ("Y", "N") or any(ch not in M.MOVES for ch in plan):
        raise VspLayoutError(f"{d} item {i}: bad question {plan!r} or answer {gt!r}")
    seq = ", ".join(M.MOVE_WORDS[ch] for ch in plan)
    return _rec(s, t, lvl, i, [v], seq, {"safe": gt == "Y", "plan": plan, "map": m.to_table()})


def _blocks_main(root: Path, d: Path, s: str, t: str, lvl: str, i: int) -> VspRecord:
    records = _lines(d / "info.txt")
    fields = records[i].split("\t")
    start, goal = B.decode(fields[0], f"{d}/info.txt:{i + 1}"), B.decode(fields[2], f"{d}/info.txt:{i + 1}")
    visuals = [_blocks_visual(d / "input_img" / f"{i}.jpg", start), _blocks_visual(d / "output_img" / f"{i}.jpg", goal)]
    answer = {"start": start.encode(), "goal": goal.encode(), "optimal_length": int(fields[4]),
              "solutions": [f.split(" ") for f in fields[5:]]}
    return _rec(s, t, lvl, i, visuals, None, answer)


def _blocks_state(d: Path, i: int) -> B.BlocksState:
    return B.parse_pure_text(_read(d / "pure_text_rep_input" / str(i)), f"{d}/pure_text_rep_input/{i}")


def _blocks_t1(root: Path, d: Path, s: str, t: str, lvl: str, i: int) -> VspRecord:
    state = _blocks_state(d, i)
    q = _read(d / "text_input" / f"{i}.txt").strip()
    color = _lines(d / "annotation.txt")[i].strip()
    v = _blocks_visual(d / "image_input" / f"{i}.jpg", state)
    return _rec(s, t, lvl, i, [v], q, {"color": color, "state": state.encode()})


def _blocks_t2(root: Path, d: Path, s: str, t: str, lvl: str, i: int) -> VspRecord:
    state = _blocks_state(d, i)
    q = _read(d / "text_input" / f"{i}.txt").strip()
    choice = int(_lines(d / "annotation.txt")[i].strip())
    v = _blocks_visual(d / "image_input" / f"{i}.jpg", state)
    return _rec(s, t, lvl, i, [v], q, {"choice": "ABCD"[choice], "state": state.encode()})


def _blocks_t3(root: Path, d: Path, s: str, t: str, lvl: str, i: int) -> VspRecord:
    text = _read(d / "text_input" / f"{i}.txt")
    cands = B.parse_candidates(text, f"{d}/text_input/{i}.txt")
    choice = int(_lines(d / "annotation.txt")[i].strip())
    v = Visual(d / "image_input" / f"{i}.jpg", {})
    answer = {"choice": "ABCD"[choice], "candidates": [c.encode() for c in cands], "state": cands[choice].encode()}
    return _rec(s, t, lvl, i, [v], text.strip("\n"), answer)


def _blocks_t4(root: Path, d: Path, s: str, t: str, lvl: str, i: int) -> VspRecord:
    state = _blocks_state(d, i)
    plan_text = _read(d / "text_input" / f"{i}.txt").strip()
    valid_ids = {x.strip() for x in _lines(d / "annotation.txt") if x.strip()}
    plan = [ln.split(". ", 1)[-1].strip() for ln in plan_text.splitlines() if ln.strip()]
    v = _blocks_visual(d / "image_input" / f"{i}.jpg", state)
    return _rec(s, t, lvl, i, [v], plan_text, {"valid": str(i) in valid_ids, "plan": plan, "state": state.encode()})


_READERS = {
    ("maze", "main"): _maze_main, ("maze", "t1"): _maze_t1, ("maze", "t2"): _maze_t2,
    ("maze", "t3"): _maze_t3, ("maze", "t4"): _maze_t4,
    ("blocks", "main"): _blocks_main, ("blocks", "t1"): _blocks_t1, ("blocks", "t2"): _blocks_t2,
    ("blocks", "t3"): _blocks_t3, ("blocks", "t4"): _blocks_t4,
}


# ---- in-context examples -----------------------------------------------------------------------


@lru_cache(maxsize=256)
def examples(root: Path, scenario: str, task: str, level: str) -> tuple[VspExample, ...]:
    """The in-context examples of a level, as prompt parts."""
    d = task_dir(root, scenario, task) / "example" / level
    if not d.is_dir():
        return ()
    if scenario == "maze":
        n = sum(1 for p in (d / "img").iterdir() if p.stem.isdigit())
        return tuple(_maze_example(d, task, i) for i in range(n))
    if task == "main":
        n = sum(1 for p in (d / "begin").iterdir() if p.stem.isdigit())
        return tuple(_blocks_main_example(d, i) for i in range(n))
    n = sum(1 for p in (d / "image_input").iterdir() if p.stem.isdigit())
    return tuple(_blocks_example(d, task, i) for i in range(n))


def _maze_example(d: Path, task: str, i: int) -> VspExample:
    if task == "t3":
        v = Visual(d / "img" / f"{i}.png", {})
        cands = _read(d / "question" / f"{i}.txt").strip("\n")
        return VspExample((v, "Here are the textual candidates:\n" + cands, _read(d / "analysis" / f"{i}.txt")))
    v, _ = _maze_visual(d, i)
    if task == "main":
        return VspExample((v, _read(d / "answer" / f"{i}.txt")))
    if task == "t1":
        return VspExample((v, _read(d / "question" / f"{i}.txt").strip(), _read(d / "answer" / f"{i}.txt")))
    if task == "t2":
        return VspExample((v, _read(d / "answer" / f"{i}.txt")))
    seq = ", ".join(M.MOVE_WORDS[ch] for ch in _read(d / "question" / f"{i}.txt").strip())
    return VspExample((v, "The action sequence is:\n" + seq, _read(d / "analysis" / f"{i}.txt")))


def _blocks_main_example(d: Path, i: int) -> VspExample:
    q = _read(d / f"question{i}.txt")
    m = re.search(r"beginning state is:\n(.*?)\n\s*\nThe end state is:\n(.*)", q, flags=re.S)
    if not m:
        raise VspLayoutError(f"{d}/question{i}.txt: expected the beginning and end states")
    start, goal = B.parse_pure_text(m.group(1)), B.parse_pure_text(m.group(2))
    return VspExample((
        "Please generate the moving plan. The beginning state is:",
        _blocks_visual(d / "begin" / f"{i}.jpg", start),
        "The end state is:",
        _blocks_visual(d / "end" / f"{i}.jpg", goal),
        "<Output>\n" + _read(d / f"sol_{i}.txt").strip(),
    ))


def _blocks_example(d: Path, task: str, i: int) -> VspExample:
    text = _read(d / "text_input" / f"{i}.txt").strip("\n")
    answer = _read(d / "answer" / f"{i}.txt")
    if task == "t3":
        return VspExample((Visual(d / "image_input" / f"{i}.jpg", {}), "Here are the textual candidates:\n" + text, answer))
    v = _blocks_visual(d / "image_input" / f"{i}.jpg", _blocks_state(d, i))
    if task == "t4":
        return VspExample((v, "The action sequence is:\n" + text, answer))
    return VspExample((text, v, answer))
