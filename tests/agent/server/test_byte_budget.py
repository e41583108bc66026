"""Bytes an agent makes are bounded per episode: 380 legal calls with a 1 MB argument each no longer
multiply into the skill context, the sandbox server, the record and the REST response."""

from __future__ import annotations

import json
import resource
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.server.app import create_app
from jarvis_sim.tasks.registry import suite_task_ids
from skills.stored import MARKER
from tests.agent.server.conftest import make_settings

CALLS, ARG_CHARS = 380, 1_000_000  # the red team's program: under the default 400-call budget, 1 MB lines
HOSTILE = f"""
big = "r" * {ARG_CHARS}
refused = 0
for i in range({CALLS}):
    try:
        find_bricks(color=big)
    except SkillError as e:
        refused += 1
        kind = e.kind
print(refused, kind)
below = "r" * 60_000  # under the per-call limit: reaches the skill, and the record keeps a marker
for i in range(20):
    try:
        find_bricks(color=below)
    except SkillError as e:
        pass
"""
PLAIN = "bricks = observe()\nprint(len(bricks))\n"


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


@pytest.mark.slow
@pytest.mark.render
def test_megabyte_arguments_are_refused_at_the_boundary_and_nothing_multiplies(tmp_path: Path, quiz_plugin: None) -> None:
    task_id = suite_task_ids("jarvis-mini")[0]
    settings = make_settings(tmp_path, workers=0, max_interactive=1, interactive_idle_s=3600)
    with TestClient(create_app(settings, start_workers=False)) as client:
        r = client.post("/v1/episodes", json={"task_id": task_id, "agent": {"name": "external"},
                                              "budget": {"record_bytes": 1 << 20}})
        assert r.status_code == 201, r.text
        eid = r.json()["id"]
        plain = client.post(f"/v1/episodes/{eid}/programs", json={"code": PLAIN})
        assert plain.json()["outcome"] == "ok", plain.text
        baseline = _peak_rss_mb()

        hostile = client.post(f"/v1/episodes/{eid}/programs", json={"code": HOSTILE})
        body = hostile.json()
        assert body["outcome"] == "ok", body["feedback"]
        assert body["stdout"].split() == [str(CALLS), "argument_too_large"]  # a typed error, caught by the program
        reached = body["skill_calls"]
        assert len(reached) == 20 and all(c["args"]["color"].startswith(MARKER) for c in reached)
        assert len(hostile.content) < 1 << 20, len(hostile.content)  # was 410 MB
        peak = _peak_rss_mb()

        done = client.post(f"/v1/episodes/{eid}/finish")
        assert done.status_code == 200, done.text
        record_path = next((settings.data_dir / "episodes" / eid).glob("record.json"))
        size = record_path.stat().st_size
        assert size < 2 << 20, size  # the 1 MiB budget plus the record's own fields, not 410 MB
        record = json.loads(record_path.read_text())
        kept = [c for rd in record["rounds"] for c in rd["skill_calls"]]
        assert all(len(json.dumps(c)) < 20_000 for c in kept)
    ratio = peak / baseline
    print(json.dumps({"baseline_peak_rss_mb": round(baseline), "hostile_peak_rss_mb": round(peak),
                      "ratio": round(ratio, 3), "response_bytes": len(hostile.content), "record_bytes": size}))
    assert ratio < 1.5 and peak - baseline < 150, (baseline, peak)
