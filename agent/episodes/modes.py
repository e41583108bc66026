"""The execution modes of the JARVIS paper, driving an assembly episode with a program writer (an LLM).

- non_reflective: one program from the manual and the initial observation, run to the end.
- reflective: a closed loop. After each pick-and-place operation (`reflect_after='placement'`, the
  paper's granularity and the default: the program is paused there by the skill server) or after each
  whole program (`reflect_after='program'`), the writer sees the new observation, the structured
  feedback and the execution memory, then continues, revises, corrects, or answers DONE.
- reflection_rounds: one whole-task attempt as in non_reflective; then, while the build does not match
  the manual, reflection rounds R1..Rk, each one new program from the feedback and the new view.
  The scene is NOT reset between rounds (as in the paper): each round starts from the state the
  previous one left, so a round must repair as well as continue. Whether the build matches is decided
  by the harness from ground truth (the evaluator's completion and validity) and reaches the writer as
  one bit ("the attempt did not produce the structure"), never as scores or targets.

Every mode stops when a scored budget runs out: reasoning rounds (model calls), skill calls or simulated
time. Wall time is only a safety net: a trip ends the episode as an infrastructure failure, never scored. An answer without code is recorded as a round with outcome 'no_code'; in the closed
loop the writer is told and asked again, but two such answers in a row end the episode.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any, Protocol, cast

from agent.agents.base import ProgramWriter
from agent.config import AgentConfig, SafetyNetTripped
from agent.episodes.assembly_prompts import AssemblyPrompts, PreviousProgram, ShownEpisode
from agent.episodes.job import EpisodeJob
from agent.episodes.memory import ExecutionMemory
from agent.episodes.observation import SceneView, capture, captured_images
from agent.llm.code_extract import extract_code
from agent.llm.errors import EpisodeDeadlineError
from jarvis_sim.lego.catalog import part
from jarvis_sim.lego.colors import color
from jarvis_sim.records import RoundRecord, TokenAccount
from jarvis_sim.tasks.spec import TaskSpec

MAX_NO_CODE_IN_A_ROW = 2
_DONE = re.compile(r"^\W*done\W*$", re.IGNORECASE)


class RunningEpisode(ShownEpisode, Protocol):
    """What the modes drive: an assembly episode (agent.episodes.assembly) that runs programs and keeps rounds."""

    job: EpisodeJob
    rounds: list[RoundRecord]
    tokens: TokenAccount
    t0: float

    def run_program(self, code: str, *, kind: str = "attempt", prompt_text: str = "", response: str = "",
                    prompt_images: list[str] | None = None, tokens_in: int = 0, tokens_out: int = 0,
                    cost_usd: float = 0.0, pause_after_placement: bool = False) -> RoundRecord: ...

    def record_round(self, record: RoundRecord) -> None: ...

    def ground_truth_task(self) -> TaskSpec: ...


def says_done(text: str) -> bool:
    """True when an answer (with no program) declares the build finished: a line that is just DONE."""
    return any(_DONE.match(line) for line in text.splitlines())


def build_matches_manual(episode: RunningEpisode) -> bool:
    """The harness's success signal: every target brick complete and valid, no initial brick disturbed."""
    from evaluator.assembly import score_assembly  # scipy: imported when a reflection round needs it

    state = episode.rounds[-1].final_state if episode.rounds and episode.rounds[-1].final_state else None
    if state is None:
        state = episode.backend.world_state()
    result = score_assembly(episode.ground_truth_task(), state, None)
    return all(b.complete and b.valid for b in result.bricks) and not result.disturbed


class BudgetGuard:
    """Which of the episode's budgets, if any, is spent (checked before each reasoning step)."""

    def __init__(self, episode: RunningEpisode, started: float):
        self.episode, self.started = episode, started

    def spent(self) -> str | None:
        """A reason to stop, or None; raises SafetyNetTripped past the episode's wall-clock safety net."""
        ep, budget = self.episode, self.episode.job.budget
        if len(ep.rounds) >= budget.rounds:
            return f"round budget ({budget.rounds}) spent"
        if len(ep.ctx.calls) >= ep.ctx.max_calls:
            return f"skill-call budget ({ep.ctx.max_calls}) spent"
        if budget.wall_s is not None and time.perf_counter() - self.started >= budget.wall_s:
            raise SafetyNetTripped(f"the episode's wall-clock safety net ({budget.wall_s:g} s) tripped after "
                                   f"{len(ep.rounds)} round(s): the machine or the model provider was too slow")
        if ep.ctx.max_sim_s is not None and ep.backend.sim_time_s >= ep.ctx.max_sim_s:
            return "simulated-time budget spent"
        return None


class ModeRunner:
    """Runs one assembly episode in the configured mode."""

    def __init__(self, episode: RunningEpisode, writer: ProgramWriter, config: AgentConfig,
                 on_stop: Callable[[str], None] | None = None):
        self.episode, self.writer, self.config = episode, writer, config
        self.prompts = AssemblyPrompts(
            episode, library=config.library, observation=config.observation, manual_style=config.manual_style,
            experience=writer.experience,
        )
        bricks = cast(list[dict[str, Any]], episode.task.public_view()["action_bricks"])
        sizes = set()
        for b in bricks:
            p = part(b["part"])
            sizes.add((max(p.width, p.depth), min(p.width, p.depth)))
        self.memory = ExecutionMemory({color(b["color"]).name for b in bricks}, sizes)
        self.guard = BudgetGuard(episode, episode.t0)
        self.stop_reason = ""
        self._on_stop = on_stop
        self._views = 0
        self._pause_after_placement = config.mode == "reflective" and config.reflect_after == "placement"

    # --- one step --------------------------------------------------------------------------------
    def _scene(self) -> SceneView:
        self._views += 1
        last = self.episode.rounds[-1] if self.episode.rounds else None
        # The round's own after-image is the current view: reuse it instead of rendering again.
        rgb = last.observation_images[0] if last is not None and last.observation_images else None
        view = capture(self.episode, self.config.observation, f"{self._views:03d}", rgb_name=rgb)
        if last is not None:
            view.images.extend(captured_images(self.episode, last.skill_calls))
        return view

    def step(self, kind: str, section: str, previous: PreviousProgram | None, **values: object) -> RoundRecord | None:
        """Prompt, answer, and run the program if there is one; returns the round, or None on DONE."""
        scene = self._scene()
        instructions = self.prompts.instruction(section, **values)
        if self._pause_after_placement:
            last = self.episode.rounds[-1] if self.episode.rounds else None
            tail = "paused" if last is not None and last.outcome == "paused" else "placement_granularity"
            instructions += "\n\n" + self.prompts.instruction(tail)
        if self.memory.no_code_answers and self.episode.rounds and self.episode.rounds[-1].outcome == "no_code":
            instructions += "\n\n" + self.prompts.instruction("no_code", reason=self.episode.rounds[-1].feedback)
        prompt = self.prompts.render(
            scene=scene, instructions=instructions, instruction_tag=section, memory=self.memory.summary(), previous=previous,
        )
        answer = self.writer.write(prompt)
        self.memory.note_plan(answer.text)
        extraction = extract_code(answer.text)
        common = dict(
            prompt_text=prompt.record_text(), response=answer.text, prompt_images=prompt.image_paths(),
            tokens_in=answer.tokens_in, tokens_out=answer.tokens_out, cost_usd=answer.cost_usd,
        )
        if not extraction.ok or extraction.code is None:
            if says_done(answer.text):
                return None
            self.memory.note_no_code()
            record = RoundRecord(index=0, kind=kind, outcome="no_code", feedback=extraction.message, **common)  # type: ignore[arg-type]
            record.prompt_version = prompt.version
            self.episode.record_round(record)
            self.episode.tokens.input += answer.tokens_in
            self.episode.tokens.output += answer.tokens_out
            self.episode.tokens.cost_usd += answer.cost_usd
            return record
        record = self.episode.run_program(
            extraction.code, kind=kind, pause_after_placement=self._pause_after_placement, **common  # type: ignore[arg-type]
        )
        record.prompt_version = prompt.version
        self.memory.note_round(record)
        return record

    def _stop(self, reason: str) -> None:
        self.stop_reason = reason
        if self._on_stop is not None:
            self._on_stop(reason)

    @staticmethod
    def _previous(record: RoundRecord | None) -> PreviousProgram | None:
        if record is None or record.code is None:
            return None
        return PreviousProgram(record.code, record.feedback, record.stdout)

    def _last_program(self) -> RoundRecord | None:
        for r in reversed(self.episode.rounds):
            if r.code is not None:
                return r
        return None

    # --- modes -----------------------------------------------------------------------------------
    def run(self) -> str:
        """Run the configured mode; returns why it stopped."""
        mode = self.config.mode
        try:
            if mode == "non_reflective":
                self._non_reflective()
            elif mode == "reflective":
                self._reflective()
            else:
                self._reflection_rounds()
        except EpisodeDeadlineError:  # the wall-clock net ended a model call in flight: the same trip as between rounds
            raise SafetyNetTripped(f"the episode's wall-clock safety net ({self.episode.job.budget.wall_s} s) tripped "
                                   "during a model call") from None
        return self.stop_reason

    def _non_reflective(self) -> None:
        record = self.step("attempt", "non_reflective", None)
        self._stop("agent said DONE" if record is None else "single program run")

    def _reflective(self) -> None:
        no_code_run = 0
        first = True
        while True:
            reason = self.guard.spent()
            if reason:
                self._stop(reason)
                return
            if first:
                record = self.step("attempt", "reflective_first", None)
            else:
                record = self.step(
                    "reflective_step", "reflective_next", self._previous(self._last_program()),
                    round=len(self.episode.rounds) + 1, max_rounds=self.episode.job.budget.rounds,
                )
            first = False
            if record is None:
                self._stop("agent said DONE")
                return
            no_code_run = no_code_run + 1 if record.outcome == "no_code" else 0
            if no_code_run >= MAX_NO_CODE_IN_A_ROW:
                self._stop(f"{no_code_run} answers in a row without a program")
                return

    def _reflection_rounds(self) -> None:
        record = self.step("attempt", "non_reflective", None)
        if record is None:
            self._stop("agent said DONE")
            return
        k = self.config.reflection_rounds
        for r in range(1, k + 1):
            if build_matches_manual(self.episode):
                self._stop("the build matches the manual")
                return
            reason = self.guard.spent()
            if reason:
                self._stop(reason)
                return
            record = self.step(
                "reflection", "reflection_round", self._previous(self._last_program()), reflection=r, max_reflections=k
            )
            if record is None:
                self._stop("agent said DONE")
                return
        self._stop(f"{k} reflection round(s) used" if k else "no reflection rounds configured")
