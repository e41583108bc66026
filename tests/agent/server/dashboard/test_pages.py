"""The dashboard's pages over real run directories (TestClient): runs list, a run, an episode, files, tokens."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent.server.dashboard.app import create_view_app
from evaluator.run_dir import RunDirError
from tests.agent.server.conftest import make_settings
from tests.evaluator.runs import TASKS


def test_runs_list_and_run_page_tell_each_episodes_story(crafted_run: Path) -> None:
    c = TestClient(create_view_app([crafted_run]))
    runs = c.get("/")
    assert runs.status_code == 200 and 'href="/runs/crafted"' in runs.text
    assert 'title="9 of 10 finished"' in runs.text  # 9 records of the 10 tasks its config lists
    page = c.get("/runs/crafted")
    assert page.status_code == 200
    table = page.text.split('id="episodes"')[1]
    assert len(re.findall(r'<tr class="status-', table)) == 9
    for task in TASKS.values():
        assert task.id in table
    assert '<span class="p-failed">1</span> failed (counted as 0)' in page.text
    assert "budget exhausted after 2 rounds" in page.text  # the failure is named with its reason
    assert "Assembly by difficulty" in page.text and "Soft score by horizon" in page.text
    kinds = page.text.split('id="failed-kinds"')[1].split('</table>')[0]
    assert '<td><code>error</code></td><td>8</td>' in kinds and '<td><code>unknown_brick</code></td><td>1</td>' in kinds
    assert '<td>1200</td><td>300</td><td>0.0123</td>' in table  # tokens and cost of the failed episode


def test_episode_page_shows_rounds_program_calls_and_feedback(crafted_run: Path) -> None:
    c = TestClient(create_view_app([crafted_run]))
    page = c.get("/runs/crafted/episodes/ep-failing")
    assert page.status_code == 200
    html = page.text
    assert '<span class="line failed" data-line="2"><span class="ln">2</span>pick(&#39;p9&#39;)' in html
    assert html.count('class="line failed"') == 1
    assert "<details class=\"prompt\"><summary>Prompt (" in html  # collapsed: no 'open'
    assert "<b>unknown_brick</b>: no brick &#39;p9&#39; is on the table" in html
    assert "Feedback to the model" in html and "Round 1" in html and 'id="next-round"' in html
    assert "Not on disk: obs_000_rgb.png" in html  # a listed image that is missing is named, not linked


def test_unknown_run_episode_and_files_outside_the_run_are_404(crafted_run: Path) -> None:
    c = TestClient(create_view_app([crafted_run]))
    assert c.get("/runs/nope").status_code == 404
    assert "no episode 'nope'" in c.get("/runs/crafted/episodes/nope").json()["detail"]
    assert c.get("/runs/crafted/files/config.json").status_code == 200
    assert c.get("/runs/crafted/files/../crafted/config.json").status_code in (200, 404)
    assert c.get("/runs/crafted/files/%2e%2e/%2e%2e/etc/passwd").status_code == 404
    assert c.get("/dashboard/static/dashboard.js").headers["content-type"].startswith("text/javascript")
    assert c.get("/dashboard/static/..%2fread_models.py").status_code == 404


def test_progress_is_served_as_json_and_files_on_disk_cannot_be_cancelled(crafted_run: Path) -> None:
    c = TestClient(create_view_app([crafted_run]))
    live = c.get("/runs/crafted/progress").json()
    assert (live["total"], live["finished"], live["done"], live["failed"]) == (10, 9, 8, 1)
    assert live["mean"].count("[") == 1 and live["n_scored"] == 9 and live["cancellable"] is False
    refused = c.post("/runs/crafted/cancel")
    assert refused.status_code == 405 and "Ctrl-C" in refused.json()["detail"]
    assert c.post("/runs/nope/cancel").status_code == 404
    assert 'id="cancel-run"' not in c.get("/runs/crafted").text
    # A run directory with tasks left that was written just now is being written: its page polls. Left for an
    # hour, it is an interrupted run, and nothing polls it.
    assert live["live"] is True and 'data-live="yes"' in c.get("/runs/crafted").text
    import os

    old = time.time() - 3600
    os.utime(crafted_run / "episodes.jsonl", (old, old))
    assert c.get("/runs/crafted/progress").json()["live"] is False
    assert 'data-live="no"' in c.get("/runs/crafted").text


def test_view_refuses_a_directory_that_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match=r"no config\.json"):
        create_view_app([tmp_path])


def test_quiz_run_from_the_batch_runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JARVIS_PLUGINS", "tests.fakes.quiz_family")
    import tests.fakes.quiz_family  # noqa: F401
    from agent.config import AgentConfig
    from agent.runs.batch import run_batch
    from agent.runs.run_store import RunConfig

    out = tmp_path / "quiz-run"
    run_batch(RunConfig(task_ids=[f"quiz/{k}" for k in range(4)], agent=AgentConfig(name="scripted")), out,
              workers=0)
    c = TestClient(create_view_app([out]))
    page = c.get("/runs/quiz-run")
    assert page.status_code == 200 and page.text.count("quiz/") >= 4
    first = json.loads((out / "episodes.jsonl").read_text().splitlines()[0])
    episode = c.get(f"/runs/quiz-run/episodes/{first['episode_id']}")
    assert episode.status_code == 200 and "<h2>Answer</h2>" in episode.text


def _run_page(c: TestClient, run_id: str, token: str) -> int:
    return c.get(f"/runs/{run_id}", headers={"Authorization": f"Bearer {token}"}).status_code


@pytest.mark.slow
def test_server_dashboard_shows_a_token_only_its_runs_and_progress_advances(
        tmp_path: Path, quiz_plugin: None) -> None:
    from agent.server.app import create_app

    tok_a, tok_b = "dashboard-test-token-a-7f3c91", "dashboard-test-token-b-0d4e22"
    app = create_app(make_settings(tmp_path, api_token=f"{tok_a},{tok_b}"))
    with TestClient(app) as c:
        made = c.post("/v1/runs", json={"task_ids": [f"quiz/{k}" for k in range(3)], "agent": {"name": "scripted"}},
                      headers={"Authorization": f"Bearer {tok_a}"})
        assert made.status_code == 202, made.text
        run_id = made.json()["id"]
        listing = c.get("/", headers={"Authorization": f"Bearer {tok_a}"}).text
        assert run_id in listing
        if 'data-live="yes"' in listing:  # still running: the page polls its progress (refreshes without JS)
            assert '<noscript><meta http-equiv="refresh"' in listing
        assert run_id not in c.get("/", headers={"Authorization": f"Bearer {tok_b}"}).text
        assert _run_page(c, run_id, tok_b) == 404
        assert c.post(f"/runs/{run_id}/cancel", headers={"Authorization": f"Bearer {tok_b}"}).status_code == 404
        assert c.get(f"/runs/{run_id}/progress", headers={"Authorization": f"Bearer {tok_b}"}).status_code == 404
        anonymous = c.get("/", follow_redirects=False)
        assert anonymous.status_code == 303 and anonymous.headers["location"] == "/login"
        assert c.post("/login", data={"token": tok_a}, follow_redirects=False).status_code == 303
        assert c.get(f"/v1/runs/{run_id}").status_code == 401  # the cookie signs in pages, never the REST API
        seen = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            live = c.get(f"/runs/{run_id}/progress").json()
            assert live["total"] == 3 and live["finished"] == live["done"] + live["failed"] + live["cancelled"]
            seen.append(live["finished"])
            if seen[-1] == 3:
                break
            time.sleep(0.3)
        assert seen[-1] == 3 and seen == sorted(seen)
        c.cookies.clear()
        assert c.get(f"/runs/{run_id}", follow_redirects=False).status_code == 303
        assert c.get("/tasks", follow_redirects=False).status_code == 303  # the task browser wants a token too


@pytest.mark.slow
def test_oracle_episode_page_images_load(oracle_run: Path) -> None:
    c = TestClient(create_view_app([oracle_run]))
    run = c.get(f"/runs/{oracle_run.name}").text
    for src in re.findall(r'<img src="([^"]+)"', run):
        assert c.get(src).content[:4] == b"\x89PNG"
    episode_id = json.loads((oracle_run / "episodes.jsonl").read_text().splitlines()[0])["episode_id"]
    page = c.get(f"/runs/{oracle_run.name}/episodes/{episode_id}").text
    images = re.findall(r'<img src="([^"]+)"', page)
    assert images and all(c.get(src).content[:4] == b"\x89PNG" for src in images)
    assert "episodes/lego_v7-00009-stairs_000/" in images[0]  # the folder is named by the task
    assert 'id="bricks"' in page and "place_at" in page


@pytest.mark.slow
def test_a_real_episode_keeps_pictures_of_its_end_with_every_brick_outlined(oracle_run: Path) -> None:
    from jarvis_sim.records import EpisodeRecord
    from jarvis_sim.tasks.registry import load_task

    record = EpisodeRecord.model_validate_json((oracle_run / "episodes.jsonl").read_text().splitlines()[0])
    assert [v.kind for v in record.final_views] == ["camera", "final", "target"]
    target_ids = {b.id for b in load_task(record.task_id).target_assembly}
    for view in record.final_views:
        png = oracle_run / str(record.artifacts_dir) / view.image
        assert png.read_bytes()[:4] == b"\x89PNG"
        assert set(view.outlines) == target_ids, view.kind  # the oracle built it all: every brick shows
    page = TestClient(create_view_app([oracle_run])).get(f"/runs/{oracle_run.name}/episodes/{record.episode_id}").text
    section = page.split("<h2>Final state</h2>")[1].split("<h2>Bricks</h2>")[0]
    assert section.count("<figure") == 3 and "hsl(120, 75%, 42%)" in section


def test_a_line_appended_to_a_running_run_shows_on_the_next_page_view(crafted_run: Path) -> None:
    from jarvis_sim.records import EpisodeRecord

    c = TestClient(create_view_app([crafted_run]))
    assert "lego/test/late" not in c.get("/runs/crafted").text
    late = EpisodeRecord(episode_id="ep-late", task_id="lego/test/late", family="lego", status="failed",
                         error="worker died")
    with (crafted_run / "episodes.jsonl").open("a") as fh:
        fh.write(late.model_dump_json() + "\n")
    page = c.get("/runs/crafted").text
    assert "lego/test/late" in page and "worker died" in page
    assert c.get("/runs/crafted/progress").json()["finished"] == 10


def test_compare_two_runs_task_by_task(crafted_run: Path, tmp_path: Path) -> None:
    from tests.evaluator.builders import perfect_state
    from tests.evaluator.runs import lego_record, write_run

    other = write_run(tmp_path / "other", [lego_record(TASKS["easy"], perfect_state(TASKS["easy"]), 0)],
                      config={"model": "other-model", "tool_library": "generic"})
    c = TestClient(create_view_app([crafted_run, other]))
    assert 'name="run" value="other"' in c.get("/").text
    page = c.get("/compare", params=[("run", "crafted"), ("run", "other")])
    assert page.status_code == 200
    assert "other-model" in page.text and "fake-model" in page.text
    per_task = page.text.split('id="per-task"')[1]
    easy_row = next(line for line in per_task.splitlines() if line.startswith("<tr><td>lego/test/easy</td>"))
    assert easy_row.count('<a href="/runs/other/') == 1 and easy_row.count('<a href="/runs/crafted/') == 3
    hard_row = next(line for line in per_task.splitlines() if line.startswith("<tr><td>lego/test/hard</td>"))
    assert hard_row.endswith('<td data-value=""></td><td>–</td></tr>')  # not in the other run: blank, never a zero
    assert 'href="/compare/task?task=lego/test/easy&amp;run=crafted&amp;run=other">side by side' in easy_row
    assert c.get("/compare", params={"run": "crafted"}).status_code == 422
    plots = re.findall(r'<img src="(/compare/plots/[a-z_]+\.png\?run=crafted&amp;run=other)"', page.text)
    assert [p.split("/")[3].split(".")[0] for p in plots] == ["difficulty", "failed_actions", "rounds"]
    got = {p.split("/")[3].split(".")[0]: c.get(p.replace("&amp;", "&")) for p in plots}
    assert got["difficulty"].content[:4] == got["failed_actions"].content[:4] == b"\x89PNG"
    assert got["rounds"].status_code == 404  # neither run reflected: no curve (the page drops the figure)


def test_each_round_shows_the_view_it_started_from_and_the_one_after(crafted_run: Path) -> None:
    from PIL import Image

    folder = crafted_run / "episodes" / "lego_test_hard"
    folder.mkdir(parents=True)
    Image.new("RGB", (8, 8), "white").save(folder / "obs_000_rgb.png")
    Image.new("RGB", (8, 8), "grey").save(folder / "obs_001_rgb.png")
    lines = (crafted_run / "episodes.jsonl").read_text().splitlines()
    from jarvis_sim.records import EpisodeRecord

    rec = EpisodeRecord.model_validate_json(lines[-1])
    rec.artifacts_dir = "episodes/lego_test_hard"
    rec.rounds[1].observation_images = ["obs_001_rgb.png"]
    (crafted_run / "episodes.jsonl").write_text("\n".join([*lines[:-1], rec.model_dump_json()]) + "\n")
    c = TestClient(create_view_app([crafted_run]))
    html = c.get("/runs/crafted/episodes/ep-failing").text
    round1 = html.split('id="round-1"')[1]
    assert "before round 1: obs_000_rgb.png" in round1 and "after round 1: obs_001_rgb.png" in round1
    assert "Not on disk" not in html
    src = "/runs/crafted/files/episodes/lego_test_hard/obs_001_rgb.png"
    assert src in round1 and c.get(src).content[:4] == b"\x89PNG"


def _rect(x: int, y: int, w: int = 20, h: int = 10) -> list[list[tuple[int, int]]]:
    return [[(x, y), (x + w, y), (x + w, y + h), (x, y + h)]]


def test_final_state_beside_the_target_colours_each_brick_by_its_score(tmp_path: Path) -> None:
    from jarvis_sim.records import FinalView
    from tests.evaluator.builders import perfect_state, shifted
    from tests.evaluator.runs import lego_record, write_run

    task = TASKS["easy"]
    record = lego_record(task, shifted(perfect_state(task), "a1", dx=0.004), 0)
    poses = {b["target"]: b["pose"] for b in record.score_details["bricks"]}
    assert poses["a2"] == 100.0 and 0.0 < poses["a1"] < 100.0
    # Outlines as an episode's end writes them: physical ids in the built picture, target ids in the target's,
    # plus a distractor no target wants.
    built = {"i1": _rect(10, 10), "a1": _rect(40, 10), "a2": _rect(70, 10), "d1": _rect(100, 40)}
    views = [FinalView(kind=k, image=f"final_{k}.png", width=160, height=120, outlines=o)
             for k, o in (("final", built), ("target", {k: v for k, v in built.items() if k != "d1"}))]
    record = record.model_copy(update={"episode_id": "ep-easy", "final_views": views,
                                       "artifacts_dir": "episodes/lego_test_easy",
                                       "score_details": {**record.score_details, "disturbed": ["i1"]}})
    folder = tmp_path / "run" / "episodes" / "lego_test_easy"
    folder.mkdir(parents=True)
    from PIL import Image

    Image.new("RGB", (160, 120), "white").save(folder / "final_final.png")  # the target's picture is missing
    write_run(tmp_path / "run", [record])
    html = TestClient(create_view_app([tmp_path / "run"])).get(f"/runs/run/episodes/{record.episode_id}").text
    section = html.split("<h2>Final state</h2>")[1].split("<h2>Bricks</h2>")[0]
    groups = dict(re.findall(r'<g class="brick [^"]*" data-brick="([^"]+)"[^>]*style="--c: ([^"]+)"', section))
    assert groups["a2"] == "hsl(120, 75%, 42%)"  # full pose credit: green
    hue = int(groups["a1"].removeprefix("hsl(").split(",")[0])
    complete = {b["target"]: b["complete"] for b in record.score_details["bricks"]}
    # 4 mm off is not seated: however good its pose credit, it is drawn no greener than amber.
    shown = poses["a1"] if complete["a1"] else min(poses["a1"], 50.0)
    assert 0 < hue < 120 and hue == round(1.2 * shown)
    assert groups["i1"] == "#c62828" and groups["d1"] == "#8a8a8a"  # disturbed initial; wanted by no target
    assert "plane error 4.00 mm" in section  # the explanation, shown on hover
    assert '<polygon points="40,10 60,10 60,20 40,20">' in section
    assert section.count("<figure") == 2 and "final_target.png is not on disk" in section
    assert "/runs/run/files/episodes/lego_test_easy/final_final.png" in section


def test_an_assembly_record_without_pictures_says_so(crafted_run: Path) -> None:
    page = TestClient(create_view_app([crafted_run])).get("/runs/crafted/episodes/ep-failing").text
    assert "Final state" not in page  # it failed before any state was taken
    from tests.evaluator.builders import perfect_state
    from tests.evaluator.runs import lego_record, write_run

    old = lego_record(TASKS["easy"], perfect_state(TASKS["easy"]), 0).model_copy(update={"episode_id": "ep-old"})
    run = write_run(crafted_run.parent / "old", [old])
    page = TestClient(create_view_app([run])).get("/runs/old/episodes/ep-old").text
    assert "No pictures of the final state (recorded before" in page


def test_question_items_show_images_prompt_answer_parsed_choice_and_verdict(vsp_run: Path) -> None:
    from jarvis_sim.records import EpisodeRecord

    c = TestClient(create_view_app([vsp_run]))
    run = c.get("/runs/vsp-run").text
    assert "Tables of the task families" in run and "VSP main task: success by level" in run  # report.md's tables
    table = run.split('id="episodes"')[1]
    assert "<th>Correct</th>" in table and "<th data-type=\"num\">pose</th>" not in table
    records = [EpisodeRecord.model_validate_json(line) for line in (vsp_run / "episodes.jsonl").read_text().splitlines()]
    for rec in records:
        right = rec.scores["correct"] >= 100.0
        page = c.get(f"/runs/vsp-run/episodes/{rec.episode_id}").text
        verdict = re.search(r'<p id="verdict" class="verdict (right|wrong)">', page)
        assert verdict is not None and verdict.group(1) == ("right" if right else "wrong")
        plan = rec.score_details["official"].get("plan")
        if plan:
            assert json.dumps(plan).replace('"', "&#34;") in page.split('id="parsed"')[1]
        images = re.findall(r'<img src="(/runs/vsp-run/files/[^"]+)"', page)
        assert len(images) == len(rec.rounds[0].prompt_images) > 0
        assert all(c.get(src).status_code == 200 for src in images)  # kept in the episode folder
        assert "&lt;IMAGE-1&gt; in the prompt" in page


def test_one_task_in_two_runs_side_by_side(crafted_run: Path, pictured_run: Path, tmp_path: Path) -> None:
    from tests.evaluator.builders import perfect_state
    from tests.evaluator.runs import lego_record, write_run

    task = TASKS["medium"]
    other = write_run(tmp_path / "perfect", [lego_record(task, perfect_state(task), 0).model_copy(
        update={"episode_id": "ep-perfect"})], config={"model": "other-model"})
    c = TestClient(create_view_app([pictured_run, other, crafted_run]))
    page = c.get("/compare/task", params=[("task", task.id), ("run", "pictured"), ("run", "perfect"),
                                          ("run", "crafted")])
    assert page.status_code == 200
    sides = page.text.split('<section class="side" data-run="')[1:]
    assert [s.split('"')[0] for s in sides] == ["pictured", "perfect", "crafted"]
    soft = [re.search(r'<td class="soft">([^<]+)</td>', s).group(1) for s in sides]  # type: ignore[union-attr]
    assert soft[1] == "100.0" and float(soft[0]) < 100.0
    assert 'data-kind="final"' in sides[0] and 'data-kind="final"' not in sides[1]  # only one was pictured
    assert "(the first of 3)" in sides[2]  # the crafted run holds three episodes of this task (three seeds)
    assert '<div class="side-target">' in page.text  # the target once, from the run that pictured it
    assert c.get("/compare/task", params=[("task", task.id), ("run", "pictured")]).status_code == 422
    assert c.get("/compare/task", params=[("task", "lego/nope"), ("run", "pictured"), ("run", "perfect")]
                 ).status_code == 404
