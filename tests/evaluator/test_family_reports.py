"""Family report sections rebuilt from stored question-episode records."""

from __future__ import annotations

from agent.config import AgentConfig, Budget
from agent.episodes.job import EpisodeJob
from agent.episodes.question import run_question_episode
from evaluator.family_reports import family_sections
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import QuestionFamily, family_of_task, load_task, suite_task_ids


def _records(suite: str, n: int, agent: str) -> list:
    out = []
    for task_id in suite_task_ids(suite)[:n]:
        item, family = load_task(task_id), family_of_task(task_id)
        assert isinstance(item, QuestionItem) and isinstance(family, QuestionFamily)
        out.append(run_question_episode(EpisodeJob(task_id, AgentConfig(name=agent), Budget()), item, family))
    return out


def test_gamibench_section_reports_the_paper_metrics() -> None:
    text = family_sections(_records("gamibench", 12, "scripted"))
    assert "## GamiBench" in text and "| macro-average |" in text
    assert "100.0" in text  # the scripted ceiling answers every standard item right


def test_no_section_without_question_families() -> None:
    assert family_sections([]) == ""


def test_offline_rescoring_of_a_question_episode_matches_the_live_scores() -> None:
    from evaluator.episode import score_episode

    for record in _records("gamibench", 3, "random"):
        rescored = score_episode(record, load_task(record.task_id))
        assert rescored.scores == record.scores and rescored.score_details == record.score_details
