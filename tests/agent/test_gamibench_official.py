"""GamiBench's official mode end to end: the LLM agent's stimulus, the skip rule and the report section."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.config import AgentConfig
from agent.runs.batch import run_batch
from agent.runs.prerequisites import SKIPPED_INCORRECT
from agent.runs.run_store import RunConfig
from evaluator.family_reports import family_sections
from jarvis_sim.origami.family import CODE_ENV, PLAN_ENV, ROOT_ENV
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import load_task, suite_task_ids
from tests.fakes.gamibench_folder import build_code, build_folder
from tests.fakes.llm_servers import FakeOpenAIServer


@pytest.fixture
def official(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[QuestionItem]:
    """The official-mode items of a small folder, configured through the environment."""
    monkeypatch.setenv(ROOT_ENV, str(build_folder(tmp_path / "data")))
    monkeypatch.setenv(CODE_ENV, str(build_code(tmp_path / "code")))
    monkeypatch.delenv(PLAN_ENV, raising=False)
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", "sk-test-gamibench")
    items = [load_task(i) for i in suite_task_ids("gamibench-official")]
    return [i for i in items if isinstance(i, QuestionItem)]


def test_llm_run_asks_alternatives_only_after_a_right_standard(official: list[QuestionItem], tmp_path: Path) -> None:
    standards = [it for it in official if it.kind == "standard"]
    wrong_std = {standards[0].id, standards[2].id}
    # The fake model answers in the order it is asked; wave one is every item without a prerequisite.
    first_wave = [it for it in official if it.kind != "alternative"]
    answers = []
    for it in first_wave:
        right = str(it.answer)
        answers.append(("A" if right != "A" else "B") if it.id in wrong_std else right)
    asked_alts = [it for it in official if it.kind == "alternative"
                  and it.meta["requires"]["task_id"] not in wrong_std]
    answers += [str(it.answer) for it in asked_alts]
    with FakeOpenAIServer(answers) as server:
        cfg = AgentConfig(name="llm", model=f"openai-compatible:{server.base_url}:fake-vl")
        run, progress = run_batch(RunConfig(suite="gamibench-official", agent=cfg), tmp_path / "run", workers=0)
        bodies = [r.body for r in server.requests]
    assert len(bodies) == len(first_wave) + len(asked_alts)  # skipped items never reach the model
    records = {r.task_id: r for r in run.records()}
    assert len(records) == len(official) and progress.done == len(official)
    for it in official:
        if it.kind == "alternative" and it.meta["requires"]["task_id"] in wrong_std:
            assert records[it.id].score_details["skipped"] == SKIPPED_INCORRECT
            assert records[it.id].answer is None and records[it.id].scores["correct"] == 0.0
        else:
            assert records[it.id].rounds[0].response == records[it.id].answer
    # The stimulus: the official system prompt; the user prompt, the crease pattern, then per candidate
    # its caption and its image, nothing in between.
    msgs: list[dict[str, Any]] = bodies[0]["messages"]
    assert msgs[0] == {"role": "system", "content": "You grade paper folds."}
    content = msgs[1]["content"]
    kinds = [part["type"] for part in content]
    assert kinds == ["text", "image_url"] + ["text", "image_url"] * 4
    texts = [part["text"] for part in content if part["type"] == "text"]
    assert texts == ["Look at the crease pattern, then at the candidates.", "Option (A):", "Option (B):",
                     "Option (C):", "Option (D):"]
    report = family_sections(list(records.values()))
    assert "| all |" in report and "alternative-view items not asked (standard item wrong, counted wrong): 2" in report
    summary = report.split("As the official runner summarises it:")[1]
    n = len(official)
    assert f"| {n} | {n - 2} | {n - 4} |" in summary  # two skipped (unanswered), two wrong standards
    assert "standard_mcq" in summary and "alternative_view" in summary
