"""What an external agent reads over REST: suites marked available or not, the workspace calibration."""

from __future__ import annotations

from fastapi.testclient import TestClient

from jarvis_sim.tasks.registry import load_task, suite_availability


def test_suites_mark_those_without_data_unavailable(client: TestClient) -> None:
    data = client.get("/v1/suites").json()["data"]
    mini = next(s for s in data if s["name"] == "jarvis-mini")
    assert mini["available"] and mini["tasks"] == 6 and mini["unavailable_because"] is None
    reasons = {}
    for s in data:
        n, why = suite_availability(s["name"])
        reasons[s["name"]] = why
        assert (s["available"], s["tasks"]) == (why is None, n)
        if n is None:  # data missing: said as a REST client reads it, never as a command-line flag to pass
            assert s["unavailable_because"] == f"not installed on this server ({why}); its operator can install " \
                                               "it, a client cannot" and "--vsp-root" not in s["unavailable_because"]
        else:
            assert s["unavailable_because"] == why
    # A suite listed with no tasks (a text variant of an image-only VSP task) is marked, not offered as available.
    empty = next(s for s in data if s["name"] == "vsp-gen-mini-maze-t3@table-0shot")
    assert (empty["available"], empty["tasks"]) == (False, 0) and "holds no tasks" in empty["unavailable_because"]
    missing = next((s for s in data if s["tasks"] is None), None)
    if missing is not None:  # this machine lacks some data (official VSP): such a suite answers an error, as marked
        r = client.get("/v1/tasks", params={"suite": missing["name"]})
        assert r.status_code == 422 and reasons[missing["name"]] in r.json()["detail"]


def test_assembly_task_view_carries_the_workspace_calibration_in_mm(client: TestClient) -> None:
    task_id = client.get("/v1/tasks", params={"suite": "jarvis-mini", "limit": 1}).json()["data"][0]["id"]
    view = client.get(f"/v1/tasks/{task_id}").json()
    ws = load_task(task_id).workspace  # type: ignore[union-attr]
    cal = view["workspace"]
    assert cal["lattice_origin_mm"] == [round(c * 1000, 3) for c in ws.lattice_origin]
    assert cal["staging_min_mm"] == [round(c * 1000, 3) for c in ws.staging_min]
    assert cal["stud_pitch_mm"] == 8.0 and cal["plate_height_mm"] == 3.2
    assert "target" not in view
    n = len(view["manual_steps"])
    assert view["manual_images"] == [f"/v1/tasks/{task_id}/manual/{k}.png" for k in range(1, n + 1)]  # from 1
    r = client.get(f"/v1/tasks/{task_id}/manual/0.png")
    assert r.status_code == 404 and f"numbered 1 to {n}" in r.json()["detail"]


def test_get_runs_lists_this_tokens_runs_newest_first(tmp_path, quiz_plugin: None) -> None:
    from agent.server.app import create_app
    from tests.agent.server.conftest import make_settings

    a, b = {"Authorization": "Bearer tok-a"}, {"Authorization": "Bearer tok-b"}
    with TestClient(create_app(make_settings(tmp_path, api_token="tok-a,tok-b", workers=0))) as c:
        first = c.post("/v1/runs", json={"suite": "quiz-mini", "agent": {"name": "scripted"}}, headers=a).json()["id"]
        second = c.post("/v1/runs", json={"suite": "quiz-mini", "agent": {"name": "scripted"}}, headers=a).json()["id"]
        c.post("/v1/runs", json={"suite": "quiz-mini", "agent": {"name": "scripted"}}, headers=b)
        body = c.get("/v1/runs", headers=a).json()
        assert body["count"] == 2 and [r["id"] for r in body["data"]] == [second, first]
        run = body["data"][0]
        assert run["status"] == "running" and run["total"] == 40 and run["counts"] == {"queued": 40}
        assert run["links"]["self"] == f"/v1/runs/{second}" and run["summary"] is None
        page = c.get("/v1/runs", params={"offset": 1, "limit": 1}, headers=a).json()
        assert page["count"] == 2 and [r["id"] for r in page["data"]] == [first]
        assert c.get("/v1/runs", headers=b).json()["count"] == 1
        assert c.get("/v1/runs", params={"limit": 0}, headers=a).status_code == 422
