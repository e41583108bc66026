"""Error recovery (the JARVIS paper's 25 perturbed tasks): each perturbed task scored beside its twin.

A run of `jarvis-v1-perturbed` holds every task twice: as is, and as `<id>-perturbed` with a scheduled
disturbance. The section gives the paper's figures: mean soft score unperturbed vs perturbed, how many
tasks improve under the disturbance (and how many decline), the largest gain and decline, and a per-task
table that also says whether the disturbance fired (an agent that never placed the brick it waits for
never met it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from jarvis_sim.records import EpisodeRecord
from jarvis_sim.tasks.perturbed import twin_id


@dataclass(frozen=True)
class TwinPair:
    """One task's unperturbed and perturbed episodes."""

    task_id: str
    kind: str
    unperturbed: float
    perturbed: float
    fired: bool

    @property
    def change(self) -> float:
        """Perturbed minus unperturbed soft score."""
        return self.perturbed - self.unperturbed


def _kind(task_id: str) -> str:
    from jarvis_sim.tasks.registry import load_task
    from jarvis_sim.tasks.spec import TaskSpec

    try:
        task = load_task(task_id)
    except KeyError:
        return "?"
    return ", ".join(p.kind for p in task.perturbations) if isinstance(task, TaskSpec) else "?"


def twin_pairs(records: Sequence[EpisodeRecord]) -> list[TwinPair]:
    """The pairs of finished episodes found among the records, in the order of the perturbed ones."""
    plain = {r.task_id: r for r in records if r.status == "done" and twin_id(r.task_id) is None}
    out = []
    for r in records:
        base = twin_id(r.task_id)
        if base is None or r.status != "done" or base not in plain:
            continue
        fired = any(c.disturbed for rnd in r.rounds for c in rnd.skill_calls)
        out.append(TwinPair(base, _kind(r.task_id), plain[base].scores.get("soft_score", 0.0),
                            r.scores.get("soft_score", 0.0), fired))
    return out


def perturbation_section(records: Sequence[EpisodeRecord]) -> str:
    """The error-recovery section, or '' when the run holds no perturbed twins."""
    pairs = twin_pairs(records)
    if not pairs:
        return ""
    n = len(pairs)
    mean_u = sum(p.unperturbed for p in pairs) / n
    mean_p = sum(p.perturbed for p in pairs) / n
    improved = [p for p in pairs if p.change > 1e-9]
    declined = [p for p in pairs if p.change < -1e-9]
    gain = max(pairs, key=lambda p: p.change)
    drop = min(pairs, key=lambda p: p.change)
    lines = ["## Error recovery (perturbed twins)", "",
             "| | tasks | mean soft score |", "|---|---|---|",
             f"| unperturbed | {n} | {mean_u:.1f} |", f"| perturbed | {n} | {mean_p:.1f} |", "",
             f"Improved under the disturbance: {len(improved)} of {n}; declined: {len(declined)}; "
             f"unchanged: {n - len(improved) - len(declined)}. Disturbance fired in {sum(p.fired for p in pairs)} "
             f"of {n}.",
             f"Largest gain: {gain.change:+.1f} ({gain.task_id}); largest decline: {drop.change:+.1f} "
             f"({drop.task_id}).", "",
             "| Task | disturbance | fired | unperturbed | perturbed | change |", "|---|---|---|---|---|---|"]
    for p in pairs:
        lines.append(f"| {p.task_id} | {p.kind} | {'yes' if p.fired else 'no'} | {p.unperturbed:.1f} "
                     f"| {p.perturbed:.1f} | {p.change:+.1f} |")
    return "\n".join(lines) + "\n"
