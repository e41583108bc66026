"""VSP and GamiBench as inspect_ai tasks: `inspect eval jarvis/vsp -T suite=vsp-maze-main --model ...`.

Each question item becomes a Sample whose messages are exactly what `jarvis run`'s LLM agent sends (the
same system prompt, text and images in the same order; images as inspect `ContentImage` data URIs). The
scorer is JARVIS's own answer scorer (evaluator.answers.score_answer) over the model's completion, so
a log scores the same as `jarvis answers score` on the same answers. The item, ground truth included, rides
in the sample's metadata: a saved log re-scores offline (`inspect score LOG`) without JARVIS's data folders.
"""

from __future__ import annotations

from typing import Any, get_args

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ContentImage, ContentText
from inspect_ai.scorer import Score, Scorer, Target, accuracy, mean, scorer, stderr
from inspect_ai.solver import TaskState, generate

from agent.agents.llm import question_prompt
from agent.llm.messages import ImagePart
from evaluator.answers import ScoringMode, score_answer
from jarvis_sim.tasks.question import QuestionItem
from jarvis_sim.tasks.registry import QuestionFamily, UnknownKeyError, family_of_suite, family_of_task

ITEM_KEY = "jarvis_item"  # sample metadata key holding the QuestionItem (ground truth included)
TASK_ID_KEY = "jarvis_task_id"  # user-message metadata: which item a message asks (providers ignore it)
GAMIBENCH_KINDS = ("standard", "alternative", "impossible")


def _content(prompt_parts: list[Any]) -> list[ContentText | ContentImage]:
    out: list[ContentText | ContentImage] = []
    for part in prompt_parts:
        if isinstance(part, ImagePart):
            out.append(ContentImage(image=f"data:{part.media_type};base64,{part.base64()}"))
        else:
            out.append(ContentText(text=part.text))
    return out


def question_sample(item: QuestionItem, family: QuestionFamily) -> Sample:
    """One item as an inspect Sample: JARVIS's prompt as messages, the family's reference answer as target."""
    prompt = question_prompt(item)
    return Sample(
        id=item.id,
        input=[
            ChatMessageSystem(content=prompt.system),
            ChatMessageUser(content=_content(prompt.parts()), metadata={TASK_ID_KEY: item.id}),
        ],
        target=family.scripted_answer(item),
        metadata={ITEM_KEY: item.model_dump(mode="json"), "prompt_version": prompt.version,
                  "kind": item.kind, "level": item.level},
    )


def question_dataset(task_ids: list[str], name: str) -> MemoryDataset:
    """The samples of these task ids (all of one question family)."""
    if not task_ids:
        raise ValueError(f"{name}: no items selected")
    samples = []
    for tid in task_ids:
        family = family_of_task(tid)
        if not isinstance(family, QuestionFamily):
            raise ValueError(f"{tid}: not a question item (family {family.name!r}); VSP and GamiBench only")
        item = family.load(tid)
        assert isinstance(item, QuestionItem)
        samples.append(question_sample(item, family))
    return MemoryDataset(samples, name=name)


def _check_mode(mode: str) -> ScoringMode:
    if mode not in get_args(ScoringMode):
        raise ValueError(f"scoring mode {mode!r}: expected one of {list(get_args(ScoringMode))}")
    return mode  # type: ignore[return-value]


@scorer(metrics={"correct": [accuracy(), stderr()], "score": [mean()], "valid": [mean()]})
def jarvis_answer(mode: str = "official") -> Scorer:
    """JARVIS's answer scorer: correct (0/1), score (0-100, partial credit where the task has it) and
    valid (0 for an unparseable answer), with the parse details as metadata."""
    checked = _check_mode(mode)

    async def score(state: TaskState, target: Target) -> Score:
        if ITEM_KEY not in state.metadata:
            raise ValueError(f"sample {state.sample_id}: no {ITEM_KEY!r} in its metadata; not a JARVIS question sample")
        item = QuestionItem.model_validate(state.metadata[ITEM_KEY])
        answer = state.output.completion
        verdict = score_answer(item, answer, checked)
        return Score(
            value={"correct": float(verdict.correct), "score": verdict.score, "valid": float(verdict.valid)},
            answer=answer,
            explanation=f"{'correct' if verdict.correct else 'wrong'} ({mode}); expected {target.text!r}",
            metadata={"answer_score": verdict.model_dump(mode="json")},
        )

    return score


def _suite_ids(suite: str, limit: int | None) -> list[str]:
    family = family_of_suite(suite)
    ids = family.task_ids(suite)
    return ids[:limit] if limit else ids


@task(name="jarvis/vsp")  # `inspect eval jarvis/vsp`: the entry point named jarvis imports this module
def vsp(suite: str = "vsp-gen-mini-maze-main", limit: int | None = None, mode: str = "official") -> Task:
    """A VSP suite (`vsp`, `vsp-maze-main`, `vsp-gen-mini-blocks-t4`, ...; `jarvis suites` lists them)."""
    if not suite.startswith("vsp"):
        raise UnknownKeyError("VSP suite", suite, ["vsp", "vsp-maze-main", "vsp-gen-mini-blocks-t4", "..."])
    return Task(dataset=question_dataset(_suite_ids(suite, limit), suite), solver=generate(),
                scorer=jarvis_answer(mode), name=f"jarvis-{suite}")


@task(name="jarvis/gamibench")
def gamibench(suite: str = "gamibench", kind: str | None = None, limit: int | None = None,
              mode: str = "official") -> Task:
    """A GamiBench suite (`gamibench` generated, `gamibench-official` from $JARVIS_GAMIBENCH_ROOT), optionally
    one question type (`kind`: standard, alternative, impossible)."""
    if not suite.startswith("gamibench"):
        raise UnknownKeyError("GamiBench suite", suite, ["gamibench", "gamibench-official"])
    if kind is not None and kind not in GAMIBENCH_KINDS:
        raise UnknownKeyError("GamiBench question type", kind, list(GAMIBENCH_KINDS))
    ids = family_of_suite(suite).task_ids(suite)
    if kind is not None:
        ids = [tid for tid in ids if tid.split("/")[-2] == kind]
    ids = ids[:limit] if limit else ids
    name = f"jarvis-{suite}" + (f"-{kind}" if kind else "")
    return Task(dataset=question_dataset(ids, name), solver=generate(), scorer=jarvis_answer(mode), name=name)
