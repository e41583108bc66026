"""Text and numbers that are not text or numbers at the REST boundary: lone surrogates and NUL in bodies,
`%00` in file paths, 10**400 in budgets. Always a clean 4xx that names where, never a 500 or an echo."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agent.server.app import create_app, validation_errors
from tests.agent.server.conftest import make_settings


@pytest.fixture
def api(tmp_path: Path, quiz_plugin: None) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(tmp_path, workers=0), start_workers=False)) as client:
        yield client


def _post(api: TestClient, path: str, raw: str) -> Any:
    return api.post(path, content=raw.encode("ascii"), headers={"content-type": "application/json"})


@pytest.mark.parametrize(("raw", "where"), [
    ('{"task_id": "quiz/\\ud800", "agent": {"name": "scripted"}}', "task_id"),
    ('{"task_id": "quiz/1", "agent": {"name": "scripted\\udfff"}}', "agent.name"),
    ('{"task_id": "quiz/1\\u0000", "agent": {"name": "scripted"}}', "task_id"),
    ('{"task_id": "quiz/1", "agent": {"name": "scripted", "\\ud800": 1}}', "agent"),
])
def test_lone_surrogates_and_nul_in_a_body_are_a_422_naming_where(api: TestClient, raw: str, where: str) -> None:
    r = _post(api, "/v1/episodes", raw)
    assert r.status_code == 422, r.text
    (problem,) = r.json()["detail"]
    assert problem["type"] == "invalid_text" and problem["loc"][1].startswith(where)
    assert "\\ud8" not in r.text.lower() and "\\udf" not in r.text.lower()


def test_a_valid_surrogate_pair_is_text(api: TestClient) -> None:
    r = _post(api, "/v1/episodes", '{"task_id": "quiz/\\ud83d\\ude00", "agent": {"name": "scripted"}}')
    assert r.status_code == 404  # an emoji is text: the task simply does not exist


def test_the_422_handler_never_echoes_what_it_cannot_encode() -> None:
    shown = validation_errors([{"type": "string_type", "loc": ("body", "a\ud800"), "msg": "bad", "input": "x\ud800y",
                                "ctx": {"c": "\udc00"}}])
    json.dumps(shown, ensure_ascii=False).encode("utf-8")  # would raise on a lone surrogate
    assert shown[0]["input"] == "x\ufffdy"


@pytest.mark.parametrize("path", [
    "/v1/episodes/abc/artifacts/x%00.png",
    "/v1/runs/abc/files/summary%00.json",
    "/v1/episodes?task_id=quiz%00",
])
def test_nul_in_a_url_is_a_400(api: TestClient, path: str) -> None:
    r = api.get(path)
    assert r.status_code == 400 and "NUL" in r.text


@pytest.mark.parametrize("raw", [
    '{"task_id": "quiz/1", "agent": {"name": "scripted"}, "budget": {"wall_s": 1' + "0" * 400 + '}}',
    '{"task_id": "quiz/1", "agent": {"name": "scripted"}, "budget": {"rounds": 1' + "0" * 400 + '}}',
    '{"task_id": "quiz/1", "agent": {"name": "scripted"}, "budget": {"wall_s": 1e999}}',
])
def test_numbers_beyond_any_float_are_a_422(api: TestClient, raw: str) -> None:
    r = _post(api, "/v1/episodes", raw)
    assert r.status_code == 422, r.text
    assert "budget" in r.text
