"""API keys never leave the process: not in reprs, logs, errors, records, cache entries or pickles."""

from __future__ import annotations

import copy
import json
import logging
import pickle
from pathlib import Path

import pytest

from agent.llm import (
    ChatMessage,
    ChatRequest,
    LLMConfig,
    MissingCredentialError,
    RequestRejectedError,
    build_client,
)
from agent.llm.credentials import read_api_key, without_credentials
from tests.agent.llm.conftest import ALL_KEYS, ANTHROPIC_KEY, OPENAI_KEY, RecordingSleep
from tests.fakes.llm_servers import Fail, FakeAnthropicServer, FakeOpenAIServer


def _assert_no_key(text: str, where: str) -> None:
    for key in ALL_KEYS:
        assert key not in text, f"API key leaked into {where}"
        assert key[:-8] not in text, f"API key prefix leaked into {where}"


def test_key_used_on_the_wire_but_nowhere_else(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, sleep: RecordingSleep
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, the SDKs' and httpx's included
    recording = tmp_path / "rec.jsonl"
    with FakeOpenAIServer(["ok", Fail(500, "flaky"), "ok again"]) as oai, FakeAnthropicServer(["hi"]) as ant:
        clients = [
            build_client(
                LLMConfig(
                    model="openai:gpt-4o", base_url=oai.base_url, cache_dir=tmp_path / "cache", record_to=recording
                ),
                sleep=sleep,
            ),
            build_client(LLMConfig(model="anthropic:claude-sonnet-4-6", base_url=ant.base_url), sleep=sleep),
        ]
        responses = [
            clients[0].chat(ChatRequest(messages=(ChatMessage.user("one"),))),
            clients[0].chat(ChatRequest(messages=(ChatMessage.user("two"),))),  # 500 then retry: logged
            clients[1].chat(ChatRequest(messages=(ChatMessage.user("three"),))),
        ]
    # The keys did go where they belong: the HTTP headers.
    assert oai.requests[0].headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert ANTHROPIC_KEY in json.dumps(ant.requests[0].headers)

    assert "retry 1" in caplog.text  # the retry was logged ...
    _assert_no_key(caplog.text, "log records")  # ... without a key
    for client in clients:
        _assert_no_key(repr(client), "client repr")
        _assert_no_key(repr(client.provider), "provider repr")
        _assert_no_key(repr(vars(client.provider)), "provider attributes")
        _assert_no_key(json.dumps(client.describe()), "client description")
        _assert_no_key(json.dumps(client.total.summary()), "usage summary")
        _assert_no_key(client.total.to_record().model_dump_json(), "TokenAccount record")
        with pytest.raises(TypeError, match="cannot be pickled"):
            pickle.dumps(client)
        with pytest.raises(TypeError, match="cannot be pickled"):
            pickle.dumps(client.provider)
    for response in responses:
        _assert_no_key(response.model_dump_json(), "response")
        _assert_no_key(repr(response), "response repr")
    for path in [*tmp_path.rglob("*")]:
        if path.is_file():
            _assert_no_key(path.read_text(), f"file {path.name}")
    _assert_no_key(LLMConfig(model="openai:gpt-4o").model_dump_json(), "config")


def test_error_messages_are_scrubbed(caplog: pytest.LogCaptureFixture, sleep: RecordingSleep) -> None:
    caplog.set_level(logging.DEBUG)
    with FakeOpenAIServer([Fail(401, f"Incorrect API key provided: {OPENAI_KEY}")]) as server:
        client = build_client(LLMConfig(model="openai:gpt-4o", base_url=server.base_url), sleep=sleep)
        with pytest.raises(RequestRejectedError) as info:
            client.chat(ChatRequest(messages=(ChatMessage.user("x"),)))
    assert "Incorrect API key provided: ***" in info.value.detail
    _assert_no_key(str(info.value), "error message")
    _assert_no_key(info.value.detail, "error detail")
    _assert_no_key(caplog.text, "log")
    _assert_no_key(repr(info.value), "error repr")
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_api_key_object_masks_itself() -> None:
    key = read_api_key("OPENAI_API_KEY", required=True)
    assert key.reveal() == OPENAI_KEY
    _assert_no_key(repr(key) + str(key) + f"{key}", "ApiKey formatting")
    with pytest.raises(TypeError):
        pickle.dumps(key)
    with pytest.raises(TypeError):
        copy.deepcopy(key)
    with pytest.raises(TypeError):
        json.dumps(key)


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    client = build_client(LLMConfig(model="anthropic:claude-sonnet-4-6", base_url="http://127.0.0.1:9"))
    with pytest.raises(MissingCredentialError, match="ANTHROPIC_API_KEY is not set"):
        client.chat(ChatRequest(messages=(ChatMessage.user("x"),)))
    custom = build_client(LLMConfig(model="deepseek:deepseek-chat", api_key_env="MY_DEEPSEEK_KEY"))
    with pytest.raises(MissingCredentialError, match="MY_DEEPSEEK_KEY"):
        custom.chat(ChatRequest(messages=(ChatMessage.user("x"),)))


def test_self_hosted_endpoint_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_COMPATIBLE_API_KEY", raising=False)
    with FakeOpenAIServer(["fine"]) as server:
        client = build_client(LLMConfig(model=f"openai-compatible:{server.base_url}:llava"))
        assert client.chat(ChatRequest(messages=(ChatMessage.user("x"),))).text == "fine"
        assert server.requests[0].headers["authorization"] == "Bearer not-needed"


def test_environment_for_untrusted_processes_has_no_keys() -> None:
    import os

    from agent.llm.registry import credential_env_names

    names = credential_env_names()
    assert {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_COMPATIBLE_API_KEY"} <= set(names)
    env = {**os.environ, "HF_ACCESS_TOKEN": "hf-secret", "OLLAMA_KEY_FILE": "/x", "PATH": "/usr/bin"}
    clean = without_credentials(env, also=[*names, "VLLM_TEST_KEY"])
    _assert_no_key(json.dumps(clean), "scrubbed environment")
    assert "HF_ACCESS_TOKEN" not in clean and clean["PATH"] == "/usr/bin" and clean["OLLAMA_KEY_FILE"] == "/x"
