"""Bad input is a 4xx that names the field and why; unknown names list the valid ones; auth and quotas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent.server.app import create_app
from agent.server.settings import ServerSettings, SettingsError
from tests.agent.server.conftest import make_settings


@pytest.fixture
def api(tmp_path: Path, quiz_plugin: None) -> Any:
    """An API without workers, a token, and a small quota."""
    app = create_app(make_settings(tmp_path, workers=0, api_token="s3cret-token", max_concurrent_per_token=3,
                                   max_runs_per_token=1, inline_agents=("scripted", "random")), start_workers=False)
    with TestClient(app, headers={"Authorization": "Bearer s3cret-token"}) as c:
        yield c


@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "task_id"),
        ({"task_id": ""}, "task_id"),
        ({"task_id": 5}, "task_id"),
        ({"task_id": "quiz/1", "agent": {"name": "scripted", "seed": "x"}}, "seed"),
        ({"task_id": "quiz/1", "agent": {"name": "scripted", "mode": "dreamy"}}, "mode"),
        ({"task_id": "quiz/1", "budget": {"rounds": 0}}, "rounds"),
        ({"task_id": "quiz/1", "budget": {"wall_s": -1}}, "wall_s"),
        ({"task_id": "quiz/1", "budget": {"tokens": 5}}, "tokens"),
        ({"task_id": "quiz/1", "agent": "scripted"}, "agent"),
    ],
)
def test_invalid_episode_bodies_name_the_field(api: TestClient, body: dict[str, Any], field: str) -> None:
    r = api.post("/v1/episodes", json=body)
    assert r.status_code == 422, r.text
    assert field in r.text


def test_unknown_names_list_the_valid_ones(api: TestClient) -> None:
    r = api.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "scripted", "model": "nope"}})
    assert r.status_code == 422 and "agent.model" in r.text and "openai" in r.text
    r = api.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "scripted", "model": "acme:x"}})
    assert r.status_code == 422 and "acme" in r.text
    r = api.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "oracle"}})
    assert r.status_code == 422 and "cannot run question items" in r.text and "scripted" in r.text
    r = api.post("/v1/episodes", json={"task_id": "no-such-family/1"})
    assert r.status_code == 404 and "quiz" in r.text
    r = api.post("/v1/runs", json={"suite": "nope", "agent": {"name": "scripted"}})
    assert r.status_code == 404 and "quiz-mini" in r.text
    r = api.post("/v1/runs", json={"suite": "quiz-mini", "task_ids": ["quiz/1"]})
    assert r.status_code == 422 and "suite" in r.text
    assert api.get("/v1/episodes/nope").status_code == 404
    assert api.get("/v1/runs/nope").status_code == 404
    assert api.get("/v1/tasks/quiz/1/images/7.png").status_code == 404


@pytest.mark.parametrize(
    "agent, field",
    [
        ({"name": "replay", "replay_file": "/etc/passwd"}, "agent.replay_file"),
        ({"name": "llm", "model": "openai:gpt-4o", "experience_file": "/root/.ssh/id_rsa"}, "agent.experience_file"),
        ({"name": "llm", "model": "openai:gpt-4o", "llm": {"base_url": "http://evil.example/v1",
                                                          "api_key_env": "JARVIS_API_TOKEN"}}, "agent.llm.base_url"),
        ({"name": "llm", "model": "openai:gpt-4o", "llm": {"api_key_env": "JARVIS_API_TOKEN"}}, "agent.llm.api_key_env"),
        ({"name": "llm", "model": "openai:gpt-4o", "llm": {"cache_dir": "/etc"}}, "agent.llm.cache_dir"),
        ({"name": "replay", "model": "replay:/etc/shadow"}, "agent.model"),
    ],
)
def test_options_reaching_server_files_or_secrets_are_refused(api: TestClient, agent: dict[str, Any],
                                                              field: str) -> None:
    for path, body in (("/v1/episodes", {"task_id": "quiz/1", "agent": agent}),
                       ("/v1/runs", {"task_ids": ["quiz/1"], "agent": agent})):
        r = api.post(path, json=body)
        assert r.status_code == 422 and field in r.text and "REST" in r.text, r.text


def test_auth_and_per_token_limits(api: TestClient) -> None:
    assert api.get("/v1/suites", headers={"Authorization": ""}).status_code == 401
    assert api.get("/v1/suites", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert api.get("/healthz", headers={"Authorization": ""}).status_code == 200  # probes need no token
    codes = [api.post("/v1/episodes", json={"task_id": f"quiz/{k}", "agent": {"name": "sleepy"}}).status_code
             for k in range(5)]
    assert codes == [202, 202, 202, 429, 429]
    assert api.post("/v1/runs", json={"task_ids": ["quiz/1"], "agent": {"name": "sleepy"}}).status_code == 202
    r = api.post("/v1/runs", json={"task_ids": ["quiz/2"], "agent": {"name": "sleepy"}})
    assert r.status_code == 429 and "run" in r.text


def test_public_bind_needs_a_real_token(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="JARVIS_API_TOKEN"):
        ServerSettings(host="0.0.0.0", data_dir=tmp_path, api_token="changeme").check_startable()
    ServerSettings(host="0.0.0.0", data_dir=tmp_path, api_token="a-long-random-secret").check_startable()
    with pytest.raises(SettingsError, match="JARVIS_WORKERS"):
        ServerSettings.from_env({"JARVIS_WORKERS": "-1"})


def test_inline_instant_agent_finishes_in_the_request(api: TestClient) -> None:
    r = api.post("/v1/episodes", json={"task_id": "quiz/7", "agent": {"name": "scripted"}})
    assert r.status_code == 201 and r.json()["status"] == "done"
    body = api.get(f"/v1/episodes/{r.json()['id']}").json()
    assert body["scores"]["soft_score"] == 100.0 and body["links"]["record"]
    assert api.get(body["links"]["record"]).json()["answer"].startswith("Answer:")


def test_openapi_metrics_and_health(api: TestClient) -> None:
    spec = api.get("/openapi.json").json()
    assert "/v1/episodes" in spec["paths"] and "/v1/runs/{run_id}/report" in spec["paths"]
    api.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "sleepy"}})
    text = api.get("/metrics").text
    assert "jarvis_queue_depth 1.0" in text and 'jarvis_episodes{state="queued"} 1.0' in text
    assert "jarvis_episode_duration_seconds_count 0.0" in text and "jarvis_workers_alive 0.0" in text
    assert "jarvis_interactive_simulators 0.0" in text
    api.post("/v1/episodes", json={"task_id": "quiz/2", "agent": {"name": "scripted"}})  # inline, finished
    text = api.get("/metrics").text
    assert "jarvis_episode_duration_seconds_count 1.0" in text
    assert 'jarvis_episode_duration_recent_seconds{quantile="0.99"}' in text
    health = api.get("/v1/status").json()
    assert health["status"] == "ok" and health["queue"] == {"queued": 1, "done": 1}


def test_runs_are_private_to_their_token(tmp_path: Path, quiz_plugin: None) -> None:
    app = create_app(make_settings(tmp_path, workers=0, api_token="token-one-xxxxxxxx,token-two-yyyyyyyy"),
                     start_workers=False)
    with TestClient(app) as c:
        one = {"Authorization": "Bearer token-one-xxxxxxxx"}
        two = {"Authorization": "Bearer token-two-yyyyyyyy"}
        run_id = c.post("/v1/runs", json={"task_ids": ["quiz/1"], "agent": {"name": "sleepy"}}, headers=one).json()["id"]
        assert c.get(f"/v1/runs/{run_id}", headers=one).status_code == 200
        assert c.get(f"/v1/runs/{run_id}", headers=two).status_code == 404
        eid = c.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {"name": "sleepy"}}, headers=one).json()["id"]
        assert c.get(f"/v1/episodes/{eid}", headers=two).status_code == 404
        assert c.delete(f"/v1/episodes/{eid}", headers=two).status_code == 404


def test_422_bodies_truncate_the_echoed_input(api: TestClient) -> None:
    huge = "q" * 150_000
    r = api.post("/v1/episodes", json={"task_id": huge, "agent": {"name": "scripted"}})
    assert r.status_code == 422 and len(r.content) < 2_000, len(r.content)
    err = r.json()["detail"][0]
    assert err["loc"] == ["body", "task_id"] and err["input"].endswith("(150000 chars)")
    many = api.post("/v1/runs", json={"task_ids": [5] * 5_000, "agent": {"name": "scripted"}})
    assert many.status_code == 422 and len(many.content) < 10_000
    assert many.json()["detail"][-1]["type"] == "too_many_errors"


@pytest.mark.parametrize("tokens", ["changeme,a-long-random-secret", "a-long-random-secret, Token ", ",,", " "])
def test_every_token_of_a_public_server_must_be_real(tmp_path: Path, tokens: str) -> None:
    with pytest.raises(SettingsError, match="JARVIS_API_TOKEN"):
        ServerSettings(host="0.0.0.0", data_dir=tmp_path, api_token=tokens).check_startable()


@pytest.mark.parametrize("host, loopback", [("127.0.0.1", True), ("127.8.9.10", True), ("::1", True),
                                            ("[::1]", True), ("localhost", True), ("127.example.com", False),
                                            ("127.0.0.1.nip.io", False), ("0.0.0.0", False), ("::", False),
                                            ("10.0.0.1", False)])
def test_loopback_is_an_ip_test_not_a_prefix_test(tmp_path: Path, host: str, loopback: bool) -> None:
    assert ServerSettings(host=host, data_dir=tmp_path).loopback is loopback
