"""What an external agent reads over REST: suites marked available or not, the workspace calibration."""

from __future__ import annotations

from fastapi.testclient import TestClient

from jarvis_sim.tasks.registry import load_task, suite_availability


def test_suites_mark_those_without_data_unavailable(client: TestClient) -> None:
    data = client.get("/v1/suites").json()["data"]
    mini = next(s for s in data if s["name"] == "jarvis-mini")
    assert mini["available"] and mini["tasks"] == 6 and mini["unavailable_because"] is None
    for s in data:
        n, why = suite_availability(s["name"])
        assert (s["available"], s["tasks"], s["unavailable_because"]) == (why is None, n, why)
    missing = next((s for s in data if not s["available"]), None)
    if missing is not None:  # this machine lacks some data (official VSP): such a suite answers an error, as marked
        assert client.get("/v1/tasks", params={"suite": missing["name"]}).status_code >= 400


def test_assembly_task_view_carries_the_workspace_calibration_in_mm(client: TestClient) -> None:
    task_id = client.get("/v1/tasks", params={"suite": "jarvis-mini", "limit": 1}).json()["data"][0]["id"]
    view = client.get(f"/v1/tasks/{task_id}").json()
    ws = load_task(task_id).workspace  # type: ignore[union-attr]
    cal = view["workspace"]
    assert cal["lattice_origin_mm"] == [round(c * 1000, 3) for c in ws.lattice_origin]
    assert cal["staging_min_mm"] == [round(c * 1000, 3) for c in ws.staging_min]
    assert cal["stud_pitch_mm"] == 8.0 and cal["plate_height_mm"] == 3.2
    assert "target" not in view
