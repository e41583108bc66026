"""The `jarvis` command line: a thin layer that parses typed options and calls plain functions.

Each command group lives in its own module under agent/cli/ and adds itself to `app` through a
`register(app)` function; this module only assembles them.
"""

from __future__ import annotations

import importlib
import importlib.util

import typer

app = typer.Typer(
    name="jarvis",
    help="JARVIS: manual-guided robotic LEGO assembly benchmark, VSP and GamiBench.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)



def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"jarvis {version('jarvis')}")
        except PackageNotFoundError:  # run from a checkout that was never installed
            typer.echo("jarvis (not installed: version unknown)")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit"),
) -> None:
    """JARVIS: manual-guided robotic LEGO assembly benchmark, VSP and GamiBench."""


COMMAND_MODULES = (
    "agent.cli.bench",
    "agent.cli.tasks",
    "agent.cli.suites",
    "agent.cli.ldraw",
    "agent.cli.render",
    "agent.cli.score",
    "agent.cli.run",
    "agent.cli.sandbox",
    "agent.cli.serve",
    "agent.cli.view",
    "agent.cli.answers",
    "agent.cli.origami",
    "agent.cli.vsp",
    "agent.cli.experience",
)

for _name in COMMAND_MODULES:
    if importlib.util.find_spec(_name) is not None:
        importlib.import_module(_name).register(app)


if __name__ == "__main__":
    app()
