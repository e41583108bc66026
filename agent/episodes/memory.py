"""Execution memory of an episode: the plan, each program and what its skill calls did, the bricks
last observed, grasp, placement and runtime outcomes; compressed into a short, task-relevant summary
that goes into the prompt before each reasoning step (the prompt itself never grows with the rounds).

Compression: older programs shrink to one line each; the latest keeps its failures; observed bricks
are cut to those that matter to the task (in the structure, or of a colour and size the task uses).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from jarvis_sim.records import RoundRecord, SkillCallRecord

MAX_PLAN_LINES = 12
MAX_BRICKS = 30
PICK_SKILLS = ("pick",)
PLACE_SKILLS = ("place", "place_on")
OBSERVE_SKILLS = ("observe",)


@dataclass
class ProgramMemory:
    """What one program did, reduced to what later reasoning needs."""

    round_index: int
    kind: str
    outcome: str
    line: int | None
    message: str
    n_calls: int
    picks_ok: list[str] = field(default_factory=list)
    placements_ok: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # "pick(brick='p3') -> grasp_failed: ..."
    error_kinds: Counter[str] = field(default_factory=Counter)

    def one_line(self) -> str:
        """The program in one line: outcome, picks, placements, failures by kind."""
        where = f" at line {self.line}" if self.line else ""
        bits = [f"round {self.round_index + 1} ({self.kind}): {self.outcome}{where}", f"{self.n_calls} skill calls"]
        if self.picks_ok:
            bits.append(f"{len(self.picks_ok)} picks ok")
        if self.placements_ok:
            bits.append(f"{len(self.placements_ok)} placements ok")
        if self.error_kinds:
            bits.append("errors " + ", ".join(f"{k} x{n}" for k, n in sorted(self.error_kinds.items())))
        return "; ".join(bits)


def _call_text(call: SkillCallRecord) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in call.args.items())
    return f"{call.name}({args})"


def _first_line(text: str, limit: int = 200) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


class ExecutionMemory:
    """Accumulates the episode's rounds and summarises them for the next prompt."""

    def __init__(self, task_colors: set[str] | None = None, task_sizes: set[tuple[int, int]] | None = None):
        self.task_colors = task_colors or set()
        self.task_sizes = task_sizes or set()
        self.plan: list[str] = []
        self.programs: list[ProgramMemory] = []
        self.no_code_answers = 0
        self.bricks: list[dict[str, Any]] = []  # descriptors of the latest observe() that returned
        self.held: str | None = None

    # --- recording -------------------------------------------------------------------------------
    def note_plan(self, response: str) -> None:
        """Keep the latest 'PLAN:' lines of an answer (a new plan replaces the old one)."""
        lines = [ln.strip()[5:].strip() for ln in response.splitlines() if ln.strip().upper().startswith("PLAN:")]
        if lines:
            self.plan = [ln for ln in lines if ln][:MAX_PLAN_LINES]

    def note_no_code(self) -> None:
        """Count an answer that held no program."""
        self.no_code_answers += 1

    def note_round(self, record: RoundRecord) -> ProgramMemory:
        """Digest a round that ran a program."""
        mem = ProgramMemory(
            round_index=record.index, kind=record.kind, outcome=record.outcome or "error", line=record.outcome_line,
            message=_first_line(record.feedback.split("\n", 1)[1] if "\n" in record.feedback else ""),
            n_calls=len(record.skill_calls),
        )
        for call in record.skill_calls:
            if call.ok:
                if call.name in PICK_SKILLS:
                    mem.picks_ok.append(str(call.args.get("brick", "?")))
                    self.held = str(call.args.get("brick", "?"))
                elif call.name in PLACE_SKILLS:
                    mem.placements_ok.append(_call_text(call))
                    self.held = None
                elif call.name in OBSERVE_SKILLS and isinstance(call.result, list):
                    self.bricks = [b for b in call.result if isinstance(b, dict)]
            else:
                kind = call.error_kind or "error"
                mem.error_kinds[kind] += 1
                mem.failures.append(f"{_call_text(call)} -> {kind}: {_first_line(call.error or '', 160)}")
        self.programs.append(mem)
        return mem

    # --- summarising -----------------------------------------------------------------------------
    def relevant_bricks(self) -> list[dict[str, Any]]:
        """Observed bricks worth showing: in the structure, or loose ones the task could use."""

        def relevant(b: dict[str, Any]) -> bool:
            if b.get("in_structure"):
                return True
            size = tuple(b.get("size") or ())
            color_ok = not self.task_colors or b.get("color") in self.task_colors
            size_ok = not self.task_sizes or size in self.task_sizes
            return color_ok and size_ok

        chosen = [b for b in self.bricks if relevant(b)]
        return (chosen or self.bricks)[:MAX_BRICKS]

    def summary(self) -> str:
        """The task-relevant summary of everything so far (empty before the first program)."""
        if not self.programs and not self.no_code_answers:
            return ""
        out: list[str] = []
        if self.plan:
            out.append("Plan you stated:")
            out.extend(f"- {p}" for p in self.plan)
        if self.programs:
            out.append("Programs run so far:")
            out.extend(f"- {p.one_line()}" for p in self.programs)
            totals = Counter[str]()
            for p in self.programs:
                totals.update(p.error_kinds)
            picks = sum(len(p.picks_ok) for p in self.programs)
            places = sum(len(p.placements_ok) for p in self.programs)
            out.append(
                f"In total: {picks} successful picks, {places} successful placements"
                + (", failures: " + ", ".join(f"{k} x{n}" for k, n in sorted(totals.items())) if totals else "")
                + "."
            )
            last = self.programs[-1]
            if last.failures:
                out.append("Failed calls of the last program:")
                out.extend(f"- {f}" for f in last.failures[-8:])
            if last.placements_ok:
                out.append("Placements that succeeded in the last program:")
                out.extend(f"- {p}" for p in last.placements_ok[-12:])
        if self.no_code_answers:
            out.append(f"Answers without a runnable program so far: {self.no_code_answers}.")
        out.append(f"Gripper: holding {self.held}." if self.held else "Gripper: empty (as far as the calls tell).")
        bricks = self.relevant_bricks()
        if bricks:
            out.append("Bricks at the last observe() (relevant ones; ids change when bricks move):")
            for b in bricks:
                size = b.get("size") or ("?", "?")
                out.append(
                    f"- {b.get('id')}: {b.get('color')} {size[0]}x{size[1]} at ({float(b.get('x_mm', 0)):.1f}, "
                    f"{float(b.get('y_mm', 0)):.1f}) mm, top {float(b.get('top_z_mm', 0)):.1f} mm, "
                    f"yaw {float(b.get('yaw_deg', 0)):.0f} deg, "
                    + ("in structure" if b.get("in_structure") else "loose")
                    + ("" if b.get("free_to_grasp", True) else ", not free to grasp")
                )
        return "\n".join(out)
