"""`jarvis ldraw import|export`: convert between LDraw files and lattice assembly JSON.

The import options (`--unsupported`, `--map-colour`) are shared with `jarvis tasks from-ldraw`.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from jarvis_sim.lego.assembly import Assembly
from jarvis_sim.lego.ldraw import ImportOptions, LDrawError, LDrawModel, read_ldraw, write_ldraw

UNSUPPORTED_HELP = ("what to do with a part the catalog and $LDRAWDIR lack: fail, skip it, or substitute the catalog "
                    "part of the same footprint (each skip and substitution is reported)")
MAP_COLOUR_HELP = "replace an LDraw colour code before the checks, e.g. 115=27 (repeatable)"
UNSUPPORTED_HELP += "; skip and substitute also skip parts the stud grid cannot hold (tilted, off the grid)"
UNBUILDABLE_HELP = ("what to do with bricks no order can build from above (e.g. resting only on skipped parts): "
                    "fail, or drop them (each drop is reported)")
TASKS_UNBUILDABLE_HELP = (UNBUILDABLE_HELP[:-1] + "); for tasks also bricks one arm cannot press on without breaking "
                          "the structure (StableLego statics, with weight): fail, drop or keep them, each named "
                          "(a brick no order places from above is never kept)")


def import_options(unsupported: str, map_colour: list[str] | None, check_buildable: bool = True,
                   unbuildable: str = "fail") -> ImportOptions:
    """ImportOptions from CLI values; a malformed value is a typer.BadParameter naming it."""
    if unsupported not in ("fail", "skip", "substitute"):
        raise typer.BadParameter(f"--unsupported must be fail, skip or substitute, not {unsupported!r}")
    if unbuildable not in ("fail", "drop"):
        raise typer.BadParameter(f"--unbuildable must be fail or drop, not {unbuildable!r}")
    mapping: dict[int, int] = {}
    for item in map_colour or []:
        src, sep, dst = item.partition("=")
        try:
            if not sep:
                raise ValueError
            mapping[int(src, 0)] = int(dst, 0)
        except ValueError:
            raise typer.BadParameter(f"--map-colour {item!r}: expected CODE=CODE, e.g. 115=27") from None
    return ImportOptions(unsupported=unsupported, colour_map=mapping,  # type: ignore[arg-type]
                         check_buildable=check_buildable, unbuildable=unbuildable)  # type: ignore[arg-type]


def echo_notes(model: LDrawModel) -> None:
    """Print what the import skipped, substituted, mapped or reordered (stderr)."""
    for note in model.notes:
        typer.echo(f"note: {note}", err=True)


def import_ldraw(src: Path, out: Path, options: ImportOptions | None = None) -> LDrawModel:
    """Read an .ldr/.mpd file and write the assembly (with its steps and import notes) as JSON."""
    model = read_ldraw(src, options)
    obj = model.assembly.to_json_obj()
    obj["steps"] = model.steps
    obj["import_notes"] = [str(n) for n in model.notes]
    out.write_text(json.dumps(obj, indent=1) + "\n", encoding="utf-8")
    return model


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
        unsupported: str = typer.Option("fail", "--unsupported", help=UNSUPPORTED_HELP),
        map_colour: list[str] = typer.Option(None, "--map-colour", help=MAP_COLOUR_HELP),
        unbuildable: str = typer.Option("fail", "--unbuildable", help=UNBUILDABLE_HELP),
    ) -> None:
        """Convert an LDraw model to lattice assembly JSON."""
        try:
            model = import_ldraw(file, out, import_options(unsupported, map_colour, unbuildable=unbuildable))
        except (LDrawError, FileNotFoundError) as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(2) from None
        echo_notes(model)
        typer.echo(f"{len(model.assembly)} bricks -> {out}")

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
