"""`jarvis ldraw import|export`: convert between LDraw files and lattice assembly JSON."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from jarvis_sim.lego.assembly import Assembly
from jarvis_sim.lego.ldraw import LDrawError, read_ldraw, write_ldraw


def import_ldraw(src: Path, out: Path) -> Assembly:
    """Read an .ldr/.mpd file and write the assembly (with its steps) as JSON."""
    model = read_ldraw(src)
    obj = model.assembly.to_json_obj()
    obj["steps"] = model.steps
    out.write_text(json.dumps(obj, indent=1) + "\n", encoding="utf-8")
    return model.assembly


def export_ldraw(src: Path, out: Path) -> Path:
    """Read assembly JSON (as written by import, or Assembly.to_json_obj) and write an .ldr file."""
    try:
        obj = json.loads(src.read_text(encoding="utf-8"))
        assembly = Assembly.from_json_obj(obj)
    except (ValueError, AssertionError) as e:
        raise ValueError(f"{src}: not an assembly JSON file: {e}") from e
    steps = obj.get("steps")
    return write_ldraw(assembly, out, steps)


def register(app: typer.Typer) -> None:
    """Add the `ldraw` command group."""
    group = typer.Typer(help="Import and export LDraw (.ldr/.mpd) models.", no_args_is_help=True)

    @group.command("import")
    def _import(
        file: Path = typer.Argument(..., exists=True, dir_okay=False, help=".ldr or .mpd file"),
        out: Path = typer.Option(..., "--out", help="Assembly JSON to write"),
    ) -> None:
        """Convert an LDraw model to lattice assembly JSON."""
        try:
            a = import_ldraw(file, out)
        except LDrawError as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"{len(a)} bricks -> {out}")

    @group.command("export")
    def _export(
        file: Path = typer.Argument(..., exists=True, dir_okay=False, help="Assembly JSON"),
        out: Path = typer.Option(..., "--out", help=".ldr file to write"),
    ) -> None:
        """Convert lattice assembly JSON to an LDraw .ldr file with one STEP per brick or step."""
        try:
            export_ldraw(file, out)
        except ValueError as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"-> {out}")

    app.add_typer(group, name="ldraw")
