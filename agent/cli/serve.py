"""`jarvis serve`: the REST server with its worker processes."""

from __future__ import annotations

from pathlib import Path

import typer

from agent.server.settings import ServerSettings, SettingsError


def serve(settings: ServerSettings) -> None:
    """Run the server until interrupted."""
    import uvicorn

    from agent.server.app import create_app
    from agent.server.repeats import install_repeat_filter
    from agent.server.serving import protocol_class

    app = create_app(settings)
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_level="info", access_log=False,
                            http=protocol_class(settings), backlog=settings.backlog,
                            timeout_keep_alive=int(max(1, settings.keep_alive_s)))
    server = uvicorn.Server(config)  # the Config has set up logging: the repeat filter goes on top of it
    install_repeat_filter(settings.log_repeat_s)
    server.run()


def register(app: typer.Typer) -> None:
    """Add `serve`."""

    @app.command("serve")
    def serve_cmd(
        host: str = typer.Option(None, help="Bind address (default 127.0.0.1; beyond loopback needs JARVIS_API_TOKEN)."),
        port: int = typer.Option(None, help="Port (default 8000)."),
        workers: int = typer.Option(None, help="Episode worker processes (default: number of cores)."),
        db: str = typer.Option(None, help="Database URL (default SQLite in the data dir; postgresql+psycopg://...)."),
        data_dir: Path = typer.Option(None, help="Where runs and artifacts are stored (default ./jarvis-data)."),
        backend: str = typer.Option(None, help="Simulator backend of the workers (default mujoco)."),
    ) -> None:
        """Start the REST server (OpenAPI at /openapi.json, docs at /docs)."""
        try:
            settings = ServerSettings.from_env(
                host=host, port=port, workers=workers, db_url=db, data_dir=data_dir, backend=backend
            )
            settings.check_startable()
        except SettingsError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        serve(settings)
