"""Filling a VSP prompt template: figures, test visuals, question text and in-context examples.

Templates use the layout's placeholders: <IMAGE-1>, <IMAGE-2> (explanation figures), <TEST-IMAGE>
or <TEST-IMAGE-1>/<TEST-IMAGE-2>, <QUESTION>, <CANDIDATES> and <ACTION-SEQ>. In the prompt we hand
out, every image is a marker `<IMAGE-k>` (k counts from 1 over `images`, in prompt order); in the
text variants the visuals become their text representation and the prompt has no images at all.
In-context examples go before the closing instruction ("Now ..." / "Please ...") that precedes the
test input, as the paper's runner did.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from jarvis_sim.vsp.layout import (
    FIGURE_BLOCKS,
    FIGURE_MAZE,
    IMAGE_ONLY,
    MAZE_LEGEND,
    Visual,
    VspExample,
    VspRecord,
)

InputMode = Literal["image", "pure_text", "table"]
INPUT_MODES: tuple[InputMode, ...] = ("image", "pure_text", "table")
SHOTS = (0, 1, 2, 4)

_PLACEHOLDER = re.compile(r"<(IMAGE-\d+|TEST-IMAGE(?:-\d+)?|QUESTION|CANDIDATES|ACTION-SEQ)>")
_CLOSING = re.compile(r"^(Now |Please )", re.M)


class PromptError(ValueError):
    """A template or variant that cannot be filled; the message says why."""


@dataclass(frozen=True)
class Variant:
    """How an item is asked: the input modality and the number of in-context examples."""

    input: InputMode = "image"
    shots: int = 0

    def __post_init__(self) -> None:
        if self.input not in INPUT_MODES:
            raise PromptError(f"unknown input mode {self.input!r}; known: {', '.join(INPUT_MODES)}")
        if self.shots not in SHOTS:
            raise PromptError(f"shots must be one of {SHOTS}, not {self.shots}")

    @property
    def is_default(self) -> bool:
        """True for the plain image, zero-shot variant."""
        return self.input == "image" and self.shots == 0

    def suffix(self) -> str:
        """The task-id suffix, e.g. 'table-2shot' ('' for the default)."""
        return "" if self.is_default else f"{self.input}-{self.shots}shot"

    @staticmethod
    def parse(text: str) -> Variant:
        """Parse 'table', 'image-2shot', 'pure_text-4shot'."""
        m = re.fullmatch(r"(image|pure_text|table)(?:-(\d)shot)?", text)
        if not m:
            raise PromptError(f"bad variant {text!r}; expected e.g. 'table', 'image-2shot', 'pure_text-4shot'")
        return Variant(m.group(1), int(m.group(2) or 0))  # type: ignore[arg-type]


def all_variants() -> list[Variant]:
    """Every input mode and shot count."""
    return [Variant(i, k) for i in INPUT_MODES for k in SHOTS]


def build_prompt(
    template: str,
    record: VspRecord,
    figures: list[Path],
    examples: tuple[VspExample, ...],
    variant: Variant,
    seed: str,
) -> tuple[str, list[Path], list[int]]:
    """(prompt, image paths in marker order, ids of the chosen examples) for one item."""
    if variant.input != "image" and (record.scenario, record.task) in IMAGE_ONLY:
        raise PromptError(f"{record.scenario}/{record.task} matches an image to text; it has no text variant")
    chosen: list[int] = []
    if variant.shots:
        if len(examples) < variant.shots:
            raise PromptError(f"{variant.shots} shots asked, only {len(examples)} examples in the layout")
        chosen = random.Random(seed).sample(range(len(examples)), variant.shots)
    test_visuals = list(record.visuals)
    figure_visuals = _figure_visuals(record.scenario, figures)
    fills: dict[str, str | Visual] = {}
    for k, fig in enumerate(figure_visuals, 1):
        fills[f"IMAGE-{k}"] = fig
    if len(test_visuals) == 1:
        fills["TEST-IMAGE"] = test_visuals[0]
    for k, v in enumerate(test_visuals, 1):
        fills[f"TEST-IMAGE-{k}"] = v
    question = record.question or ""
    fills.update({"QUESTION": question, "CANDIDATES": question, "ACTION-SEQ": question})

    parts: list[str | Visual] = []
    pos = 0
    text = template.replace("\r\n", "\n")
    insert_at = _examples_position(text) if chosen else None
    for m in _PLACEHOLDER.finditer(text):
        if insert_at is not None and insert_at <= m.start():
            parts.append(text[pos:insert_at])
            parts.extend(_examples_parts([examples[i] for i in chosen]))
            pos, insert_at = insert_at, None
        parts.append(text[pos : m.start()])
        key = m.group(1)
        if key not in fills:
            raise PromptError(f"template placeholder <{key}> has nothing to fill it for {record.scenario}/{record.task}")
        parts.append(fills[key])
        pos = m.end()
    parts.append(text[pos:])
    prompt, images = _serialise(parts, variant.input)
    return prompt, images, chosen


def _figure_visuals(scenario: str, figures: list[Path]) -> list[Visual]:
    if scenario == "maze":
        legend = MAZE_LEGEND
        reps1 = {"pure_text": legend, "table": legend}
        reps2 = {"pure_text": FIGURE_MAZE.to_pure_text(), "table": FIGURE_MAZE.to_table()}
        return [Visual(figures[0], reps1), Visual(figures[1], reps2)][: len(figures)]
    reps = {"pure_text": FIGURE_BLOCKS.to_pure_text().rstrip("\n"), "table": FIGURE_BLOCKS.to_table().rstrip("\n")}
    return [Visual(figures[0], reps)]


def _examples_position(text: str) -> int:
    first_test = text.find("<TEST-IMAGE")
    if first_test < 0:
        raise PromptError("template has no <TEST-IMAGE> placeholder")
    starts = [m.start() for m in _CLOSING.finditer(text, 0, first_test)]
    if not starts:
        raise PromptError("template has no closing instruction ('Now ...' or 'Please ...') before the test input")
    return starts[-1]


def _examples_parts(chosen: list[VspExample]) -> list[str | Visual]:
    parts: list[str | Visual] = ["## Example:\n\n"]
    for n, ex in enumerate(chosen, 1):
        parts.append(f"### Example {n}\n\n")
        for p in ex.parts:
            parts.append(p)
            parts.append("\n\n")
    return parts


def _serialise(parts: list[str | Visual], mode: InputMode) -> tuple[str, list[Path]]:
    out: list[str] = []
    images: list[Path] = []
    for p in parts:
        if isinstance(p, str):
            out.append(p)
        elif mode == "image":
            images.append(p.image)
            out.append(f"<IMAGE-{len(images)}>")
        else:
            if mode not in p.reps:
                raise PromptError(f"no {mode} representation for {p.image}")
            out.append(p.reps[mode])
    return "".join(out), images
