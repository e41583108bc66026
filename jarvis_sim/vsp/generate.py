"""Seeded generators for the ten VSP tasks, writing the official layout (maps, examples, templates).

`generate_set(out, seed, n)` writes `out/VSP-main/...` with `n` items per level and `n_examples`
in-context examples per level; the same arguments give byte-identical files (every level draws
from its own `random.Random` keyed by seed, task and level, so levels can be made in parallel).
Prompt templates are our own (assets/vsp/prompts/); figures are rendered by our renderers.
"""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tqdm import tqdm

from jarvis_sim.paths import asset_path, cache_root
from jarvis_sim.vsp import blocks as B
from jarvis_sim.vsp import layout as L
from jarvis_sim.vsp import maze as M
from jarvis_sim.vsp import render_blocks, render_maze

GENERATOR_VERSION = 1
ASSETS = asset_path("vsp")
MAZE_LEVELS = {t: [f"level{n}" for n in range(3, 9)] for t in ("main", "t1", "t2", "t3")}
MAZE_LEVELS["t4"] = [f"level_step{n}" for n in (1, 3, 5, 7, 9)]
BLOCKS_LEVELS = {"main": ["level1", "level3", "level5", "level7"], "t4": ["level1", "level3", "level5", "level7"],
                 "t1": ["level3", "level4", "level5"], "t2": ["level3", "level4", "level5"],
                 "t3": ["level3", "level4", "level5"]}
HOLE_P = 0.2  # share of holes, as in gym's random FrozenLake maps (80% frozen)
T4_MAZE_SIZE = 5
MINI_SEED, MINI_N, MINI_EXAMPLES = 0, 2, 4


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def levels_of(scenario: str, task: str) -> list[str]:
    """The level folders a generated set has for a task (the official ones)."""
    return (MAZE_LEVELS if scenario == "maze" else BLOCKS_LEVELS)[task]


# ---- maze --------------------------------------------------------------------------------------


def random_maze(rng: random.Random, size: int) -> M.MazeMap:
    """A random map whose goal the player can reach."""
    cells = [(r, c) for r in range(size) for c in range(size)]
    while True:
        player, goal = rng.sample(cells, 2)
        holes = frozenset(c for c in cells if c not in (player, goal) and rng.random() < HOLE_P)
        m = M.MazeMap(size, player, goal, holes)
        if M.shortest_plan(m) is not None:
            return m


def _maze_files(d: Path, i: int, m: M.MazeMap, with_desc: bool = False) -> None:
    render_maze.save(m, d / "img" / f"{i}.png")
    _write(d / "table" / f"{i}.txt", m.to_table())
    _write(d / "pure_text" / f"{i}.txt", m.to_pure_text())
    if with_desc:
        _write(d / "text" / f"{i}.txt", m.to_desc())
        _write(d / "special_text" / f"{i}.txt", m.to_special_text())


def _cells(cells: list[tuple[int, int]]) -> str:
    return "; ".join(f"row {r + 1}, column {c + 1}" for r, c in sorted(cells)) or "none"


def _maze_reading(m: M.MazeMap) -> str:
    return (f"The player is at row {m.player[0] + 1}, column {m.player[1] + 1}; the goal is at row "
            f"{m.goal[0] + 1}, column {m.goal[1] + 1}; holes: {_cells(list(m.holes))}.")


def _maze_walk(m: M.MazeMap, plan: list[str]) -> list[str]:
    lines, cell = [], m.player
    for mv in plan:
        cell = m.step(cell, mv)
        what = "a hole" if cell in m.holes else "the goal" if cell == m.goal else "safe ice"
        lines.append(f"- {M.MOVE_WORDS[mv]} ({mv}): row {cell[0] + 1}, column {cell[1] + 1}, {what}.")
        if cell in m.holes:
            break
    return lines


def _maze_item(rng: random.Random, task: str, level: str, d: Path, i: int, example: bool) -> None:
    if task == "t4":
        m = random_maze(rng, T4_MAZE_SIZE)
        length = int(level.removeprefix("level_step"))
        want_safe = i % 2 == 0
        tries = 0
        while True:
            plan = [rng.choice("LRUD") for _ in range(length)]
            if M.is_safe(m, plan) == want_safe:
                break
            tries += 1
            if tries % 50 == 0:  # no hole within reach of short plans: draw another map
                m = random_maze(rng, T4_MAZE_SIZE)
        _maze_files(d, i, m, with_desc=True)
        _write(d / "question" / f"{i}.txt", "".join(plan))
        _write(d / "answer" / f"{i}.txt", "Y" if want_safe else "N")
        if example:
            body = [_maze_reading(m), *_maze_walk(m, plan)]
            verdict = "Yes" if want_safe else "No"
            _write(d / "analysis" / f"{i}.txt", "<Analysis>\n" + "\n".join(body) + f"\n<Output> {verdict}")
        return
    size = int(level.removeprefix("level"))
    m = random_maze(rng, size)
    if task == "t3":
        render_maze.save(m, d / "img" / f"{i}.png")
        other_sizes = rng.sample([s for s in range(3, 9) if s != size], 2)
        same = m
        while same == m:
            same = random_maze(rng, size)
        cands = [(m, f"{size}-{i}"), (same, f"{size}-x"), *[(random_maze(rng, s), f"{s}-x") for s in other_sizes]]
        rng.shuffle(cands)
        choice = [c for c, _ in cands].index(m)
        text = "".join(f"\n({letter})\n{c.to_table()}\n" for letter, (c, _) in zip("ABCD", cands, strict=True))
        _write(d / "question" / f"{i}.txt", text)
        _write(d / "answer" / f"{i}.txt", "\n".join(ident for _, ident in cands) + f"\n{choice}")
        if example:
            _write(d / "analysis" / f"{i}.txt",
                   f"<Analysis>\nThe pictured maze is {size}x{size}. {_maze_reading(m)}\n"
                   f"Only candidate {'ABCD'[choice]} has this size and these cells.\n<Answer> {'ABCD'[choice]}")
        return
    _maze_files(d, i, m)
    if task == "main":
        if example:
            plan = M.shortest_plan(m) or []
            _write(d / "answer" / f"{i}.txt", "<Interpret>\n" + _maze_reading(m) + "\n<Action Plan>\n"
                   + "\n".join(_maze_walk(m, plan)) + "\n<Output>\nAction plan: " + ",".join(plan))
    elif task == "t1":
        holes = sorted(m.holes)
        free = [(r, c) for r in range(size) for c in range(size) if (r, c) not in m.holes]
        cell = rng.choice(holes) if holes and rng.random() < 0.5 else rng.choice(free)
        _write(d / "question" / f"{i}.txt", f"Is there a hole at row {cell[0] + 1}, column {cell[1] + 1}?")
        yes = cell in m.holes
        if example:
            _write(d / "answer" / f"{i}.txt", f"Row {cell[0] + 1}, column {cell[1] + 1} holds "
                   f"{'a hole' if yes else 'no hole'}.\n<Output> {'Yes' if yes else 'No'}")
        else:
            _write(d / "answer" / f"{i}.txt", "Y" if yes else "N")
    elif task == "t2" and example:
        rel = ",".join(x for x in ("Above", "Below", "Left", "Right") if x in m.relation())
        _write(d / "answer" / f"{i}.txt", f"<Interpret>\n{_maze_reading(m)}\n<Output> {rel}")


# ---- blocks ------------------------------------------------------------------------------------


def random_state(rng: random.Random, n_blocks: int, colors: list[str] | None = None) -> B.BlocksState:
    """A random configuration of n blocks (random colours, random stacks)."""
    chosen = rng.sample(colors or list(B.COLORS), n_blocks)
    stacks: list[list[str]] = []
    for b in chosen:
        k = rng.randrange(len(stacks) + 1)
        if k == len(stacks):
            stacks.append([b])
        else:
            stacks[k].append(b)
    return B.BlocksState(tuple(tuple(s) for s in stacks))


def _blocks_visual(d: Path, sub: str, i: int, state: B.BlocksState, seed: int) -> None:
    render_blocks.save(state, d / sub / f"{i}.jpg", seed)


def _plan_text(plan: list[B.Move]) -> str:
    return "\n".join(f"{k + 1}. {mv.text()}" for k, mv in enumerate(plan))


def _blocks_main(rng: random.Random, level: str, d: Path, i: int, example: bool, info: list[str]) -> None:
    k = int(level.removeprefix("level"))
    lo = {1: 3, 3: 3, 5: 4, 7: 5}.get(k, 3)
    while True:
        goal = random_state(rng, rng.randint(lo, 6))
        dist = B.distances_to(goal, limit=k)
        at_k = sorted(c for c, v in dist.items() if v == k)
        if at_k:
            break
    start = B.BlocksState(rng.choice(at_k))
    start = B.BlocksState(tuple(rng.sample(start.stacks, len(start.stacks))))
    plans = B.optimal_plans(start, goal, limit=10, dist=dist)
    seed = rng.randrange(1 << 30)
    if example:
        _blocks_visual(d, "begin", i, start, seed)
        _blocks_visual(d, "end", i, goal, seed + 1)
        _write(d / f"question{i}.txt", "Please generate the moving plan. The beginning state is:\n"
               + start.to_pure_text() + "\nThe end state is:\n" + goal.to_pure_text())
        _write(d / f"analysis{i}.txt", "<Analysis>\nStarting state:\n" + start.to_pure_text()
               + "Ending state:\n" + goal.to_pure_text())
        _write(d / f"sol_{i}.txt", _plan_text(plans[0]))
        return
    _blocks_visual(d, "input_img", i, start, seed)
    _blocks_visual(d, "output_img", i, goal, seed + 1)
    _write(d / "input_text" / f"{i}.txt", start.to_pure_text())
    _write(d / "input_table" / f"{i}.txt", start.to_table())
    _write(d / "output_text" / f"{i}.txt", goal.to_pure_text())
    _write(d / "output_table" / f"{i}.txt", goal.to_table())
    sols = [" ".join(f"move({B.LETTER[m.block].lower()},{m.target if m.target == B.TABLE else B.LETTER[m.target].lower()},{j})"
                     for j, m in enumerate(p)) for p in plans]
    info.append("\t".join([start.encode(), start.tower_type(), goal.encode(), goal.tower_type(), str(k), *sols]))


def _invalid_move(rng: random.Random, state: B.BlocksState) -> B.Move:
    covered = [b for s in state.stacks for b in s[:-1]]
    absent = [c for c in B.COLORS if c not in state.blocks]
    kinds = (["covered"] if covered else []) + (["absent"] if absent else [])
    kind = rng.choice(kinds)
    block = rng.choice(covered if kind == "covered" else absent)
    targets = [B.TABLE, *[t for t in state.tops() if t != block]]
    return B.Move(block, rng.choice(targets))


def _blocks_sub(rng: random.Random, task: str, level: str, d: Path, i: int, example: bool, ann: list[str]) -> None:
    seed = rng.randrange(1 << 30)
    ext = ".txt" if example or task == "t4" else ""
    if task == "t4":
        length = int(level.removeprefix("level"))
        state = random_state(rng, rng.randint(3, 6))
        valid = i % 2 == 0
        while True:
            plan, s = [], state
            bad_at = rng.randrange(length) if not valid else -1
            for k in range(length):
                mv = _invalid_move(rng, s) if k == bad_at else rng.choice(s.moves())
                plan.append(mv)
                if s.why_invalid(mv) is None:
                    s = s.apply(mv)
            if (B.run_plan(state, plan)[1] is None) == valid:
                break
        text = _plan_text(plan)
        if valid:
            ann.append(str(i))
        answer = f"<Analysis>\n{state.to_pure_text()}" + ("Every move can be carried out.\n<Output> Yes" if valid
                                                          else "One of the moves cannot be carried out.\n<Output> No")
    else:
        n = int(level.removeprefix("level"))
        state = random_state(rng, n)
        if task == "t1":
            s_idx = rng.randrange(len(state.stacks))
            l_idx = rng.randrange(len(state.stacks[s_idx]))
            text = f"What is the color of the block at stack {s_idx + 1}, level {l_idx + 1}?"
            color = state.stacks[s_idx][l_idx]
            ann.append(color)
            answer = f"Stack {s_idx + 1}, level {l_idx + 1} holds the {color} block.\n<Output> {color}"
        elif task == "t2":
            want = rng.randrange(4)
            for _ in range(200):
                state = random_state(rng, n)
                pairs = [(a, b) for a in B.COLORS for b in B.COLORS if a != b]
                fit = [(a, b) for a, b in pairs if B.relation(state, a, b) == want
                       and (want != 3 or (a in state.blocks) != (b in state.blocks) or rng.random() < 0.2)]
                if fit:
                    break
            a, b = rng.choice(fit)
            text = (f"What is the spatial relation between the {a} block and the {b} block?\n"
                    f"(A) The {a} block is above the {b} block, in the same stack.\n"
                    f"(B) The {a} block is below the {b} block, in the same stack.\n"
                    f"(C) The {a} block and the {b} block are in different stacks.\n"
                    f"(D) At least one of the {a} block and the {b} block is not in the scene.")
            ann.append(str(want))
            answer = f"<Output> {'ABCD'[want]}"
        else:
            cands = [state]
            while len(cands) < 4:
                c = random_state(rng, n) if len(cands) == 1 else random_state(rng, rng.randint(1, 6))
                if all(not c.same_as(x) for x in cands):
                    cands.append(c)
            rng.shuffle(cands)
            choice = cands.index(state)
            text = "".join(f"({letter})\n{c.to_pure_text()}\n" for letter, c in zip("ABCD", cands, strict=True))
            ann.append(str(choice))
            answer = f"The pictured stacks:\n{state.to_pure_text()}<Output> {'ABCD'[choice]}"
    _blocks_visual(d, "image_input", i, state, seed)
    _write(d / "text_input" / f"{i}.txt", text)
    if task != "t3":
        _write(d / "pure_text_rep_input" / f"{i}{ext}", state.to_pure_text())
        _write(d / "table_rep_input" / f"{i}{ext}", state.to_table())
    if example:
        _write(d / "answer" / f"{i}.txt", answer)


# ---- whole sets --------------------------------------------------------------------------------


def _level_job(args: tuple[str, int, str, str, str, int, int]) -> None:
    out, seed, scenario, task, level, n, n_examples = args
    base = L.task_dir(Path(out), scenario, task)
    for split, count in (("maps", n), ("example", n_examples)):
        rng = random.Random(f"vsp:{seed}:{scenario}:{task}:{level}:{split}")
        d = base / split / level
        d.mkdir(parents=True, exist_ok=True)
        lines: list[str] = []
        for i in range(count):
            if scenario == "maze":
                _maze_item(rng, task, level, d, i, split == "example")
            elif task == "main":
                _blocks_main(rng, level, d, i, split == "example", lines)
            else:
                _blocks_sub(rng, task, level, d, i, split == "example", lines)
        if scenario == "blocks" and (task != "main" or split == "maps"):
            _write(d / ("info.txt" if task == "main" else "annotation.txt"), "".join(x + "\n" for x in lines))


def _task_files(out: Path, scenario: str, task: str) -> None:
    base = L.task_dir(out, scenario, task)
    tpl = ASSETS / "prompts" / f"{scenario}-{task}.txt"
    _write(base / "prompt-text" / "prompt-text.txt", tpl.read_text(encoding="utf-8"))
    figs = base / "prompt-visual-images"
    if scenario == "maze":
        render_maze.legend(figs / "system-figure-1.png")
        render_maze.save(L.FIGURE_MAZE, figs / "system-figure-2.png")
    else:
        render_blocks.save(L.FIGURE_BLOCKS, figs / "example0.jpg", 0)


def generate_set(out: Path, seed: int, n: int, n_examples: int = 8, workers: int | None = None,
                 progress: Callable[[str], None] | None = None) -> Path:
    """Write a full generated set (all ten tasks) under out/VSP-main; returns out."""
    if n < 1 or n_examples < 0:
        raise ValueError(f"need n >= 1 items per level and n_examples >= 0 (got {n}, {n_examples})")
    out = Path(out)
    jobs = []
    for scenario in L.SCENARIOS:
        for task in L.TASKS:
            _task_files(out, scenario, task)
            jobs += [(str(out), seed, scenario, task, lvl, n, n_examples) for lvl in levels_of(scenario, task)]
    workers = workers if workers is not None else min(len(jobs), os.cpu_count() or 1)
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for job, _ in zip(jobs, pool.map(_level_job, jobs), strict=True):
                if progress:
                    progress(f"{job[2]}/{job[3]}/{job[4]}")
    else:
        for job in jobs:
            _level_job(job)
            if progress:
                progress(f"{job[2]}/{job[3]}/{job[4]}")
    stamp = {"generator_version": GENERATOR_VERSION, "seed": seed, "items_per_level": n, "examples_per_level": n_examples}
    _write(out / "GENERATED.json", json.dumps(stamp, indent=2) + "\n")
    return out


def cache_dir() -> Path:
    """Where on-demand sets go: the user's cache (jarvis_sim.paths.cache_root), never the installed package."""
    return cache_root()


def ensure_mini_set() -> Path:
    """The small built-in generated set (seed 0, 2 items and 4 examples per level), made on first use."""
    out = cache_dir() / "vsp" / f"gen-mini-s{MINI_SEED}-n{MINI_N}-v{GENERATOR_VERSION}"
    if not (out / "GENERATED.json").is_file():
        tmp = out.with_name(out.name + f".tmp{os.getpid()}")
        levels = sum(len(levels_of(s, t)) for s in L.SCENARIOS for t in L.TASKS)
        # A bar on a terminal only (disable=None): the first use builds the set into the user's cache.
        with tqdm(total=levels, unit="level", desc=f"building VSP set {out.name} in {out.parent}", disable=None,
                  file=sys.stderr) as bar:
            generate_set(tmp, MINI_SEED, MINI_N, MINI_EXAMPLES, workers=1, progress=lambda _: bar.update())
        try:
            tmp.rename(out)
        except OSError:  # another process finished first; its copy is identical
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    return out
