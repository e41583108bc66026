"""A model's plan answer (planning episodes, JARVIS Table 4): its JSON format, parsing and scoring.

The documented format: one JSON object with a `plan` list, one entry per brick the manual adds, in
build order (a bare JSON list of the entries is accepted too):

    {"plan": [
      {"step": 1, "brick_id": "a1", "part": "3001", "color": "red",
       "x_mm": 412.0, "y_mm": -188.0, "z_mm": 9.6, "yaw_deg": 90}
    ]}

- `part`: LDraw part number (string; "3001.dat" is read as "3001"); `color`: LDraw colour code or
  colour name ("red"); both as in the task's brick list.
- `x_mm`, `y_mm`, `z_mm`: where the centre of the brick's bottom face goes, world frame, millimetres.
- `yaw_deg`: rotation about the vertical axis; 0 lays the brick's long side along world x. Optional
  (default 0); symmetric bricks are judged modulo their symmetry.
- `step` and `brick_id` are optional and only echoed in the details.

The answer may carry prose around the JSON; the JSON is taken from the last ```json block, else
from the first JSON value in the text that holds a plan. An answer that has no such JSON, or whose
entries miss a field or hold a non-finite number, is a parse failure: it is counted (`plan_valid`
0) and scored as an empty plan, never raised.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from evaluator.config import ScoringConfig
from evaluator.planning import PlanStep, score_plan
from jarvis_sim.lego.colors import COLORS, color_by_name
from jarvis_sim.tasks.spec import TaskSpec

MAX_PLAN_ENTRIES = 500
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n(.*?)```", re.DOTALL)
_REQUIRED = ("part", "color", "x_mm", "y_mm", "z_mm")


class PlanParseError(ValueError):
    """An answer that does not hold a plan in the documented format; the message says where."""


def _json_values(text: str) -> list[Any]:
    """JSON values found in the text: fenced blocks (last first), then every decodable value in order."""
    found: list[Any] = []
    for block in reversed(_FENCE.findall(text)):
        try:
            found.append(json.loads(block))
        except json.JSONDecodeError:
            continue
    decoder = json.JSONDecoder()
    for m in re.finditer(r"[\[{]", text):
        try:
            value, _ = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError:
            continue
        found.append(value)
    return found


def _entries(value: Any) -> list[Any] | None:
    if isinstance(value, dict) and isinstance(value.get("plan"), list):
        return list(value["plan"])
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return value
    return None


def _number(entry: dict[str, Any], key: str, where: str) -> float:
    v = entry[key]
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise PlanParseError(f"{where}: {key!r} must be a number, not {v!r:.40}")
    x = float(v)
    if not math.isfinite(x):
        raise PlanParseError(f"{where}: {key!r} must be finite, not {v!r}")
    return x


def _color(v: Any, where: str) -> int:
    if isinstance(v, bool):
        raise PlanParseError(f"{where}: 'color' must be an LDraw colour code or name, not {v!r}")
    if isinstance(v, int):
        if v not in COLORS:
            raise PlanParseError(f"{where}: unknown LDraw colour code {v}")
        return v
    if isinstance(v, str):
        if v.strip().isdigit() and int(v) in COLORS:
            return int(v)
        try:
            return color_by_name(v.strip()).code
        except KeyError:
            raise PlanParseError(f"{where}: unknown colour {v!r:.40}") from None
    raise PlanParseError(f"{where}: 'color' must be an LDraw colour code or name, not {v!r:.40}")


def _step(entry: Any, k: int) -> PlanStep:
    where = f"plan entry {k + 1}"
    if not isinstance(entry, dict):
        raise PlanParseError(f"{where}: expected an object, not {type(entry).__name__}")
    missing = [f for f in _REQUIRED if f not in entry]
    if missing:
        raise PlanParseError(f"{where}: missing {', '.join(repr(f) for f in missing)}")
    part = entry["part"]
    if isinstance(part, int) and not isinstance(part, bool):
        part = str(part)
    if not isinstance(part, str) or not part.strip():
        raise PlanParseError(f"{where}: 'part' must be an LDraw part number, not {part!r:.40}")
    part = part.strip().removesuffix(".dat")
    yaw = _number(entry, "yaw_deg", where) if "yaw_deg" in entry else 0.0
    brick_id = entry.get("brick_id")
    return PlanStep(
        brick_id=str(brick_id)[:64] if brick_id is not None else None,
        part=part,
        color=_color(entry["color"], where),
        position=tuple(_number(entry, f, where) / 1000.0 for f in ("x_mm", "y_mm", "z_mm")),  # type: ignore[arg-type]
        yaw=math.radians(yaw),
    )


def parse_plan(text: str) -> list[PlanStep]:
    """The plan in an answer; PlanParseError says what is wrong and where."""
    candidates = [e for e in (_entries(v) for v in _json_values(text)) if e is not None]
    if not candidates:
        raise PlanParseError('no JSON plan found: expected {"plan": [{"part": ..., "color": ..., "x_mm": ..., '
                             '"y_mm": ..., "z_mm": ..., "yaw_deg": ...}, ...]}')
    entries = candidates[0]
    if len(entries) > MAX_PLAN_ENTRIES:
        raise PlanParseError(f"the plan has {len(entries)} entries; at most {MAX_PLAN_ENTRIES} are read")
    return [_step(e, k) for k, e in enumerate(entries)]


def planning_scores(task: TaskSpec, answer: str, config: ScoringConfig | None = None) -> tuple[dict[str, float], dict[str, Any]]:
    """Scores and details of a plan answer; a parse failure scores as an empty plan, plan_valid 0.

    `soft_score` is the coverage (the share of manual steps matched), the headline of a planning run.
    """
    error: str | None = None
    try:
        plan = parse_plan(answer)
    except PlanParseError as exc:
        plan, error = [], str(exc)
    result = score_plan(task, plan, config)
    scores = {"soft_score": result.coverage, "plan_valid": 0.0 if error else 100.0, **result.scores()}
    details: dict[str, Any] = {"parse_error": error, "n_required": result.n_required, "n_predicted": result.n_predicted,
                               **result.details()}
    return scores, details
