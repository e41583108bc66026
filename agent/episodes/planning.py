"""A planning episode (JARVIS Table 4): the manual and the initial view in, a plan out; nothing moves.

The scene is loaded in the worker's simulator only to look at it the way an assembly episode's first
prompt does (RGB, RGB-D, or RGB-D with the skills' perceived 3D brick descriptors, as the planning
task id says). The agent answers once; the answer is kept verbatim and scored by the evaluator's
plan scorer (evaluator.plan_answers), the same code path as offline re-scoring, so a malformed
answer becomes a counted parse failure in the record, never an exception.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from agent.agents import make_agent
from agent.agents.base import AnswerTurn, PlanningAgent
from agent.agents.registry import is_privileged
from agent.agents.views import PlanningView, PrivilegedPlanningView
from agent.episodes.job import EpisodeError, EpisodeJob, now_iso
from agent.episodes.observation import camera_calibration, capture, descriptor_table
from agent.episodes.progress import report
from agent.llm.deadline import episode_deadline
from agent.llm.prompts import Prompt, image_marker, load_template
from evaluator.episode import score_episode
from jarvis_sim.backends.base import Backend
from jarvis_sim.backends.registry import make_backend
from jarvis_sim.lego.catalog import part
from jarvis_sim.lego.colors import color
from jarvis_sim.provenance import collect as collect_provenance
from jarvis_sim.records import EpisodeRecord, RoundRecord, Timings, TokenAccount
from jarvis_sim.tasks.planning_family import PlanningObservation, parse_planning_id
from jarvis_sim.tasks.spec import TaskSpec
from skills.context import SkillContext
from skills.stored import StoredBytes

_SETTING = {"rgb": "colour image", "rgbd": "colour and depth images",
            "rgbd_3d": "colour and depth images, and the perceived 3D brick descriptors"}


def _summary(view: dict[str, Any]) -> str:
    """The public view in words, without the execution budget (nothing is executed)."""
    where = "on a baseplate" if view["baseplate"] else "on the table"
    return (f"Difficulty: {view['difficulty']}. The scene starts with {view['n_initial_bricks']} brick(s) already "
            f"built {where}. The manual adds {len(view['action_bricks'])} brick(s) in {len(view['manual_steps'])} "
            "step(s); plan where each one goes.")


class PlanningEpisode:
    """One planning task shown in a simulator: what the agent sees, and the ground truth for the oracle."""

    def __init__(self, job: EpisodeJob, task: TaskSpec, backend: Backend, episode_dir: Path):
        self.job, self.task, self.backend, self.dir = job, task, backend, episode_dir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.observation: PlanningObservation
        self.observation, self.lego_task_id = parse_planning_id(task.id)
        backend.load(task, seed=job.agent.seed)
        # The skills' context only for the camera and perception; no skill is ever called.
        self.ctx = SkillContext(backend=backend, workspace=task.workspace)
        self.system_template = load_template("planning_system")
        self.task_template = load_template("planning_task")
        self.shown: Prompt | None = None  # the prompt the agent was given, if it asked for one

    def ground_truth_task(self) -> TaskSpec:
        """The full TaskSpec, targets included: for the harness's own judgements, never handed to an agent."""
        return self.task

    def view(self, privileged: bool) -> PlanningView:
        """What the agent is given: the episode's one prompt; the target only if it is registered as privileged."""
        if privileged:
            return PrivilegedPlanningView(task_id=self.task.id, episode_dir=self.dir, prompt=self.prompt,
                                          target=self.task)
        return PlanningView(task_id=self.task.id, episode_dir=self.dir, prompt=self.prompt)

    def manual_pages(self) -> list[str]:
        """The manual pages copied into the episode directory (rendered under the LEGO task's id, cached)."""
        from jarvis_sim.manuals import render_manual

        lego = self.task.model_copy(update={"id": self.lego_task_id})
        names = []
        for k, src in enumerate(render_manual(lego, self.job.agent.manual_style), 1):
            name = f"manual_{k:02d}{Path(src).suffix or '.png'}"
            shutil.copyfile(src, self.dir / name)
            names.append(name)
        return names

    def prompt(self) -> Prompt:
        """The one prompt of the episode: manual, initial view in the task's setting, answer format."""
        view = self.task.public_view()  # never the targets
        scene = capture(self, self.observation, "initial")
        parts = [f"{caption}\n{image_marker(name)}" for caption, name in scene.images]
        if scene.descriptors is not None:
            parts.append("Bricks perceived in this view (x_mm, y_mm: centre; top_z_mm: top face; world frame):\n"
                         + descriptor_table(scene.descriptors))
        pages = self.manual_pages()
        ws = self.task.workspace
        ox, oy, oz = (c * 1000 for c in ws.lattice_origin)
        bricks = "\n".join(
            f"- {b['id']}: part {b['part']} ({part(str(b['part'])).name.lower()}), {color(int(b['color'])).name}"  # type: ignore[call-overload]
            for b in view["action_bricks"]  # type: ignore[attr-defined]
        )
        user = self.task_template.render(
            task_id=self.task.id, task_summary=_summary(view), brick_list=bricks,
            origin_x_mm=f"{ox:.1f}", origin_y_mm=f"{oy:.1f}", origin_z_mm=f"{oz:.1f}",
            staging_x_mm=f"{ws.staging_min[0] * 1000:.0f} to {ws.staging_max[0] * 1000:.0f}",
            staging_y_mm=f"{ws.staging_min[1] * 1000:.0f} to {ws.staging_max[1] * 1000:.0f}",
            camera_calibration=camera_calibration(self) if self.observation != "rgb" else "",
            manual_intro=f"The manual has {len(pages)} page(s); the last page shows the finished structure. "
            "Bricks added at a step are marked on its page.",
            manual_pages="\n".join(f"Page {k} of {len(pages)}:\n{image_marker(n)}" for k, n in enumerate(pages, 1)),
            observation_kind=_SETTING[self.observation], observation="\n".join(parts),
        )
        self.shown = Prompt(system=self.system_template.render(), user=user,
                            versions=[self.system_template.tag, self.task_template.tag], base_dir=self.dir)
        return self.shown

    def record(self, turn: AnswerTurn, started: str, wall_s: float) -> EpisodeRecord:
        """The scored record of the agent's answer."""
        shown = self.shown
        record = EpisodeRecord(
            episode_id=self.job.episode_id, task_id=self.task.id, family="planning", suite=self.job.suite,
            difficulty=self.task.difficulty, agent=self.job.agent.model_dump(), seed=self.job.agent.seed,
            rounds=[RoundRecord(
                index=0, kind="plan", prompt_text=shown.record_text() if shown else turn.prompt_text,
                prompt_images=shown.image_paths() if shown else [],
                # `answer` keeps the whole plan (offline re-scoring reads it); the round's copy is bounded.
                response=StoredBytes(self.job.budget.record_bytes).keep_text(turn.text), tokens_in=turn.tokens_in,
                tokens_out=turn.tokens_out, cost_usd=turn.cost_usd, wall_s=wall_s,
                prompt_version=shown.version if shown else "",
            )],
            answer=turn.text,
            timings=Timings(started_at=started, finished_at=now_iso(), wall_s=wall_s),
            tokens=TokenAccount(input=turn.tokens_in, output=turn.tokens_out, cost_usd=turn.cost_usd, requests=1,
                                cached=int(turn.cached)),
            provenance=collect_provenance(self.backend),
        )
        scored = score_episode(record, self.task)
        valid = scored.scores.get("plan_valid", 0.0) >= 100.0
        scored.rounds[0].outcome = "ok" if valid else "error"
        scored.rounds[0].feedback = "" if valid else f"parse error: {scored.score_details.get('parse_error')}"
        return scored


def run_planning_episode(job: EpisodeJob, task: TaskSpec, episode_dir: Path, runtime: Any) -> EpisodeRecord:
    """Show the task, ask the agent for its plan once, score the plan."""
    agent = make_agent(job.agent)
    if not isinstance(agent, PlanningAgent):
        raise EpisodeError(f"agent {job.agent.name!r} cannot answer planning tasks")
    started, t0 = now_iso(), time.perf_counter()
    backend = runtime.backend() if runtime is not None else make_backend("mujoco")
    try:
        report(job.progress, "loading", rounds_total=1)
        episode = PlanningEpisode(job, task, backend, episode_dir)
        report(job.progress, "answering")
        with episode_deadline(job.budget.wall_s, time.perf_counter() - t0):  # ends a model call in flight
            turn = agent.plan_assembly(episode.view(privileged=is_privileged(job.agent.name)))
        report(job.progress, "scoring", rounds_done=1)
        return episode.record(turn, started, time.perf_counter() - t0)
    finally:
        if runtime is None:
            backend.close()
