"""The error-recovery section: perturbed twins paired with their tasks, the paper's figures, per-task rows."""

from __future__ import annotations

from evaluator.family_reports import family_sections
from evaluator.perturbation_report import perturbation_section, twin_pairs
from jarvis_sim.records import EpisodeRecord, RoundRecord, SkillCallRecord
from jarvis_sim.tasks.perturbed import perturbed_tasks, twin_id


def _record(task_id: str, score: float, fired: bool = False, status: str = "done") -> EpisodeRecord:
    calls = [SkillCallRecord(name="observe", ok=True), SkillCallRecord(name="pick", ok=True,
                                                                       disturbed=["drop_held"] if fired else [])]
    return EpisodeRecord(episode_id=task_id + "#0", task_id=task_id, family="lego", status=status,  # type: ignore[arg-type]
                         rounds=[RoundRecord(index=0, skill_calls=calls)], scores={"soft_score": score})


def test_section_has_the_papers_figures() -> None:
    twins = [t.id for t in perturbed_tasks()[:4]]
    plain = [twin_id(t) or "" for t in twins]
    records = [
        _record(plain[0], 80.0), _record(twins[0], 50.0, fired=True),   # decline -30
        _record(plain[1], 40.0), _record(twins[1], 60.0, fired=True),   # gain +20
        _record(plain[2], 70.0), _record(twins[2], 70.0),               # never met the disturbance
        _record(plain[3], 90.0), _record(twins[3], 0.0, status="failed"),  # a failed twin is left out
    ]
    pairs = twin_pairs(records)
    assert [p.task_id for p in pairs] == plain[:3] and [p.fired for p in pairs] == [True, True, False]
    text = perturbation_section(records)
    assert "| unperturbed | 3 | 63.3 |" in text and "| perturbed | 3 | 60.0 |" in text
    assert "Improved under the disturbance: 1 of 3; declined: 1; unchanged: 1. Disturbance fired in 2 of 3." in text
    assert f"Largest gain: +20.0 ({plain[1]}); largest decline: -30.0 ({plain[0]})." in text
    kind = perturbed_tasks()[0].perturbations[0].kind
    assert f"| {plain[0]} | {kind} | yes | 80.0 | 50.0 | -30.0 |" in text
    assert "## Error recovery" in family_sections(records)


def test_no_section_without_twins() -> None:
    assert perturbation_section([_record("lego/v7-00009-stairs/000", 100.0)]) == ""
