"""The final state beside the target, each brick coloured by its score and explained on hover.

A record's `final_views` hold pictures and brick outlines (agent.episodes.final_views); its `score_details` hold the
evaluator's per-brick explanations. This joins the two: the target picture is keyed by target id, the
camera and final pictures by physical id, matched to a target through the explanation's `matched`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jarvis_sim.records import EpisodeRecord, FinalView

VIEW_LABELS = {"camera": "The robot's camera at the end (cut to the bricks)",
               # 6 cm: jarvis_sim.manuals.final_state.NEAR_STRUCTURE_M (not imported: it brings in MuJoCo)
               "final": "Built (bricks within 6 cm of the target's footprint)", "target": "Target"}
VIEW_ORDER = ("final", "target", "camera")
INITIAL_RGB = "#4f79a8"  # an initial brick still in place: part of the scene, not of the score
CROP_MARGIN_PX = 30
MIN_CROP_PX = 200  # a camera picture is never zoomed past this width: the table around the bricks stays in view
NEUTRAL_RGB = "#8a8a8a"  # a brick no target wants (a distractor, or one matched elsewhere)
DISTURBED_RGB = "#c62828"


@dataclass
class Verdict:
    """How one brick fares, as a colour and a sentence."""

    colour: str
    text: str
    kind: str  # 'required', 'initial', 'disturbed', 'other'
    pose: float | None = None
    target: str | None = None  # the target it was judged against: the key that links one brick across pictures
    complete: bool | None = None


@dataclass
class BrickShape:
    """One brick's outline in one picture, ready for SVG."""

    brick: str
    points: list[str]  # one "x,y x,y ..." per polygon
    verdict: Verdict

    @property
    def key(self) -> str:
        """What links this brick to its target's shape and table row."""
        return self.verdict.target or self.brick


@dataclass
class FinalPicture:
    """One picture with its shapes."""

    kind: str
    label: str
    src: str | None  # path relative to the run directory, None when the file is missing
    image: str
    width: int
    height: int
    shapes: list[BrickShape] = field(default_factory=list)
    crop: tuple[int, int, int, int] | None = None  # (x, y, w, h) of the part worth showing; None: all of it
    absent: list[str] = field(default_factory=list)  # required targets with no visible brick here (hidden or away)

    def css_crop(self) -> str:
        """Inline style placing the full picture inside its cropped frame (percentages of the frame)."""
        x, y, w, h = self.crop or (0, 0, self.width, self.height)
        return (f"width: {100 * self.width / w:.3f}%; height: {100 * self.height / h:.3f}%; "
                f"left: {-100 * x / w:.3f}%; top: {-100 * y / h:.3f}%")

    @property
    def aspect(self) -> str:
        """The frame's aspect ratio (CSS)."""
        _, _, w, h = self.crop or (0, 0, self.width, self.height)
        return f"{w} / {h}"


INCOMPLETE_MAX_HUE_SCORE = 50.0  # amber: the greenest an unseated brick is drawn


def score_colour(pose: float) -> str:
    """Red (0) through amber to green (100): the pose credit a brick earned."""
    hue = 1.2 * max(0.0, min(100.0, pose))
    return f"hsl({hue:.0f}, 75%, 42%)"


def crop_to_bricks(view: FinalView, margin: int = CROP_MARGIN_PX) -> tuple[int, int, int, int] | None:
    """A box around every brick outline (plus a margin), widened to the picture's aspect ratio; None: all."""
    points = [xy for polys in view.outlines.values() for poly in polys for xy in poly]
    if not points:
        return None
    xs, ys = [x for x, _ in points], [y for _, y in points]
    x0, x1, y0, y1 = min(xs) - margin, max(xs) + margin, min(ys) - margin, max(ys) + margin
    w = max(x1 - x0, MIN_CROP_PX, (y1 - y0) * view.width / view.height)
    h = w * view.height / view.width
    if w >= view.width or h >= view.height:
        return None
    x = min(max((x0 + x1 - w) / 2, 0), view.width - w)
    y = min(max((y0 + y1 - h) / 2, 0), view.height - h)
    return int(x), int(y), round(w), round(h)


def _num(v: Any, unit: str) -> str:
    return "–" if v is None else f"{v:.2f} {unit}"


def required_verdict(b: dict[str, Any]) -> Verdict:
    """A required brick's explanation (evaluator.assembly.BrickScore.explain) as a colour and a sentence."""
    pose = float(b.get("pose") or 0.0)
    matched = b.get("matched")
    verdicts = ", ".join(["complete" if b.get("complete") else "not complete", "valid" if b.get("valid") else "not valid"])
    if matched is None:
        text = f"target {b.get('target')} ({b.get('part')}): no brick matched it; pose 0"
    else:
        text = (f"target {b.get('target')} ({b.get('part')}) <- brick {matched}: pose {pose:.1f}; "
                f"plane error {_num(b.get('plane_error_mm'), 'mm')}, level {_num(b.get('level_error_mm'), 'mm')}, "
                f"yaw {_num(b.get('yaw_error_deg'), 'deg')}, tilt {_num(b.get('tilt_deg'), 'deg')}; {verdicts}")
    problems = b.get("problems") or []
    if problems:
        text += "; " + "; ".join(str(p) for p in problems)
    complete = bool(b.get("complete"))
    # A brick not complete (resting on the stud tops, not seated) is never painted as a success, however close its
    # pose: its colour stops at amber (INCOMPLETE_MAX_HUE_SCORE) and its outline is dashed.
    shown = pose if complete else min(pose, INCOMPLETE_MAX_HUE_SCORE)
    return Verdict(score_colour(shown), text, "required", pose, str(b.get("target")), complete)


def _verdicts(record: EpisodeRecord) -> tuple[dict[str, Verdict], dict[str, Verdict], set[str]]:
    """(by target id, by physical id, disturbed initial ids) from the record's per-brick explanations."""
    details = record.score_details
    listed = details.get("bricks")
    bricks: list[Any] = listed if isinstance(listed, list) else []
    by_target: dict[str, Verdict] = {}
    by_physical: dict[str, Verdict] = {}
    for b in bricks:
        if not isinstance(b, dict) or "target" not in b:
            continue
        v = required_verdict(b)
        by_target[str(b["target"])] = v
        if b.get("matched"):
            by_physical[str(b["matched"])] = v
    for target, v in by_target.items():  # an unmatched target's own brick, wherever it ended
        by_physical.setdefault(target, v)
    disturbed = {str(d) for d in details.get("disturbed") or []}
    return by_target, by_physical, disturbed


def _other(brick: str, target_ids: set[str], disturbed: set[str]) -> Verdict:
    if brick in disturbed:
        return Verdict(DISTURBED_RGB, f"initial brick {brick}: disturbed (moved out of tolerance or missing)",
                       "disturbed")
    if brick in target_ids:  # in the target picture and no required brick: the initial structure
        return Verdict(INITIAL_RGB, f"initial brick {brick}: in place", "initial")
    return Verdict(NEUTRAL_RGB, f"brick {brick}: no target of this task wants it", "other")


def final_pictures(record: EpisodeRecord, base: str, exists: Callable[[str], bool]) -> list[FinalPicture]:
    """The episode's end pictures in page order, shapes coloured by score; `exists(rel)` says a file is on disk."""
    if not record.final_views:
        return []
    by_target, by_physical, disturbed = _verdicts(record)
    target_ids = {b for v in record.final_views if v.kind == "target" for b in v.outlines}
    pictures = []
    for view in sorted(record.final_views, key=lambda v: VIEW_ORDER.index(v.kind)):
        rel = f"{base}/{view.image}" if base else view.image
        lookup = by_target if view.kind == "target" else by_physical
        shapes = [
            BrickShape(brick, [" ".join(f"{x},{y}" for x, y in poly) for poly in polys],
                       lookup.get(brick) or _other(brick, target_ids, disturbed))
            for brick, polys in sorted(view.outlines.items())
        ]
        # The camera sees the whole table; its picture is cut down to where the bricks are.
        crop = crop_to_bricks(view) if view.kind == "camera" else None
        shown = {sh.key for sh in shapes}
        absent = sorted(t for t in by_target if t not in shown)
        pictures.append(FinalPicture(view.kind, VIEW_LABELS[view.kind], rel if exists(rel) else None, view.image,
                                     view.width, view.height, shapes, crop, absent))
    return pictures
