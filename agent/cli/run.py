"""`jarvis run` (a suite headless, resumable, with a live progress bar) and `jarvis episode` (one task)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from tqdm import tqdm

from agent.config import AgentConfig, Budget
from agent.runs.batch import run_batch
from agent.runs.progress import RunProgress
from agent.runs.run_store import RunConfig, RunDirError
from agent.runs.style_study import run_style_study, study_styles
from jarvis_sim.manuals.styles import UnknownStyleError
from jarvis_sim.records import EpisodeRecord
from jarvis_sim.tasks.registry import UnknownKeyError
from jarvis_sim.tasks.user_tasks import TaskFileError, read_task_file


def agent_config_from_options(**options: Any) -> AgentConfig:
    """An AgentConfig from CLI options, dropping the ones left unset; `llm_*` options fill AgentConfig.llm."""
    values = {k: v for k, v in options.items() if v is not None}
    llm = {k.removeprefix("llm_"): values.pop(k) for k in list(values) if k.startswith("llm_")}
    if llm:
        values["llm"] = llm
    return AgentConfig.model_validate(values)


def budget_from_options(**options: Any) -> Budget:
    """A Budget from CLI options, dropping the ones left unset."""
    return Budget.model_validate({k: v for k, v in options.items() if v is not None})


def run_command(config: RunConfig, out: Path, workers: int, executor: str, address: str | None,
                floors: bool = True) -> dict[str, Any]:
    """Run a batch with a progress bar, then the floors (cached; unless `floors` is False), then write summary.json
    and report.md; returns the summary."""
    bar: tqdm[Any] | None = None

    def on_start(progress: RunProgress) -> None:
        # tqdm's ETA counts from `initial`, so episodes finished before a resume do not inflate the rate.
        nonlocal bar
        bar = tqdm(total=progress.total, initial=progress.skipped, unit="ep", dynamic_ncols=True,
                   desc=config.suite or "tasks")
        bar.set_postfix(done=progress.done, failed=progress.failed, skipped=progress.skipped)

    def on_record(record: EpisodeRecord, progress: RunProgress) -> None:
        assert bar is not None
        bar.update(1)
        bar.set_postfix(done=progress.done, failed=progress.failed, mean_score=f"{progress.mean_score:.1f}")

    try:
        run, _progress = run_batch(config, out, workers=workers, executor=executor,  # type: ignore[arg-type]
                                   ray_address=address, on_record=on_record, on_start=on_start)
    finally:
        if bar is not None:
            bar.close()
    from agent.runs.floors import needs_floors, run_floors
    from agent.runs.reporting import finish_run

    if floors and needs_floors(config):
        run_floors(config, workers=workers)
    return finish_run(run)


def register(app: typer.Typer) -> None:
    """Add `run` and `episode`."""

    @app.command("run")
    def run_cmd(
        suite: str = typer.Option(None, help="Suite name, e.g. jarvis-mini, jarvis-v1, vsp-maze-main, gamibench."),
        task: list[str] = typer.Option(None, help="Task id (repeatable) instead of a suite."),
        tasks_file: Path = typer.Option(None, "--tasks-file", exists=True, dir_okay=False,
                                        help="Your own TaskSpecs (JSON or JSONL, e.g. from `jarvis tasks from-ldraw`)."),
        agent: str = typer.Option("oracle", help="Agent name (oracle, llm, replay, scripted, random)."),
        model: str = typer.Option(None, help="LLM model string, e.g. openai:gpt-4o."),
        mode: str = typer.Option(None, help="non_reflective | reflective | reflection_rounds."),
        library: str = typer.Option(None, help="task | generic skill library."),
        seed: int = typer.Option(0, help="Seed of the scenes and the agent."),
        reflection_rounds: int = typer.Option(None, help="R1..Rk retries after a failed attempt."),
        reflect_after: str = typer.Option(
            None, help="Reflective mode: pause after each placement (the paper's, default) or each program."
        ),
        rounds: int = typer.Option(None, help="Reasoning rounds (model calls) per episode at most; default 8."),
        manual_style: str = typer.Option(None, help="Manual style: booklet, shaded, photo; 'all' or a comma list "
                                         "runs the style-robustness study (one run per style in OUT/<style>)."),
        replay_file: str = typer.Option(None, help="Recorded responses for the replay agent."),
        observation: str = typer.Option(None, help="What the llm agent sees: rgb | rgbd | rgbd_3d."),
        perception: str = typer.Option(None, help="How observe() sees: ideal (renderer masks) | camera (sensor "
                                       "noise, no instance ids)."),
        planner: str = typer.Option(None, help="Motion planner of the skills: cartesian (default) | ompl | moveit | "
                                    "cumotion (recorded in every episode)."),
        experience_file: str = typer.Option(None, help="Lessons file (jarvis experience distill) for the llm agent."),
        llm_base_url: str = typer.Option(None, help="Endpoint override for the model provider."),
        llm_timeout_s: float = typer.Option(None, help="Total seconds of one model call (connect, reads, retries)."),
        llm_cache_dir: str = typer.Option(None, help="Response cache directory (same request, same answer)."),
        workers: int = typer.Option(1, help="Worker processes (0: run in this process)."),
        executor: str = typer.Option("local", help="local | ray."),
        address: str = typer.Option(None, help="Ray cluster address (executor ray)."),
        backend: str = typer.Option("mujoco", help="Simulator backend."),
        out: Path = typer.Option(..., help="Run directory (resumed if it exists with the same config)."),
        floors: bool = typer.Option(True, help="Also run (once, cached) the null and shuffle floors the report "
                                    "shows beside an assembly run."),
    ) -> None:
        """Run a suite or task list headless and write the run directory with its report."""
        try:
            cfg = RunConfig(
                suite=suite,
                task_ids=list(task or []),
                tasks=read_task_file(tasks_file) if tasks_file is not None else [],
                agent=agent_config_from_options(
                    name=agent, model=model, mode=mode, library=library, seed=seed,
                    reflection_rounds=reflection_rounds, reflect_after=reflect_after, manual_style=manual_style,
                    replay_file=replay_file, observation=observation, experience_file=experience_file,
                    llm_base_url=llm_base_url, llm_timeout_s=llm_timeout_s, llm_cache_dir=llm_cache_dir,
                    perception=perception, planner=planner,
                ),
                budget=budget_from_options(rounds=rounds),
                backend=backend,
            )
            if executor not in ("local", "ray"):
                raise typer.BadParameter(f"executor must be local or ray, not {executor!r}")
            if backend == "ros" and (workers > 1 or executor == "ray"):
                # Every worker would reach the same bridge (JARVIS_ROS_NAMESPACE), which hosts one scene.
                raise typer.BadParameter("--backend ros drives one bridge, one episode at a time: use --workers 0 "
                                         "or 1 with the local executor (one bridge per namespace per run)")
            styles = study_styles(manual_style) if manual_style else None
            if styles is not None:
                table = run_style_study(cfg, styles, out,
                                        lambda c, d: run_command(c, d, workers, executor, address, floors))
                typer.echo(json.dumps({s: row["soft_score"] for s, row in table["styles"].items()}))
                typer.echo(f"report: {out / 'report.md'}")
                return
            summary = run_command(cfg, out, workers, executor, address, floors)
        except (RunDirError, UnknownKeyError, TaskFileError, ValueError, RuntimeError, UnknownStyleError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        except OSError as exc:
            typer.echo(f"error: cannot write the run directory ({exc}); every episode recorded so far is kept: "
                       "rerun the same command to resume", err=True)
            raise typer.Exit(3) from None
        typer.echo(json.dumps({k: summary[k] for k in ("n_episodes", "soft_score") if k in summary}))
        typer.echo(f"report: {out / 'report.md'}")

    @app.command("episode")
    def episode_cmd(
        task: str = typer.Option(None, help="Task id (or --task-file)."),
        task_file: Path = typer.Option(None, "--task-file", exists=True, dir_okay=False,
                                       help="A TaskSpec file (JSON, or JSONL holding one task) instead of --task."),
        agent: str = typer.Option("oracle"),
        model: str = typer.Option(None),
        mode: str = typer.Option(None),
        library: str = typer.Option(None),
        seed: int = typer.Option(0),
        replay_file: str = typer.Option(None),
        reflection_rounds: int = typer.Option(None, help="R1..Rk retries after a failed attempt."),
        reflect_after: str = typer.Option(None, help="Reflective mode: placement (default) | program."),
        rounds: int = typer.Option(None, help="Reasoning rounds (model calls) at most; default 8."),
        manual_style: str = typer.Option(None, help="Manual style: booklet, shaded, photo."),
        observation: str = typer.Option(None, help="What the llm agent sees: rgb | rgbd | rgbd_3d."),
        perception: str = typer.Option(None, help="How observe() sees: ideal (renderer masks) | camera (sensor "
                                       "noise, no instance ids)."),
        planner: str = typer.Option(None, help="Motion planner of the skills: cartesian (default) | ompl | moveit | "
                                    "cumotion (recorded in every episode)."),
        experience_file: str = typer.Option(None, help="Lessons file (jarvis experience distill) for the llm agent."),
        llm_base_url: str = typer.Option(None, help="Endpoint override for the model provider."),
        llm_timeout_s: float = typer.Option(None, help="Total seconds of one model call (connect, reads, retries)."),
        llm_cache_dir: str = typer.Option(None, help="Response cache directory (same request, same answer)."),
        out: Path = typer.Option(..., help="Run directory to write the episode into."),
    ) -> None:
        """Run one episode and print its scores."""
        try:
            if (task is None) == (task_file is None):
                raise ValueError("give exactly one of --task ID and --task-file FILE")
            own = read_task_file(task_file) if task_file is not None else []
            if len(own) > 1:
                raise ValueError(f"{task_file} holds {len(own)} tasks; an episode runs one (use jarvis run "
                                 "--tasks-file for several)")
            cfg = RunConfig(
                task_ids=[task] if task is not None else [],
                tasks=own,
                agent=agent_config_from_options(
                    name=agent, model=model, mode=mode, library=library, seed=seed, replay_file=replay_file,
                    reflection_rounds=reflection_rounds, reflect_after=reflect_after, manual_style=manual_style,
                    observation=observation, experience_file=experience_file, llm_base_url=llm_base_url,
                    llm_timeout_s=llm_timeout_s, llm_cache_dir=llm_cache_dir,
                    perception=perception, planner=planner,
                ),
                budget=budget_from_options(rounds=rounds),
            )
            run, _ = run_batch(cfg, out, workers=0)
        except (RunDirError, UnknownKeyError, TaskFileError, ValueError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        last = run.records()[-1]
        typer.echo(json.dumps({"episode_id": last.episode_id, "status": last.status, "error": last.error, "scores": last.scores}))
        if last.status == "failed":  # scripts must see a failed episode (unknown agent, missing key, crash)
            raise typer.Exit(1)
