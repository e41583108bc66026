"""`jarvis experience distill RUN_DIR... --model M --out lessons.md`: prior-task lessons from training runs."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from agent.agents.experience import ExperienceError, distill_lessons, write_lessons
from agent.llm import LLMConfig, LLMError, RetryPolicy, build_client
from evaluator.run_dir import RunDirError


def distill_command(run_dirs: list[Path], model: str, out: Path, *, library: str = "task", max_lessons: int = 12,
                    max_episodes: int = 40, base_url: str | None = None, timeout_s: float = 120.0,
                    max_attempts: int = 5) -> dict[str, object]:
    """Distil lessons from run directories with a model and write them to `out`; returns the header."""
    client = build_client(LLMConfig(model=model, base_url=base_url, timeout_s=timeout_s,
                                    retry=RetryPolicy(max_attempts=max_attempts)))
    lessons, meta = distill_lessons(run_dirs, client, library=library, max_lessons=max_lessons, max_episodes=max_episodes)
    write_lessons(out, lessons, meta)
    return meta


def register(app: typer.Typer) -> None:
    """Add the `experience` command group."""
    group = typer.Typer(help="Prior-task experience: lessons distilled from execution logs.", no_args_is_help=True)

    @group.command("distill")
    def distill_cmd(
        run_dir: list[Path] = typer.Argument(..., help="Run directories of training tasks (episodes.jsonl)."),
        model: str = typer.Option(..., help="Model string, e.g. openai:gpt-4o."),
        out: Path = typer.Option(..., help="Lessons file to write (Markdown)."),
        library: str = typer.Option("task", help="Skill library the logs used (task | generic)."),
        max_lessons: int = typer.Option(12, min=1, max=50, help="Lessons to ask for at most."),
        max_episodes: int = typer.Option(40, min=1, help="Episodes to include at most (lowest scores first)."),
        base_url: str = typer.Option(None, help="Endpoint override for the provider."),
        timeout_s: float = typer.Option(120.0, help="Total seconds of one model call (connect, reads, retries)."),
    ) -> None:
        """Ask a model for task-independent lessons from the runs' execution logs."""
        try:
            meta = distill_command(list(run_dir), model, out, library=library, max_lessons=max_lessons,
                                   max_episodes=max_episodes, base_url=base_url, timeout_s=timeout_s)
        except (ExperienceError, RunDirError, LLMError, ValueError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        typer.echo(json.dumps({"out": str(out), **meta}))

    app.add_typer(group, name="experience")
