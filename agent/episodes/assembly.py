"""An assembly episode: a scene in a simulator, programs run in the sandbox against the skill RPC,
feedback after each program, and the evaluator's scores at the end.

The sandbox child holds no simulator object; it reaches the world only through the skills of the
chosen library, bound here to a SkillContext in this (the simulator's) process.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from agent.agents import make_agent
from agent.agents.base import ProgramWritingAgent, ScriptedAssemblyAgent
from agent.agents.registry import is_privileged
from agent.agents.views import AssemblyView, Budgets, PrivilegedAssemblyView
from agent.config import SafetyNetTripped
from agent.episodes.final_views import capture_final_views
from agent.episodes.job import EpisodeError, EpisodeJob, now_iso
from agent.episodes.modes import ModeRunner
from agent.episodes.placements import PlacementWatch
from agent.episodes.progress import report
from agent.llm.deadline import episode_deadline
from agent.sandbox import Sandbox, SandboxLimits, SandboxResult, SkillServer
from evaluator.episode import score_episode
from jarvis_sim.backends.base import Backend
from jarvis_sim.backends.registry import make_backend
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.provenance import PlannerInfo
from jarvis_sim.provenance import collect as collect_provenance
from jarvis_sim.records import EpisodeRecord, RoundRecord, SkillCallRecord, Timings, TokenAccount
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.variation import seeded_scene
from skills.context import SkillContext
from skills.errors import BudgetExceeded
from skills.libraries import bind
from skills.motion import MotionPlanner
from skills.planners.registry import make_planner
from skills.stored import StoredBytes

SIM_BUDGET_FACTOR = 3.0  # the episode stops at 3x the task's time budget; the penalty starts at 1x


class AssemblyEpisode:
    """One assembly task loaded in a backend, driven program by program."""

    def __init__(self, job: EpisodeJob, task: TaskSpec, backend: Backend, episode_dir: Path,
                 sandbox: Sandbox | None = None):
        # The scene of the episode's seed: where its loose bricks lie, its distractors (seed 0: the task itself).
        task = seeded_scene(task, job.agent.seed)
        self.job, self.task, self.backend, self.dir = job, task, backend, episode_dir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.started, self.t0 = now_iso(), time.perf_counter()
        self.progress = job.progress
        report(self.progress, "loading", rounds_total=job.budget.rounds, steps_total=len(task.manual_steps),
               steps_done=0)
        motion: MotionPlanner | None = None
        remote: Any = backend if hasattr(backend, "invoke_skill") else None  # jarvis_sim/backends/ros/client.py: RosBackend
        if remote is not None:  # the skills run next to a remote simulator, with the planner named here
            remote.planner = job.agent.planner
            remote.load(task, seed=job.agent.seed)
            self.planner: PlannerInfo | None = remote.planner_info
        else:
            motion = make_planner(job.agent.planner)
            self.planner = motion.describe()
            backend.load(task, seed=job.agent.seed)
        self.sim_start = backend.sim_time_s
        budget = job.budget
        max_sim = budget.sim_s if budget.sim_s is not None else task.time_budget_s * SIM_BUDGET_FACTOR
        # One byte budget for everything agent-made the record keeps (skill traffic, output, answers).
        self.stored = StoredBytes(budget.record_bytes)
        self.ctx = SkillContext(
            backend=backend, workspace=task.workspace, max_calls=budget.skill_calls,
            max_sim_s=self.sim_start + max_sim, perturbations=list(task.perturbations),
            image_sink=self._captured_image, motion=motion, stored=self.stored,
        )
        if job.agent.perception == "camera":
            from skills.sensor import SensorModel

            self.ctx.sensor, self.ctx.sensor_rng = SensorModel(), np.random.default_rng(job.agent.seed)
        self.methods = bind(job.agent.library, self.ctx)
        # Wall clock is a safety net only (agent.config.Budget): generous, scaled to the simulated budget.
        self.program_net_s = budget.program_net_s(max_sim)
        self.sandbox = sandbox or Sandbox(SandboxLimits(wall_s=self.program_net_s, max_calls=budget.skill_calls))
        self._own_sandbox = sandbox is None
        self.rounds: list[RoundRecord] = []
        self.tokens = TokenAccount()
        self._images = 0
        self._captured = 0
        self.finished: EpisodeRecord | None = None
        report(self.progress, "thinking", round=1, sim_time_s=0.0)

    # --- what the agent sees ---------------------------------------------------------------------
    def _save_image(self, kind: str, image: np.ndarray) -> str:
        from PIL import Image

        self._images += 1
        name = f"obs_{self._images:03d}_{kind}.png"
        if kind == "depth":
            mm = np.clip(image * 1000.0, 0, 65535).astype(np.uint16)  # depth in mm as 16-bit PNG
            Image.fromarray(mm).save(self.dir / name)
        else:
            Image.fromarray(image).save(self.dir / name)
        return name

    def _captured_image(self, kind: str, image: np.ndarray) -> str:
        # Images a program asks for are the only ones it can multiply: they count against Budget.images.
        if self._captured >= self.job.budget.images:
            raise BudgetExceeded(f"the episode's image budget ({self.job.budget.images} captured images) is spent")
        self._captured += 1
        return self._save_image(kind, image)

    def observation_image(self) -> str:
        """Render the top camera's RGB now; returns the artifact name (relative to the episode dir)."""
        frame = self.backend.render(self.ctx.camera, rgb=True, depth=False, segmentation=False)
        assert frame.rgb is not None
        return self._save_image("rgb", frame.rgb)

    def manual_images(self, style: str | None = None) -> list[Path]:
        """The task's manual pages (rendered once per task and style, then cached)."""
        from jarvis_sim.manuals import render_manual

        return [Path(p) for p in render_manual(self.task, style or self.job.agent.manual_style)]

    def api_text(self) -> str:
        """The skill library's API section for the prompt."""
        from skills.libraries import api_text

        return api_text(self.job.agent.library)

    # --- acting ----------------------------------------------------------------------------------
    def run_program(self, code: str, *, kind: str = "attempt", prompt_text: str = "", response: str = "",
                    prompt_images: list[str] | None = None, tokens_in: int = 0, tokens_out: int = 0,
                    cost_usd: float = 0.0, pause_after_placement: bool = False) -> RoundRecord:
        """Run one program in the sandbox; returns the round's record (also kept in self.rounds).

        With `pause_after_placement` the program stops (outcome 'paused') right after its first
        pick-and-place operation, so the agent reflects after each one.
        """
        if self.finished is not None:
            raise EpisodeError("the episode is finished; no more programs")
        t0 = time.perf_counter()
        first_call = len(self.ctx.calls)
        watch = PlacementWatch(self.backend, pause=pause_after_placement)
        limits = self.sandbox.limits
        server = SkillServer(self.methods, max_calls=limits.max_calls, max_message_bytes=limits.max_message_bytes,
                             max_argument_bytes=limits.max_argument_bytes, pause_after=watch.pause_reason)
        previous = self.ctx.on_call

        def on_call(call: SkillCallRecord) -> None:
            watch.on_call(call)
            if self.progress is not None:
                self.progress.skill_called()
            if previous is not None:
                previous(call)

        self.ctx.on_call = on_call
        report(self.progress, "executing", round=len(self.rounds) + 1)
        # A program gets its own wall-clock safety net, but never more than what is left of the episode's.
        budget = self.job.budget
        net = self.program_net_s
        if budget.wall_s is not None:
            net = min(net, budget.wall_s - (t0 - self.t0))
        try:
            result = self.sandbox.run(code, server, wall_s=net)
        finally:
            self.ctx.on_call = previous
        calls = self.ctx.calls[first_call:]
        record = RoundRecord(
            index=len(self.rounds), kind=kind, prompt_text=prompt_text, prompt_images=prompt_images or [],
            response=self.stored.keep_text(response), code=code, outcome=result.outcome, outcome_line=result.line,
            feedback=feedback_text(result, calls), stdout=self.stored.keep_text(result.stdout), skill_calls=list(calls),
            observation_images=[self.observation_image()], tokens_in=tokens_in, tokens_out=tokens_out,
            cost_usd=cost_usd, wall_s=time.perf_counter() - t0,
            # The state after each round lets reports score every reflection round (R1..Rk).
            final_state=self.backend.world_state(), sim_time_s=self.backend.sim_time_s - self.sim_start,
            placements=watch.placements,
        )
        self.rounds.append(record)
        self.tokens.input += tokens_in
        self.tokens.output += tokens_out
        self.tokens.cost_usd += cost_usd
        self._round_done(record)
        if result.outcome == "timeout" and result.error_kind == "wall_clock":
            # The machine, not the agent, ran out: the round stays in the record, the episode is not scored.
            raise SafetyNetTripped(
                f"the program's wall-clock safety net ({net:g} s) tripped at {record.sim_time_s:.1f} s of simulated "
                f"time in round {record.index + 1}: the machine was too slow or the simulator hung; raise "
                "budget.program_wall_s (or budget.wall_s) on a machine this slow")
        return record

    def _round_done(self, record: RoundRecord) -> None:
        """Report a finished round: rounds and (where tracked) manual steps done, back to the agent's turn."""
        if self.progress is None:
            return
        fields: dict[str, Any] = {"rounds_done": len(self.rounds), "round": len(self.rounds) + 1,
                                  "sim_time_s": round(self.backend.sim_time_s - self.sim_start, 3)}
        if self.progress.track_steps and record.final_state is not None:
            fields["steps_done"] = steps_done(self.task, record.final_state, fields["sim_time_s"])
        self.progress.phase("thinking", **fields)

    def record_round(self, record: RoundRecord) -> None:
        """Keep a round that ran no program (an answer without code)."""
        record.index = len(self.rounds)
        record.response = self.stored.keep_text(record.response)
        self.rounds.append(record)
        report(self.progress, "thinking", rounds_done=len(self.rounds), round=len(self.rounds) + 1)

    def run_program_public(self, code: str) -> dict[str, Any]:
        """Run a program for an external agent; returns feedback and the new observation's URL path."""
        r = self.run_program(code, kind="external")
        return {
            "round": r.index, "outcome": r.outcome, "line": r.outcome_line, "feedback": r.feedback,
            "stdout": r.stdout, "skill_calls": [c.model_dump() for c in r.skill_calls],
            "observation": f"/v1/episodes/{self.job.episode_id}/artifacts/{r.observation_images[0]}",
            "sim_time_s": round(self.backend.sim_time_s - self.sim_start, 3),
        }

    # --- privileged ------------------------------------------------------------------------------
    def ground_truth_task(self) -> TaskSpec:
        """The full TaskSpec, targets included: for the harness's own judgements, never handed to an agent."""
        return self.task

    def view(self, privileged: bool) -> AssemblyView:
        """What the agent is given: the public task, manual, API, budgets, observations; the target only if
        the agent is registered as privileged."""
        budget = self.job.budget
        common: dict[str, Any] = dict(
            task_id=self.task.id, public_task=self.task.public_view(), library=self.job.agent.library,
            api=self.api_text(), episode_dir=self.dir, manual_images=self.manual_images,
            observe=self.observation_image,
            budgets=Budgets(rounds=budget.rounds, skill_calls=budget.skill_calls, wall_s=budget.wall_s,
                            sim_s=self.ctx.max_sim_s - self.sim_start if self.ctx.max_sim_s is not None else 0.0),
        )
        return PrivilegedAssemblyView(**common, target=self.task) if privileged else AssemblyView(**common)

    def drive(self, agent: ProgramWritingAgent | ScriptedAssemblyAgent) -> None:
        """Run the agent's programs: the paper's modes for a program writer, one after another for a script."""
        view = self.view(privileged=is_privileged(self.job.agent.name))
        if isinstance(agent, ProgramWritingAgent):
            writer = agent.program_writer(view)
            try:
                ModeRunner(self, writer, self.job.agent).run()
            finally:
                # The episode's tally is the model's own account: every answer, cached ones and retries included.
                self.tokens = writer.usage()
            return
        for program in agent.assembly_programs(view):
            self.run_program(program, kind="attempt", response=program)

    # --- ending ----------------------------------------------------------------------------------
    def finish(self, status: str = "done", error: str | None = None, infrastructure: bool = False) -> EpisodeRecord:
        """Score the final ground truth and build the record (idempotent). An infrastructure failure (a safety
        net tripped) is recorded as failed and left unscored."""
        if self.finished is not None:
            return self.finished
        report(self.progress, "scoring")
        state = self.backend.world_state()
        elapsed = self.backend.sim_time_s - self.sim_start
        record = EpisodeRecord(
            episode_id=self.job.episode_id, task_id=self.task.id, family="lego", suite=self.job.suite,
            difficulty=self.task.difficulty, agent=self.job.agent.model_dump(), seed=self.job.agent.seed,
            status=status,  # type: ignore[arg-type]
            error=error, rounds=self.rounds, final_state=state,
            timings=Timings(started_at=self.started, finished_at=now_iso(), wall_s=time.perf_counter() - self.t0,
                            sim_time_s=elapsed, budget_s=self.task.time_budget_s),
            tokens=self.tokens, provenance=collect_provenance(self.backend), planner=self.planner,
            final_views=capture_final_views(self.backend, self.ctx.camera, self.task, state, self.dir),
            infrastructure_failure=infrastructure,
        )
        # The same code path as offline re-scoring (jarvis score RUN_DIR).
        self.finished = record if infrastructure else score_episode(record, self.task)
        return self.finished

    def close(self) -> None:
        """Free the sandbox (the backend belongs to the worker and is reused)."""
        if self._own_sandbox:
            self.sandbox.close()


def steps_done(task: TaskSpec, state: WorldState, elapsed_s: float) -> int:
    """Manual steps whose every brick the evaluator finds complete and valid in `state`."""
    from evaluator.assembly import score_assembly

    ok = {b.target_id for b in score_assembly(task, state, elapsed_s).bricks if b.complete and b.valid}
    return sum(all(i in ok for i in step.brick_ids) for step in task.manual_steps)


def feedback_text(result: SandboxResult, calls: list[SkillCallRecord]) -> str:
    """Structured execution feedback for the agent: outcome, where it stopped, each call's result."""
    lines = [f"outcome: {result.outcome}" + (f" at line {result.line}" if result.line else "")]
    if result.message:
        lines.append(f"message: {result.message}")
    for c in calls[-30:]:
        args = ", ".join(f"{k}={v!r}" for k, v in c.args.items())
        lines.append(f"- {c.name}({args}) -> " + ("ok" if c.ok else f"{c.error_kind}: {c.error}"))
    if len(calls) > 30:
        lines.insert(2, f"({len(calls) - 30} earlier calls not shown)")
    return "\n".join(lines)


def run_assembly_episode(job: EpisodeJob, task: TaskSpec, episode_dir: Path, runtime: Any) -> EpisodeRecord:
    """Run a whole assembly episode with a built-in agent."""
    agent = make_agent(job.agent)
    if not isinstance(agent, ProgramWritingAgent | ScriptedAssemblyAgent):
        raise EpisodeError(f"agent {job.agent.name!r} cannot run assembly tasks")
    # A worker's runtime owns a reused simulator; without one, this call starts and frees its own.
    backend = runtime.backend() if runtime is not None else make_backend("mujoco")
    episode = AssemblyEpisode(job, task, backend, episode_dir, sandbox=getattr(runtime, "sandbox", None))
    try:
        # The wall budget also ends a model call in flight (agent.llm.deadline), not only between rounds.
        with episode_deadline(job.budget.wall_s, time.perf_counter() - episode.t0):
            episode.drive(agent)
        return episode.finish()
    except SafetyNetTripped as exc:
        return episode.finish(status="failed", error=f"infrastructure failure: {exc}", infrastructure=True)
    except Exception as exc:
        return episode.finish(status="failed", error=f"{type(exc).__name__}: {exc}")
    finally:
        episode.close()
        if runtime is None:
            backend.close()


def open_interactive_assembly(job: EpisodeJob, task: TaskSpec, episode_dir: Path, backend_name: str) -> tuple[Any, dict[str, Any]]:
    """Start an interactive episode with its own simulator; returns it and what the agent sees first."""
    backend = make_backend(backend_name)
    episode = AssemblyEpisode(job, task, backend, episode_dir)
    first = {
        "task": task.public_view(),
        "api": episode.api_text(),
        "manual_images": [f"/v1/tasks/{task.id}/manual/{k}.png" for k in range(1, len(task.manual_steps) + 1)],
        "observation": f"/v1/episodes/{job.episode_id}/artifacts/{episode.observation_image()}",
    }
    return _InteractiveAssembly(episode, backend), first


class _InteractiveAssembly:
    """An interactive episode owning its backend (freed on close)."""

    def __init__(self, episode: AssemblyEpisode, backend: Backend):
        self.episode, self.backend = episode, backend

    def run_program_public(self, code: str) -> dict[str, Any]:
        return self.episode.run_program_public(code)

    def finish(self) -> EpisodeRecord:
        return self.episode.finish()

    def fail_infrastructure(self, message: str) -> EpisodeRecord:
        return self.episode.finish(status="failed", error=f"infrastructure failure: {message}", infrastructure=True)

    def close(self) -> None:
        self.episode.close()
        self.backend.close()

