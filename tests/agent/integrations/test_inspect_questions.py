"""VSP and GamiBench through inspect_ai (the real package, its mockllm model): every VSP task family and
every GamiBench question type runs as an `inspect eval`, scores what `jarvis answers score` scores on the same
answers, and leaves a log that inspect reads back."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

inspect_ai = pytest.importorskip("inspect_ai", reason="needs the inspect extra: pip install 'jarvis[inspect]'")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText, ModelOutput, ModelUsage, get_model  # noqa: E402

from agent.cli.answers import score_answers  # noqa: E402
from agent.integrations.inspect_questions import TASK_ID_KEY, gamibench, question_sample, vsp  # noqa: E402
from jarvis_sim.tasks.question import QuestionItem  # noqa: E402
from jarvis_sim.tasks.registry import family_of_task, load_task  # noqa: E402
from jarvis_sim.vsp.family import TASK_KEYS  # noqa: E402

PER_TASK = 3  # items per VSP family / GamiBench type: enough for right, random and junk answers


def _answers(task_ids: list[str]) -> dict[str, str]:
    """Per item: the solver's answer, a seeded random well-formed one, or junk, in turn."""
    out = {}
    for k, tid in enumerate(task_ids):
        item = load_task(tid)
        assert isinstance(item, QuestionItem)
        family = family_of_task(tid)
        if k % 3 == 0:
            out[tid] = family.scripted_answer(item)  # type: ignore[attr-defined]
        elif k % 3 == 1:
            out[tid] = family.random_answer(item, random.Random(tid))  # type: ignore[attr-defined]
        else:
            out[tid] = "I am not sure."
    return out


def _answering_model(answers: dict[str, str]):  # type: ignore[no-untyped-def]
    """inspect's mockllm, answering each item (found by its message's task id) from `answers`."""

    def reply(messages, tools, tool_choice, config):  # type: ignore[no-untyped-def]
        asked = [m.metadata[TASK_ID_KEY] for m in messages if isinstance(m, ChatMessageUser) and m.metadata]
        output = ModelOutput.from_content(model="mockllm", content=answers[asked[-1]])
        # Usage given, so mockllm does not estimate it with tiktoken (whose tables it would download).
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    return get_model("mockllm/model", custom_outputs=reply)


def _compare(tasks: list, tmp_path: Path) -> int:  # type: ignore[type-arg]
    ids = [str(s.id) for t in tasks for s in t.dataset]
    answers = _answers(ids)
    logs = inspect_eval(tasks, model=_answering_model(answers), log_dir=str(tmp_path), display="none")
    jarvis_scores, _ = score_answers([(k, tid, a) for k, (tid, a) in enumerate(answers.items(), 1)], "official")
    by_id = {s.task_id: s for s in jarvis_scores}
    n = 0
    for log in logs:
        assert log.status == "success", log.error
        back = read_eval_log(log.location)  # the file inspect view opens
        assert back.samples is not None and len(back.samples) == len(log.samples or [])
        for sample in back.samples:
            got = sample.scores["jarvis_answer"] if sample.scores else None
            assert got is not None
            want = by_id[str(sample.id)]
            assert sample.output.completion == answers[str(sample.id)]
            assert got.value == {"correct": float(want.correct), "score": want.score, "valid": float(want.valid)}
            assert got.metadata == {"answer_score": want.model_dump(mode="json")}
            n += 1
    return n


def test_every_vsp_family_scores_like_jarvis(tmp_path: Path) -> None:
    tasks = [vsp(suite=f"vsp-gen-mini-{s}-{t}", limit=PER_TASK) for s, t in TASK_KEYS]
    assert _compare(tasks, tmp_path) == PER_TASK * len(TASK_KEYS)


def test_every_gamibench_type_scores_like_jarvis(tmp_path: Path) -> None:
    tasks = [gamibench(kind=k, limit=PER_TASK) for k in ("standard", "alternative", "impossible")]
    assert _compare(tasks, tmp_path) == 3 * PER_TASK


def test_official_vsp_items_score_like_jarvis(tmp_path: Path) -> None:
    if not os.environ.get("JARVIS_VSP_ROOT"):
        pytest.skip("official VSP data absent (set $JARVIS_VSP_ROOT)")
    assert _compare([vsp(suite="vsp-maze-main", limit=PER_TASK), vsp(suite="vsp-blocks-t3", limit=PER_TASK)],
                    tmp_path) == 2 * PER_TASK


def test_a_sample_carries_the_llm_agents_prompt_with_images_as_content() -> None:
    tid = "vsp/gen-mini/maze/main/level3/0"
    item = load_task(tid)
    assert isinstance(item, QuestionItem)
    sample = question_sample(item, family_of_task(tid))  # type: ignore[arg-type]
    assert isinstance(sample.input, list)
    system, user = sample.input
    assert system.role == "system" and "answer" in system.text.lower()
    assert isinstance(user.content, list)
    images = [c for c in user.content if isinstance(c, ContentImage)]
    assert len(images) == len(item.images) >= 1
    assert all(c.image.startswith("data:image/") for c in images)
    assert isinstance(user.content[0], ContentText) and user.content[0].text.startswith(item.prompt[:40])
    assert sample.metadata is not None and sample.metadata["jarvis_item"]["answer"] == item.answer


def test_bad_task_arguments_are_named() -> None:
    with pytest.raises(KeyError, match="GamiBench question type"):
        gamibench(kind="diagonal")
    with pytest.raises(KeyError, match="VSP suite"):
        vsp(suite="gamibench")
    with pytest.raises(ValueError, match="scoring mode"):
        vsp(limit=1, mode="lenient")


def test_inspect_eval_cli_runs_a_vsp_task_from_the_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner
    from inspect_ai._cli.main import inspect as inspect_cli
    from inspect_ai.model import _model

    # mockllm's default answer has no usage, so inspect estimates it with tiktoken's o200k table, which it
    # downloads on first use: offline, count characters instead (only mockllm's made-up usage depends on it).
    monkeypatch.setattr(_model, "count_text_tokens", lambda text: max(1, len(text) // 4))
    result = CliRunner().invoke(inspect_cli, [
        "eval", "jarvis/vsp", "-T", "suite=vsp-gen-mini-blocks-t4", "-T", "limit=2", "--model", "mockllm/model",
        "--log-dir", str(tmp_path), "--log-format", "json", "--display", "none"])
    assert result.exit_code == 0, (result.output[-3000:], result.exception)
    (log_file,) = tmp_path.glob("*.json")
    log = read_eval_log(str(log_file))
    assert log.status == "success" and log.eval.task == "jarvis-vsp-gen-mini-blocks-t4", log.error
    assert log.samples is not None
    # mockllm's default text holds no Yes/No: every answer is invalid and wrong, as jarvis scores it
    assert [s.scores["jarvis_answer"].value for s in log.samples if s.scores] == [
        {"correct": 0.0, "score": 0.0, "valid": 0.0}] * 2
    assert json.loads(log_file.read_text())["eval"]["task_registry_name"] == "jarvis/vsp"
