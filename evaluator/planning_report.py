"""The report section of planning runs (JARVIS Table 4), one row per observation setting.

Columns as in the paper: matched and missing steps (totals over the setting's tasks), coverage (matched
over required steps), and over the matched steps the mean position error (mm) and the symmetry-aware
orientation error (degrees); beside them the tasks, the answers that did not parse (counted, scored as
empty plans) and the extra steps. Rebuilt from each record's stored score details, so a report never
reloads a task or re-asks a model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jarvis_sim.records import EpisodeRecord

SETTINGS = (("rgb", "RGB"), ("rgbd", "RGB-D"), ("rgbd_3d", "RGB-D + 3D descriptors"))


def _matches(record: EpisodeRecord) -> list[dict[str, Any]]:
    rows = record.score_details.get("matches")
    return [m for m in rows if isinstance(m, dict)] if isinstance(rows, list) else []


def _mean(values: list[float]) -> str:
    return f"{sum(values) / len(values):.1f}" if values else "–"


def _row(label: str, records: Sequence[EpisodeRecord]) -> list[str]:
    required = sum(int(r.score_details.get("n_required", 0)) for r in records)
    matched = [m for r in records for m in _matches(r)]
    missing = sum(int(r.scores.get("plan_missing", 0)) for r in records)
    extra = sum(int(r.scores.get("plan_extra", 0)) for r in records)
    failures = sum(r.scores.get("plan_valid", 0.0) < 100.0 for r in records)
    coverage = f"{100.0 * len(matched) / required:.1f}" if required else "–"
    return [
        label, str(len(records)), str(failures), str(len(matched)), str(missing), str(extra), coverage,
        _mean([float(m["position_error_mm"]) for m in matched]), _mean([float(m["yaw_error_deg"]) for m in matched]),
    ]


def planning_section(records: Sequence[EpisodeRecord]) -> str:
    """Markdown: the planning table over a run's finished planning episodes."""
    by: dict[str, list[EpisodeRecord]] = {}
    for r in records:
        by.setdefault(str(r.score_details.get("observation", "unknown")), []).append(r)
    known = [(k, label) for k, label in SETTINGS if k in by] + [(k, k) for k in sorted(by) if k not in dict(SETTINGS)]
    header = ["Observation", "Tasks", "Parse failures", "Matched steps", "Missing steps", "Extra steps",
              "Coverage %", "Position error (mm)", "Orientation error (deg)"]
    rows = [_row(label, by[k]) for k, label in known]
    if len(known) > 1:
        rows.append(_row("All", list(records)))
    return "\n".join([
        "## Manual planning and spatial grounding (JARVIS Table 4)", "",
        "Plans stated before execution, matched to the manual's steps by part, colour and pose (within the "
        "scoring config's match radius). Coverage = matched / required steps; errors are means over matched "
        "steps. An answer that does not parse counts as an empty plan.", "",
        "| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|",
        *["| " + " | ".join(r) + " |" for r in rows], "",
    ])
