"""Where the server's LLM keys may go: only to endpoints the operator named, never to a URL from a request."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent.server.app import create_app
from tests.agent.server.conftest import make_settings
from tests.agent.server.test_episodes import wait_done
from tests.fakes.header_listener import HeaderListener

OPERATOR_KEY = "sk-operator-0123456789abcdef"


def test_model_string_url_is_refused_and_nothing_reaches_the_host(tmp_path: Path, quiz_plugin: None,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", OPERATOR_KEY)
    with HeaderListener() as attacker:
        app = create_app(make_settings(tmp_path, workers=1, llm_endpoints={"lab": "http://127.0.0.1:9/v1"}))
        with TestClient(app) as c:
            agent: dict[str, Any] = {"name": "llm", "model": f"openai-compatible:{attacker.base_url}:x",
                                     "llm": {"max_attempts": 1}}
            for path, body in (("/v1/episodes", {"task_id": "quiz/1", "agent": agent}),
                               ("/v1/runs", {"task_ids": ["quiz/1"], "agent": agent})):
                r = c.post(path, json=body)
                assert r.status_code == 422, r.text
                detail = r.json()["detail"]
                assert detail["field"] == "agent.model" and "cannot name an endpoint URL" in detail["error"]
                assert detail["valid_endpoints"] == ["lab"]
            r = c.post("/v1/episodes", json={"task_id": "quiz/1", "agent": {**agent, "model": "openai-compatible:@nope:x"}})
            assert r.status_code == 422 and "unknown endpoint '@nope'" in r.text
            time.sleep(1.0)  # a worker that had taken it would have called by now
        assert attacker.requests() == []


def test_named_endpoint_gets_the_key_and_provider_errors_are_summarised(
    tmp_path: Path, quiz_plugin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", OPERATOR_KEY)
    leak = "psycopg.OperationalError at db-7.internal.corp:5432 user=svc_llm"
    with HeaderListener(status=500, body={"error": {"message": leak, "type": "server_error"}}) as lab:
        app = create_app(make_settings(tmp_path, workers=1, llm_endpoints={"lab": lab.base_url}))
        with TestClient(app) as c:
            r = c.post("/v1/episodes", json={"task_id": "quiz/2", "agent": {
                "name": "llm", "model": "openai-compatible:@lab:qwen", "llm": {"max_attempts": 1}}})
            assert r.status_code == 202, r.text
            done = wait_done(c, r.json()["id"])
            record = c.get(f"/v1/episodes/{done['id']}/record").json()
        seen = lab.requests()
    assert len(seen) == 1 and seen[0].path == "/v1/chat/completions"
    assert seen[0].headers["authorization"] == f"Bearer {OPERATOR_KEY}"  # the operator chose this host
    assert done["status"] == "failed"
    assert "HTTP 500" in done["error"] and "ServerError" in done["error"]
    for public in (done["error"], str(record)):  # status and kind only: the provider's text stays in the log
        assert "db-7.internal.corp" not in public and OPERATOR_KEY not in public
    assert record["agent"]["llm"]["base_url"] == lab.base_url  # the record says where the calls went
