"""The VSP task family: official and generated items as QuestionItems, suites, solver and random answers.

Task ids: `vsp/[<set>/]<scenario>/<task>/<level folder>/<item>[@<variant>]`, e.g.
`vsp/maze/main/level3/0` (official), `vsp/gen-mini/blocks/t4/level5/17`, and
`vsp/maze/t1/level4/2@table-2shot` (text input as a table, two in-context examples).
Suites: `vsp` (all ten official tasks), `vsp-maze-main` ... `vsp-blocks-t4`, each with `@<variant>`
forms, and the same names under a generated set (`vsp-gen-mini`, `vsp-gen-mini-maze-t2`, ...).

The official root comes from `configure(root=...)` or $JARVIS_VSP_ROOT; more generated sets from
`configure(sets={name: dir})` or $JARVIS_VSP_SETS ("name=dir" pairs separated by os.pathsep).
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

from jarvis_sim.tasks.family import QuestionFamily, SuiteInfo, UnknownKeyError, register_family
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.vsp import blocks as B
from jarvis_sim.vsp import layout as L
from jarvis_sim.vsp import maze as M
from jarvis_sim.vsp.prompts import PromptError, Variant, all_variants, build_prompt

OFFICIAL = "official"
GEN_MINI = "gen-mini"
ENV_SETS = "JARVIS_VSP_SETS"
_ID = re.compile(
    r"^vsp/(?:(?P<set>[a-z0-9][a-z0-9_-]*)/)??(?P<scenario>maze|blocks)/(?P<task>main|t[1-4])/"
    r"(?P<level>[A-Za-z0-9_]+)/(?P<index>\d+)(?:@(?P<variant>[a-z_]+(?:-\dshot)?))?$"
)
TASK_KEYS = [(s, t) for s in L.SCENARIOS for t in L.TASKS]


class VspFamily(QuestionFamily):
    """VSP maze and blocks-world items from the official layout and from generated sets."""

    name = "vsp"

    def __init__(self, root: str | os.PathLike[str] | None = None, sets: dict[str, Path] | None = None):
        self._root = root
        self._sets = dict(sets or {})

    # ---- configuration -------------------------------------------------------------------------

    def configure(self, root: str | os.PathLike[str] | None = None, sets: dict[str, Path] | None = None) -> None:
        """Set the official root and/or add generated sets (name -> directory)."""
        if root is not None:
            self._root = root
        if sets:
            self._sets.update({k: Path(v) for k, v in sets.items()})

    def official_root(self) -> Path:
        """The official dataset root; a clear error when none is configured."""
        root = L.resolve_root(self._root)
        if root is None or not (root / "VSP-main").is_dir():
            raise L.VspLayoutError(
                f"no VSP dataset at {root or '(unset)'}: the official data is used where ${L.ENV_ROOT} names the folder "
                "holding VSP-main/"
            )
        return root

    def set_names(self) -> list[str]:
        """Generated sets known to this family."""
        names = {GEN_MINI, *self._sets, *_env_sets()}
        return sorted(names)

    def set_root(self, name: str) -> Path:
        """The root of a set: 'official' or a generated set (gen-mini is built on first use)."""
        if name == OFFICIAL:
            return self.official_root()
        if name in self._sets:
            return self._sets[name]
        env = _env_sets()
        if name in env:
            return env[name]
        if name == GEN_MINI:
            from jarvis_sim.vsp.generate import ensure_mini_set

            return ensure_mini_set()
        raise UnknownKeyError("VSP set", name, [OFFICIAL, *self.set_names()])

    # ---- suites --------------------------------------------------------------------------------

    def suites(self) -> list[SuiteInfo]:
        """Official suites, their variants, and the generated sets' suites."""
        out: list[SuiteInfo] = []
        for set_name in [OFFICIAL, *self.set_names()]:
            prefix = "vsp" if set_name == OFFICIAL else f"vsp-{set_name}"
            src = "official VSP data" if set_name == OFFICIAL else f"generated VSP set {set_name!r}"
            bases = [(prefix, f"all ten VSP tasks ({src})")]
            bases += [(f"{prefix}-{s}-{t}", f"VSP {s} {t} ({src})") for s, t in TASK_KEYS]
            for base, desc in bases:
                out.append(SuiteInfo(base, self.name, desc))
                if set_name in (OFFICIAL, GEN_MINI):
                    out += [SuiteInfo(f"{base}@{v.suffix()}", self.name, f"{desc}, {v.input} input, {v.shots} shots")
                            for v in all_variants() if not v.is_default]
        return out

    def task_ids(self, suite: str) -> list[str]:
        """Task ids of a suite, in scenario, task, level and item order."""
        base, _, variant = suite.partition("@")
        if variant:
            Variant.parse(variant)
        set_name, keys = self._parse_suite(base)
        root = self.set_root(set_name)
        ids = []
        for s, t in keys:
            if variant and Variant.parse(variant).input != "image" and (s, t) in L.IMAGE_ONLY:
                continue
            for level in L.levels(root, s, t):
                for i in range(L.item_count(root, s, t, level)):
                    ids.append(self._id(set_name, s, t, level, i, variant))
        return ids

    def _parse_suite(self, base: str) -> tuple[str, list[tuple[str, str]]]:
        for set_name in [OFFICIAL, *self.set_names()]:
            prefix = "vsp" if set_name == OFFICIAL else f"vsp-{set_name}"
            if base == prefix:
                return set_name, TASK_KEYS
            for s, t in TASK_KEYS:
                if base == f"{prefix}-{s}-{t}":
                    return set_name, [(s, t)]
        raise UnknownKeyError("suite", base, [s.name for s in self.suites()])

    @staticmethod
    def _id(set_name: str, s: str, t: str, level: str, i: int, variant: str = "") -> str:
        head = "vsp" if set_name == OFFICIAL else f"vsp/{set_name}"
        return f"{head}/{s}/{t}/{level}/{i}" + (f"@{variant}" if variant else "")

    # ---- items ---------------------------------------------------------------------------------

    def owns(self, task_id: str) -> bool:
        """True for ids starting with 'vsp/'."""
        return task_id.startswith("vsp/")

    def load(self, task_id: str) -> QuestionItem:
        """Read the item, build its prompt from the layout's template and return it."""
        m = _ID.match(task_id)
        if not m:
            raise UnknownKeyError(
                "VSP task id", task_id,
                ["vsp/<scenario>/<task>/<level>/<item>[@variant], e.g. vsp/maze/main/level3/0 or "
                 "vsp/gen-mini/blocks/t4/level5/17@table-2shot"],
            )
        set_name = m.group("set") or OFFICIAL
        s, t, level, index = m.group("scenario"), m.group("task"), m.group("level"), int(m.group("index"))
        variant = Variant.parse(m.group("variant")) if m.group("variant") else Variant()
        root = self.set_root(set_name)
        if level not in L.levels(root, s, t):
            raise UnknownKeyError(f"level of {s}/{t}", level, list(L.levels(root, s, t)))
        n = L.item_count(root, s, t, level)
        if index >= n:
            raise UnknownKeyError(f"item of {s}/{t}/{level}", str(index), [f"0..{n - 1}"])
        record = L.read_record(root, s, t, level, index)
        examples = L.examples(root, s, t, level) if variant.shots else ()
        try:
            prompt, images, chosen = build_prompt(
                L.template(root, s, t), record, L.figures(root, s, t), examples, variant, seed=task_id
            )
        except PromptError as exc:
            raise PromptError(f"{task_id}: {exc}") from None
        meta = {
            "scenario": s, "task": t, "level": level, "index": index, "set": set_name,
            "input": variant.input, "shots": variant.shots, "example_ids": chosen,
            "question": record.question, "image_marker": "<IMAGE-k>",
        }
        return QuestionItem(
            id=task_id, family=self.name, kind=f"{s}/{t}", level=level, prompt=prompt,
            images=[str(p) for p in images], answer=record.answer, meta=meta,
        )

    # ---- agents' answers -----------------------------------------------------------------------

    def scripted_answer(self, item: QuestionItem) -> str:
        """Solve the item from its text representation (BFS / search) and answer in the asked format."""
        return solve(item.meta["scenario"], item.meta["task"], item.answer, item.meta.get("question"))

    def random_answer(self, item: QuestionItem, rng: random.Random) -> str:
        """A uniformly random well-formed answer."""
        s, t, a = item.meta["scenario"], item.meta["task"], item.answer
        if s == "maze":
            if t == "main":
                size = M.parse_table(a["map"]).size
                return "Action plan: " + ",".join(rng.choice("LRUD") for _ in range(rng.randint(1, 2 * size)))
            if t == "t2":
                from itertools import combinations

                choices: list[tuple[str, ...]] = [("Above",), ("Below",), ("Left",), ("Right",)]
                choices += [c for c in combinations(("Above", "Below", "Left", "Right"), 2)
                            if set(c) not in ({"Above", "Below"}, {"Left", "Right"})]
                return "<Output> " + ",".join(rng.choice(choices))
            if t == "t3":
                return "<Answer> " + rng.choice("ABCD")
            return "<Output> " + rng.choice(["Yes", "No"])
        if t == "main":
            names = [*B.COLORS, B.TABLE]
            n = max(1, int(a["optimal_length"]))
            return "<Output>\n" + "\n".join(
                f"{k + 1}. move({rng.choice(B.COLORS)},{rng.choice(names)})" for k in range(n)
            )
        if t == "t1":
            return "<Output> " + rng.choice(B.COLORS)
        if t in ("t2", "t3"):
            return "<Output> " + rng.choice("ABCD")
        return "<Output> " + rng.choice(["Yes", "No"])


def solve(scenario: str, task: str, answer: dict, question: str | None) -> str:
    """The solver's answer text for one item, computed from the scene's text representation."""
    if scenario == "maze":
        maze = M.parse_table(answer["map"])
        if task == "main":
            plan = M.shortest_plan(maze)
            return "Action plan: " + ",".join(plan or [])
        if task == "t1":
            m = re.search(r"row (\d+), column (\d+)", question or "")
            hole = bool(m) and (int(m.group(1)) - 1, int(m.group(2)) - 1) in maze.holes  # type: ignore[union-attr]
            return "<Output> " + ("Yes" if hole else "No")
        if task == "t2":
            order = ["Above", "Below", "Left", "Right"]
            return "<Output> " + ",".join(d for d in order if d in maze.relation())
        if task == "t3":
            for letter, table in zip("ABCD", answer["candidates"], strict=True):
                if M.parse_table(table) == maze:
                    return "<Answer> " + letter
            return "<Answer> A"
        plan = [ch for ch in answer["plan"]]
        return "<Output> " + ("Yes" if M.is_safe(maze, plan) else "No")
    if task == "main":
        moves = B.shortest_plan(B.decode(answer["start"]), B.decode(answer["goal"])) or []
        return "<Output>\n" + "\n".join(f"{k + 1}. {mv.text()}" for k, mv in enumerate(moves))
    state = B.decode(answer["state"])
    if task == "t1":
        m = re.search(r"stack (\d+), level (\d+)", question or "")
        color = state.color_at(int(m.group(1)) - 1, int(m.group(2)) - 1) if m else None
        return "<Output> " + (color or "red")
    if task == "t2":
        m = re.search(r"betwe+n the (\w+) block and the (\w+) block", question or "")
        return "<Output> " + "ABCD"[B.relation(state, m.group(1), m.group(2))] if m else "<Output> D"
    if task == "t3":
        for letter, code in zip("ABCD", answer["candidates"], strict=True):
            if B.decode(code).stacks == state.stacks:
                return "<Output> " + letter
        return "<Output> A"
    parsed = [B.parse_move(x) for x in answer["plan"]]
    ok = all(mv is not None for mv in parsed) and B.run_plan(state, [mv for mv in parsed if mv])[1] is None
    return "<Output> " + ("Yes" if ok else "No")


def _env_sets() -> dict[str, Path]:
    raw = os.environ.get(ENV_SETS, "")
    out = {}
    for pair in filter(None, raw.split(os.pathsep)):
        name, sep, path = pair.partition("=")
        if not sep or not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name) or name in (OFFICIAL, "maze", "blocks"):
            raise ValueError(f"${ENV_SETS}: bad entry {pair!r}; expected name=DIR with a lower-case name")
        out[name] = Path(path).expanduser()
    return out


FAMILY = register_family(VspFamily())


def configure(root: str | os.PathLike[str] | None = None, sets: dict[str, Path] | None = None) -> None:
    """Configure the registered VSP family (official root, extra generated sets)."""
    FAMILY.configure(root=root, sets=sets)  # type: ignore[attr-defined]


def label_answer(item: QuestionItem) -> str:
    """The item's stored ground-truth label written as an answer (the official plan for blocks main).

    Maze main items store no plan, so theirs comes from BFS; the rest copy the label as it is.
    """
    s, t, a = item.meta["scenario"], item.meta["task"], item.answer
    if s == "maze":
        if t == "main":
            return solve(s, t, a, None)
        if t == "t1":
            return "<Output> " + ("Yes" if a["hole"] else "No")
        if t == "t2":
            return "<Output> " + ",".join(a["relation"])
        if t == "t3":
            return "<Answer> " + a["choice"]
        return "<Output> " + ("Yes" if a["safe"] else "No")
    if t == "main":
        moves = [B.parse_move(x) for x in a["solutions"][0]]
        return "<Output>\n" + "\n".join(f"{k + 1}. {mv.text()}" for k, mv in enumerate(moves) if mv)
    if t == "t1":
        return "<Output> " + a["color"]
    if t in ("t2", "t3"):
        return "<Output> " + a["choice"]
    return "<Output> " + ("Yes" if a["valid"] else "No")
