"""Episodes over REST: submit, poll, record, cancel, interactive answers, validation errors."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient


def wait_done(client: TestClient, episode_id: str, timeout: float = 60.0) -> dict[str, Any]:
    """Poll an episode until it is terminal."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        body: dict[str, Any] = client.get(f"/v1/episodes/{episode_id}").json()
        if body["status"] in ("done", "failed", "cancelled"):
            return body
        time.sleep(0.05)
    raise AssertionError(f"episode {episode_id} did not finish: {body}")


def test_scripted_question_episode_scores_100(client: TestClient) -> None:
    r = client.post("/v1/episodes", json={"task_id": "quiz/3", "agent": {"name": "scripted"}})
    assert r.status_code == 202, r.text
    done = wait_done(client, r.json()["id"])
    assert done["status"] == "done"
    assert done["scores"]["soft_score"] == 100.0
    record = client.get(f"/v1/episodes/{done['id']}/record").json()
    assert record["task_id"] == "quiz/3" and record["answer"].startswith("Answer:")


def test_unknown_task_and_agent_list_valid_ones(client: TestClient) -> None:
    r = client.post("/v1/episodes", json={"task_id": "quiz/999", "agent": {"name": "scripted"}})
    assert r.status_code == 404 and "quiz/0" in r.text
    r = client.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "wizard"}})
    assert r.status_code == 422 and "scripted" in r.text
    r = client.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "scripted", "colour": 3}})
    assert r.status_code == 422 and "colour" in r.text
    r = client.get("/v1/tasks", params={"suite": "nope"})
    assert r.status_code == 404 and "quiz-mini" in r.text


def test_public_task_view_hides_the_answer(client: TestClient) -> None:
    body = client.get("/v1/tasks/quiz/5").json()
    assert "answer" not in body and "prompt" in body
    page = client.get("/v1/tasks", params={"suite": "quiz-mini", "limit": 7}).json()
    assert page["count"] == 40 and len(page["data"]) == 7


def test_interactive_question_episode(client: TestClient) -> None:
    r = client.post("/v1/episodes", json={"task_id": "quiz/2", "agent": {"name": "external"}})
    assert r.status_code == 201, r.text
    first = r.json()
    assert "What is" in first["interactive"]["prompt"]
    a, b = [int(x) for x in first["interactive"]["prompt"].split("What is ")[1].split("?")[0].split(" + ")]
    scored = client.post(f"/v1/episodes/{first['id']}/answer", json={"answer": f"Answer: {a + b}"}).json()
    assert scored["scores"]["soft_score"] == 100.0
    again = client.post(f"/v1/episodes/{first['id']}/answer", json={"answer": "Answer: 0"})
    assert again.status_code == 409  # a finished result is never rewritten


def test_cancel_queued_episode(client: TestClient) -> None:
    ids = [client.post("/v1/episodes", json={"task_id": f"quiz/{k}", "agent": {"name": "random"}}).json()["id"]
           for k in range(10)]
    r = client.delete(f"/v1/episodes/{ids[-1]}")
    assert r.status_code == 200
    assert wait_done(client, ids[-1])["status"] in ("cancelled", "done")


def test_run_over_rest_reports(client: TestClient) -> None:
    r = client.post("/v1/runs", json={"suite": "quiz-mini", "agent": {"name": "scripted"}})
    assert r.status_code == 202, r.text
    run_id = r.json()["id"]
    deadline = time.time() + 90
    while time.time() < deadline:
        body = client.get(f"/v1/runs/{run_id}").json()
        if body["status"] == "done":
            break
        time.sleep(0.2)
    assert body["status"] == "done" and body["counts"].get("done") == 40
    assert body["summary"]["n_episodes"] == 40
    assert client.get(f"/v1/runs/{run_id}/report").status_code == 200


def test_a_cancelled_run_ends_cancelled_not_done(client: TestClient) -> None:
    run_id = client.post("/v1/runs", json={"task_ids": [f"quiz/{k}" for k in range(30)],
                                           "agent": {"name": "scripted"}}).json()["id"]
    assert client.delete(f"/v1/runs/{run_id}").status_code == 200
    deadline = time.time() + 60
    while (body := client.get(f"/v1/runs/{run_id}").json())["status"] == "running" and time.time() < deadline:
        time.sleep(0.2)
    assert body["status"] == "cancelled" and body["counts"].get("cancelled", 0) > 0, body
    assert client.get("/v1/runs").json()["data"][0]["status"] == "cancelled"
    # A cancelled run has its report, and what it links resolves from the report's own URL (under files/).
    report = client.get(f"/v1/runs/{run_id}/report")
    assert report.status_code == 200
    links = re.findall(r"\]\(([^)\s]+)\)", report.text)
    assert all(link.startswith("files/") for link in links), links
    for link in links:
        assert client.get(f"/v1/runs/{run_id}/{link}").status_code == 200, link
    # Episode pictures sit in sub-folders of the run directory: served, and nothing outside it.
    root = client.app.state.settings.data_dir / "runs" / run_id  # type: ignore[attr-defined]
    (root / "episodes" / "e1").mkdir(parents=True, exist_ok=True)
    (root / "episodes" / "e1" / "final_top.png").write_bytes(b"\x89PNG")
    assert client.get(f"/v1/runs/{run_id}/files/episodes/e1/final_top.png").content == b"\x89PNG"
    assert client.get(f"/v1/runs/{run_id}/files/..%2F..%2Fjarvis.db").status_code == 404


def test_report_links_relative_to_the_run_directory_are_moved_under_files() -> None:
    from agent.server.routes.runs import _RELATIVE_LINK

    text = ("![difficulty](difficulty.png) [top](episodes/e1/final_top.png) [site](https://x.org/a.png) "
            "[abs](/v1/x) [anchor](#failures)")
    out = _RELATIVE_LINK.sub(lambda m: f"{m.group(1)}files/{m.group(2)})", text)
    assert out == ("![difficulty](files/difficulty.png) [top](files/episodes/e1/final_top.png) "
                   "[site](https://x.org/a.png) [abs](/v1/x) [anchor](#failures)")


def test_metrics_and_health(client: TestClient) -> None:
    assert client.get("/healthz").json()["status"] == "ok"
    text = client.get("/metrics").text
    assert "jarvis_queue_depth" in text and 'jarvis_episodes{state="done"}' in text


@pytest.mark.slow
def test_server_on_postgresql(tmp_path: Path, quiz_plugin: None, postgres_url: str) -> None:
    from agent.server.app import create_app
    from tests.agent.server.conftest import make_settings

    with TestClient(create_app(make_settings(tmp_path, db_url=postgres_url))) as client:
        run_id = client.post("/v1/runs", json={"task_ids": [f"quiz/{k}" for k in range(5)],
                                               "agent": {"name": "scripted"}}).json()["id"]
        eid = client.post("/v1/episodes", json={"task_id": "quiz/9", "agent": {"name": "random"}}).json()["id"]
        assert wait_done(client, eid)["status"] == "done"
        deadline = time.time() + 60
        while (body := client.get(f"/v1/runs/{run_id}").json())["status"] != "done" and time.time() < deadline:
            time.sleep(0.1)
        assert body["counts"] == {"done": 5} and body["summary"]["n_episodes"] == 5


@pytest.mark.render
def test_manual_and_observation_images_of_an_assembly_task(client: TestClient, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JARVIS_CACHE_DIR", str(tmp_path / "cache"))
    task_id = client.get("/v1/tasks", params={"suite": "jarvis-mini", "limit": 1}).json()["data"][0]["id"]
    view = client.get(f"/v1/tasks/{task_id}").json()
    assert "target" not in view and view["manual_images"]
    page = client.get(view["manual_images"][0])
    assert page.status_code == 200 and page.headers["content-type"] == "image/png"
    assert page.content.startswith(b"\x89PNG")
    obs = client.get(view["observation_image"])
    assert obs.status_code == 200 and obs.content.startswith(b"\x89PNG")
    assert client.get(f"{view['manual_images'][0]}?style=sketchy").status_code == 422
    assert client.get(f"/v1/tasks/{task_id}/manual/99.png").status_code == 404


def test_a_task_listed_twice_in_a_run_counts_twice(client: TestClient) -> None:
    r = client.post("/v1/runs", json={"task_ids": ["quiz/1", "quiz/1", "quiz/2"], "agent": {"name": "scripted"}})
    assert r.status_code == 202, r.text
    run_id = r.json()["id"]
    deadline = time.time() + 90
    while (body := client.get(f"/v1/runs/{run_id}").json())["status"] != "done" and time.time() < deadline:
        time.sleep(0.1)
    assert body["counts"] == {"done": 3}
    assert body["summary"]["n_episodes"] == 3
