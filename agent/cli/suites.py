"""`jarvis suites`: every suite of every task family, with its size, or why it is unavailable."""

from __future__ import annotations

import json
from typing import Any

import typer


def suite_rows(family: str | None = None) -> list[dict[str, Any]]:
    """One row per suite: name, family, description, task count, or the reason its data is missing."""
    from jarvis_sim.tasks.registry import suite_availability, suites

    rows: list[dict[str, Any]] = []
    for s in suites():
        if family is not None and s.family != family:
            continue
        n, why = suite_availability(s)
        row: dict[str, Any] = {"name": s.name, "family": s.family, "description": s.description,
                               "tasks": n, "available": why is None}
        if why is not None:
            row["unavailable_because"] = why
        rows.append(row)
    return rows


def register(app: typer.Typer) -> None:
    """Add the `suites` command."""

    @app.command("suites")
    def _suites(
        family: str = typer.Option(None, "--family", help="Only this family: lego, planning, vsp, gamibench"),
        as_json: bool = typer.Option(False, "--json", help="One JSON object per suite instead of a table"),
        all_: bool = typer.Option(False, "--all", help="Include suites whose data is not installed"),
    ) -> None:
        """List the suites of every task family (export one with `jarvis tasks suite NAME --out FILE`)."""
        from jarvis_sim.tasks.registry import families

        if family is not None and family not in families():
            typer.echo(f"error: unknown family {family!r}; valid: {', '.join(sorted(families()))}", err=True)
            raise typer.Exit(2)
        rows = suite_rows(family)
        hidden = 0 if all_ else sum(not r["available"] for r in rows)
        for r in rows:
            if not (all_ or r["available"]):
                continue
            if as_json:
                typer.echo(json.dumps(r))
            else:
                size = f"{r['tasks']:>6}" if r["available"] else "     -"
                typer.echo(f"{r['family']:<10} {r['name']:<40} {size}  {r['description']}")
        if hidden and not as_json:
            typer.echo(f"({hidden} suites hidden: their data is not installed here, or they hold no tasks; --all "
                       "lists them with the reason)")
