"""`jarvis tasks pool|suite|show|from-ldraw`: build the pool, write a suite, print a task, tasks from a model."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import typer

from agent.cli.ldraw import MAP_COLOUR_HELP, TASKS_UNBUILDABLE_HELP, UNSUPPORTED_HELP, import_options


def build_pool_with_report(n_assemblies: int, seed: int, out: Path, workers: int = 2, progress: bool = True) -> dict[str, Any]:
    """Build the pool into `out` with a progress bar and write its report; return the report."""
    from tqdm import tqdm

    from jarvis_sim.tasks.pool import build_pool
    from jarvis_sim.tasks.pool_report import write_report

    t0 = time.perf_counter()
    with tqdm(total=n_assemblies, unit="assembly", disable=not progress) as bar:
        figures = build_pool(n_assemblies, seed, out, workers=workers, on_progress=bar.update)
    return write_report(figures, seed, out, round(time.perf_counter() - t0, 2))


def write_suite_file(name: str, out: Path) -> Path:
    """Write a suite of any family as JSONL: LEGO suites regenerated (byte-identical to the shipped file),
    other families' suites as their items, one JSON object a line, in suite order."""
    from jarvis_sim.tasks.registry import family_of_suite, load_task, suite_task_ids
    from jarvis_sim.tasks.suites import RECIPES, write_suite

    if name in RECIPES:
        return write_suite(name, out)
    family_of_suite(name)  # an unknown name lists every family's suites
    ids = suite_task_ids(name)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with tmp.open("w") as f:
        for task_id in ids:
            f.write(load_task(task_id).model_dump_json() + "\n")
    tmp.replace(out)  # a half-written suite never takes the name
    return out


def suite_statistics(name: str) -> dict[str, Any]:
    """A LEGO suite's figures and its validation pool's, beside the JARVIS paper's."""
    from jarvis_sim.tasks.paper_stats import PAPER, PAPER_POOL_ASSEMBLIES, PAPER_POOL_TASKS
    from jarvis_sim.tasks.suites import RECIPES, load_suite, pool_stats, single_arm_figures, stats_of

    if name not in RECIPES:
        raise KeyError(f"--stats describes LEGO suites; {name!r} is not one (known: {', '.join(sorted(RECIPES))})")
    recipe = RECIPES[name]
    pool = pool_stats(recipe.pool)
    tasks = load_suite(name)
    return {
        "suite": name,
        "paper": {**PAPER.as_dict(), "pool_assemblies": PAPER_POOL_ASSEMBLIES, "pool_tasks": PAPER_POOL_TASKS},
        "ours": {**stats_of(tasks).as_dict(), "pool_assemblies": pool["assemblies"], "pool_tasks": pool["tasks"]},
        "pool": pool,
        "single_arm": single_arm_figures(tasks),
    }


def statistics_table(stats: dict[str, Any]) -> str:
    """The suite's figures beside the paper's, as a Markdown table."""
    rows = [("tasks", "n_tasks"), ("action bricks: mean", "action_bricks_mean"),
            ("action bricks: median", "action_bricks_median"), ("action bricks: max", "action_bricks_max"),
            ("share with 3-5 action bricks", "share_3_to_5_action_bricks"),
            ("initial bricks: mean", "initial_bricks_mean"), ("initial bricks: median", "initial_bricks_median"),
            ("initial bricks: max", "initial_bricks_max"), ("validation pool: tasks", "pool_tasks"),
            ("validation pool: assemblies", "pool_assemblies")]
    pool = stats["pool"]
    lines = [f"| {stats['suite']} | JARVIS paper | ours | our pool {pool['pool']} (all its tasks) |", "|---|---|---|---|"]
    for label, key in rows:
        lines.append(f"| {label} | {stats['paper'][key]} | {stats['ours'][key]} | {pool.get(key, '')} |")
    arm = stats["single_arm"]
    lines.append(f"| action bricks one arm cannot press on (statics, with weight) | - | "
                 f"{arm['unbuildable_action_bricks']} of {arm['action_bricks']} | |")
    lines.append(f"| action bricks pressed over their studs only | - | {arm['pressed_over_studs_only']} | |")
    lines.append(f"| initial structures that do not stand | - | {arm['initial_structures_not_standing']} | |")
    return "\n".join(lines)


def show_task(task_id: str) -> str:
    """A task as indented JSON (suite task or any generated pool task)."""
    from jarvis_sim.tasks.registry import load_task

    return load_task(task_id).model_dump_json(indent=1)


def tasks_from_ldraw(model_path: Path, out: Path, seed: int, options: Any = None,
                     single_arm: str = "fail") -> dict[str, Any]:
    """Import an LDraw model and write the tasks one arm can build (decomposed as the pool does) as JSONL; returns a
    summary. `single_arm` (fail|drop|keep) treats bricks one arm cannot press on (user_tasks.single_arm_assembly)."""
    from jarvis_sim.lego.assembly import Assembly
    from jarvis_sim.lego.ldraw import read_ldraw
    from jarvis_sim.tasks.user_tasks import tasks_from_assembly, user_assembly_name, write_task_file

    model = read_ldraw(model_path, options)
    a = model.assembly
    assembly = Assembly(a.bricks, a.baseplate, user_assembly_name(model_path.stem))
    notes = [str(n) for n in model.notes]
    tasks = tasks_from_assembly(assembly, seed, single_arm, notes)  # type: ignore[arg-type]
    write_task_file(tasks, out)
    return {
        "model": str(model_path), "bricks": len(tasks[-1].target_assembly) if tasks else 0, "tasks": len(tasks),
        "out": str(out), "difficulty": {d: sum(t.difficulty == d for t in tasks) for d in ("easy", "medium", "hard")},
        "task_ids": [t.id for t in tasks], "notes": notes,
    }


def register(app: typer.Typer) -> None:
    """Add the `tasks` command group."""
    group = typer.Typer(help="The task collection: pool, suites, single tasks.", no_args_is_help=True)

    @group.command("pool")
    def _pool(
        assemblies: int = typer.Option(8987, "--assemblies", min=1, help="Number of assemblies to generate"),
        seed: int = typer.Option(0, "--seed", help="Pool seed"),
        out: Path = typer.Option(..., "--out", help="Output folder"),
        workers: int = typer.Option(2, "--workers", min=1, help="Worker processes"),
    ) -> None:
        """Generate the task pool (tasks + assemblies JSONL) with its distribution report and figures."""
        rep = build_pool_with_report(assemblies, seed, out, workers)
        typer.echo(json.dumps({"pool": rep["pool"], "paper": rep["paper"], "build_seconds": rep["build_seconds"]}, indent=1))

    @group.command("suite")
    def _suite(
        name: str = typer.Argument(..., help="Suite name of any family, e.g. jarvis-mini, gamibench (`jarvis suites`)"),
        out: Path = typer.Option(None, "--out", help="JSONL file to write"),
        stats: bool = typer.Option(False, "--stats", help="Print a LEGO suite's statistics beside the JARVIS "
                                   "paper's (action and initial bricks, validation pool)"),
        as_json: bool = typer.Option(False, "--json", help="With --stats: JSON instead of a table"),
    ) -> None:
        """Write a suite's tasks as JSONL (LEGO suites: same seed, identical bytes to the shipped file)."""
        if out is None and not stats:
            typer.echo("error: give --out FILE (or --stats)", err=True)
            raise typer.Exit(2)
        try:
            if stats:
                figures = suite_statistics(name)
                typer.echo(json.dumps(figures, indent=1) if as_json else statistics_table(figures))
            if out is not None:
                typer.echo(f"-> {write_suite_file(name, out)}")
        except (KeyError, FileNotFoundError) as e:
            typer.echo(f"error: {e.args[0]}", err=True)
            raise typer.Exit(2) from None

    @group.command("show")
    def _show(task_id: str = typer.Argument(..., help="Task id, e.g. lego/v7-00020-stairs/001")) -> None:
        """Print a task as JSON."""
        try:
            typer.echo(show_task(task_id))
        except KeyError as e:
            typer.echo(f"error: {e.args[0]}", err=True)
            raise typer.Exit(2) from None

    @group.command("from-ldraw")
    def _from_ldraw(
        model: Path = typer.Argument(..., exists=True, dir_okay=False, help=".ldr or .mpd model"),
        out: Path = typer.Option(..., "--out", help="JSONL file of TaskSpecs to write"),
        seed: int = typer.Option(0, "--seed", help="Seed of the staging layout"),
        unsupported: str = typer.Option("fail", "--unsupported", help=UNSUPPORTED_HELP),
        map_colour: list[str] = typer.Option(None, "--map-colour", help=MAP_COLOUR_HELP),
        unbuildable: str = typer.Option("fail", "--unbuildable", help=TASKS_UNBUILDABLE_HELP),
    ) -> None:
        """Turn your own LDraw model into tasks (run them with `jarvis run --tasks-file` or `episode --task-file`)."""
        from jarvis_sim.lego.assembly import AssemblyError
        from jarvis_sim.lego.ldraw import LDrawError

        try:
            if unbuildable not in ("fail", "drop", "keep"):
                raise typer.BadParameter(f"--unbuildable must be fail, drop or keep, not {unbuildable!r}")
            geometric = "fail" if unbuildable == "keep" else unbuildable  # what cannot come from above is never kept
            summary = tasks_from_ldraw(model, out, seed, import_options(unsupported, map_colour, unbuildable=geometric),
                                       unbuildable)
        except (LDrawError, AssemblyError, FileNotFoundError) as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(2) from None
        for note in summary["notes"]:
            typer.echo(f"note: {note}", err=True)
        typer.echo(json.dumps({k: v for k, v in summary.items() if k != "notes"}, indent=1))

    app.add_typer(group, name="tasks")
