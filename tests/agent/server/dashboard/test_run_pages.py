"""The run page's pages of episodes, the runs list's date and duration, and the skill-call table's Line column."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from agent.server.dashboard.app import create_view_app
from jarvis_sim.records import SkillCallRecord, Timings
from tests.agent.server.dashboard.conftest import failing_record
from tests.evaluator.runs import standard_records, write_run


def _long_run(root: Path, n: int) -> Path:
    base = standard_records()[0]
    records = [base.model_copy(update={"episode_id": f"ep-{k:03d}", "seed": k, "timings": Timings(
        started_at=f"2026-12-04T10:{k // 60:02d}:{k % 60:02d}+00:00", finished_at=f"2026-12-04T11:{k // 60:02d}:"
        f"{k % 60:02d}+00:00", wall_s=3.0)}) for k in range(n)]
    return write_run(root, records, config={"model": "fake-model", "agent": {"name": "oracle"}})


def test_a_long_run_is_shown_a_hundred_episodes_a_page(tmp_path: Path) -> None:
    run = _long_run(tmp_path / "long", 250)
    c = TestClient(create_view_app([run]))
    first = c.get("/runs/long").text
    assert len(re.findall(r'href="/runs/long/episodes/ep-\d+"', first)) == 100
    assert "Episodes 1–100 of 250 (page 1 of 3)" in first and 'href="?page=2" rel="next"' in first
    last = c.get("/runs/long", params={"page": 3}).text
    assert len(re.findall(r'href="/runs/long/episodes/ep-\d+"', last)) == 50 and "ep-249" in last
    everything = c.get("/runs/long", params={"page": "all"}).text
    assert len(re.findall(r'href="/runs/long/episodes/ep-\d+"', everything)) == 250
    assert c.get("/runs/long", params={"page": 4}).status_code == 404
    assert c.get("/runs/long", params={"page": "two"}).status_code == 422


def test_runs_list_and_run_page_show_when_a_run_started_and_how_long_it_took(tmp_path: Path) -> None:
    run = _long_run(tmp_path / "dated", 3)
    c = TestClient(create_view_app([run]))
    listing = c.get("/").text
    # First start 10:00:00, last end 11:00:02: an hour and two seconds.
    assert "2026-12-04 10:00 UTC" in listing and "60.0 min" in listing
    assert "started: <b>2026-12-04 10:00 UTC</b>" in c.get("/runs/dated").text


def test_the_line_column_shows_only_where_calls_carry_their_line(tmp_path: Path) -> None:
    with_lines = failing_record()
    rounds = [r.model_copy(update={"skill_calls": [SkillCallRecord(name="go_home", ok=True)]}) for r in with_lines.rounds]
    without = with_lines.model_copy(update={"episode_id": "ep-nolines", "seed": 1, "rounds": rounds})
    run = write_run(tmp_path / "lines", [with_lines, without], config={"model": "fake-model"})
    c = TestClient(create_view_app([run]))
    assert "<th>Line</th>" in c.get("/runs/lines/episodes/ep-failing").text
    assert "<th>Line</th>" not in c.get("/runs/lines/episodes/ep-nolines").text


def test_compare_names_each_runs_agent(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", standard_records(), config={"model": "m", "agent": {"name": "oracle"}})
    b = write_run(tmp_path / "b", standard_records(), config={"model": "m", "agent": {"name": "careful_oracle"}})
    page = TestClient(create_view_app([a, b])).get("/compare", params=[("run", "a"), ("run", "b")]).text
    assert "<th>Agent</th>" in page and "<td>oracle</td>" in page and "<td>careful_oracle</td>" in page
