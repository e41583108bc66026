"""`jarvis vsp ...`: generate fresh VSP sets, list suites, show an item's prompt."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import typer


def generate(out: Path, seed: int, n: int, examples: int = 8, workers: int | None = None) -> dict[str, object]:
    """Write a generated VSP set (all ten tasks, n items per level) and return a summary."""
    from jarvis_sim.vsp.generate import generate_set

    t0 = time.perf_counter()
    generate_set(out, seed, n, examples, workers=workers)
    n_files = sum(1 for p in out.rglob("*") if p.is_file())
    return {"out": str(out), "seed": seed, "items_per_level": n, "items": 46 * n, "files": n_files,
            "seconds": round(time.perf_counter() - t0, 2)}


def list_suites(vsp_root: Path | None, counts: bool) -> list[dict[str, object]]:
    """The VSP suites (without variants), optionally with their item counts."""
    from jarvis_sim.tasks.registry import families

    fam = families()["vsp"]
    if vsp_root is not None:
        fam.configure(root=vsp_root)  # type: ignore[attr-defined]
    rows: list[dict[str, object]] = []
    for s in fam.suites():
        if "@" in s.name:
            continue
        row: dict[str, object] = {"suite": s.name, "description": s.description}
        if counts:
            try:
                row["items"] = len(fam.task_ids(s.name))
            except (ValueError, KeyError) as exc:
                row["error"] = str(exc)
        rows.append(row)
    return rows


def register(app: typer.Typer) -> None:
    """Add the `vsp` command group."""
    vsp = typer.Typer(help="VSP (maze navigation, blocks world): generate sets, list suites, show items.")
    app.add_typer(vsp, name="vsp")

    @vsp.command("generate")
    def generate_cmd(
        out: Path = typer.Option(..., help="Directory to write (gets VSP-main/ inside)"),
        seed: int = typer.Option(0, help="Random seed; the same seed and sizes give identical files"),
        n: int = typer.Option(100, help="Items per level (100 gives the official 4,600-item size)"),
        examples: int = typer.Option(8, help="In-context examples per level"),
        workers: int = typer.Option(0, help="Processes (0: one per CPU)"),
    ) -> None:
        """Generate a fresh set of all ten VSP tasks in the official layout."""
        if n < 1:
            raise typer.BadParameter("--n must be at least 1")
        summary = generate(out, seed, n, examples, workers or None)
        typer.echo(json.dumps(summary))
        typer.echo(f"use it: JARVIS_VSP_SETS=myset={out.resolve()} jarvis ... --suite vsp-myset", err=True)

    @vsp.command("list")
    def list_cmd(
        vsp_root: Path = typer.Option(None, help="Folder holding VSP-main/ (default: $JARVIS_VSP_ROOT)"),
        counts: bool = typer.Option(False, help="Count the items of each suite (reads the data)"),
    ) -> None:
        """List the VSP suites (each also exists as SUITE@<input>-<k>shot)."""
        for row in list_suites(vsp_root, counts):
            sys.stdout.write(json.dumps(row) + "\n")

    @vsp.command("show")
    def show_cmd(
        task_id: str = typer.Argument(..., help="e.g. vsp/maze/main/level3/0@table-2shot"),
        vsp_root: Path = typer.Option(None, help="Folder holding VSP-main/ (default: $JARVIS_VSP_ROOT)"),
    ) -> None:
        """Print an item's prompt and image paths (never its answer)."""
        from jarvis_sim.tasks.registry import UnknownKeyError, families, load_task

        if vsp_root is not None:
            families()["vsp"].configure(root=vsp_root)  # type: ignore[attr-defined]
        try:
            item = load_task(task_id)
        except (UnknownKeyError, ValueError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        typer.echo(item.prompt)  # type: ignore[union-attr]
        for k, p in enumerate(item.images, 1):  # type: ignore[union-attr]
            typer.echo(f"<IMAGE-{k}> {p}")
