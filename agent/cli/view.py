"""`jarvis view RUN_DIR...`: browse run directories in the dashboard, without a server or database."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    """Add `view`."""

    @app.command("view")
    def view_cmd(
        run_dirs: list[Path] = typer.Argument(..., help="Run directories (each with config.json and episodes.jsonl)."),
        host: str = typer.Option("127.0.0.1", help="Bind address (loopback: the pages show everything in the runs)."),
        port: int = typer.Option(8010, help="Port."),
        export: Path = typer.Option(None, "--export", file_okay=False,
                                    help="Instead of serving, write a static copy of the run (one RUN_DIR) into this "
                                         "new folder: index.html and episodes/*.html open from disk, no server"),
    ) -> None:
        """Serve the dashboard of these run directories at http://HOST:PORT/ (or --export a static copy)."""
        import uvicorn

        from agent.server.dashboard.app import create_view_app
        from evaluator.run_dir import RunDirError

        if export is not None:
            import json

            from agent.server.dashboard.export import export_run

            if len(run_dirs) != 1:
                typer.echo("error: --export writes one run: give exactly one RUN_DIR", err=True)
                raise typer.Exit(2)
            try:
                typer.echo(json.dumps(export_run(run_dirs[0], export)))
            except (RunDirError, FileExistsError) as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(2) from None
            return

        try:
            app = create_view_app(run_dirs)
        except RunDirError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        typer.echo(f"dashboard: http://{host}:{port}/")
        uvicorn.run(app, host=host, port=port, log_level="warning")
