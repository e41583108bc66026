"""Total deadlines of model calls: a server that drips its answer a byte at a time cannot hold a call."""

from __future__ import annotations

import time

import pytest

from agent.llm import (
    ChatMessage,
    ChatRequest,
    LLMConfig,
    ProviderTimeoutError,
    RetryPolicy,
    ServerError,
    build_client,
)
from agent.llm.deadline import episode_deadline, episode_time_left
from agent.llm.errors import EpisodeDeadlineError
from tests.agent.llm.conftest import RecordingSleep
from tests.fakes.llm_servers import Drip, Fail, FakeAnthropicServer, FakeOpenAIServer, Reply

REQUEST = ChatRequest(messages=(ChatMessage.user("hi"),), max_tokens=16)


@pytest.fixture(autouse=True)
def sdks_imported() -> None:
    """The SDKs imported before any clock starts: their first import alone can take seconds on a busy machine."""
    import anthropic  # noqa: F401
    import openai  # noqa: F401


def _wait_until_idle(server: FakeOpenAIServer | FakeAnthropicServer, within_s: float = 3.0) -> None:
    """The server's dripping handler notices the client left (its next write fails)."""
    until = time.monotonic() + within_s
    while server.dripping and time.monotonic() < until:
        time.sleep(0.05)


def test_a_dripping_openai_endpoint_ends_at_the_total_deadline() -> None:
    # 0.2 s between bytes: every single read succeeds long before any per-read timeout would fire.
    with FakeOpenAIServer(default=Drip(0.2)) as server:
        client = build_client(LLMConfig(model="openai:gpt-4o", base_url=server.base_url, timeout_s=2.0,
                                        retry=RetryPolicy(max_attempts=5, base_delay_s=0.0)))
        t0 = time.monotonic()
        with pytest.raises(ProviderTimeoutError):
            client.chat(REQUEST)
        took = time.monotonic() - t0
        _wait_until_idle(server)
        assert server.dripping == 0  # the connection was dropped, not left dripping
    assert 1.8 <= took < 4.0, took  # unbounded, the ~700-byte answer would drip for over 2 minutes
    assert len(server.requests) == 1  # no retry was started with no time left


def test_a_dripping_anthropic_endpoint_ends_at_the_total_deadline() -> None:
    with FakeAnthropicServer(default=Drip(0.2)) as server:
        client = build_client(LLMConfig(model="anthropic:claude-sonnet-4-5", base_url=server.base_url, timeout_s=1.5))
        t0 = time.monotonic()
        with pytest.raises(ProviderTimeoutError):
            client.chat(REQUEST)
        took = time.monotonic() - t0
    assert 1.3 <= took < 2.5, took


def test_a_fast_drip_that_finishes_in_time_is_an_answer() -> None:
    with FakeOpenAIServer([Drip(0.001, Reply("ok"))]) as server:
        client = build_client(LLMConfig(model="openai:gpt-4o", base_url=server.base_url, timeout_s=20.0))
        assert client.chat(REQUEST).text == "ok"


def test_the_episode_budget_ends_a_model_call_in_flight() -> None:
    with FakeOpenAIServer(default=Drip(0.2)) as server:
        client = build_client(LLMConfig(model="openai:gpt-4o", base_url=server.base_url, timeout_s=60.0))
        t0 = time.monotonic()
        with episode_deadline(1.0), pytest.raises(EpisodeDeadlineError, match="wall-clock budget"):
            client.chat(REQUEST)
        took = time.monotonic() - t0
        assert episode_time_left() == float("inf")  # the budget belongs to the block that set it
    assert took < 2.0, took


def test_no_call_starts_once_the_episode_budget_is_spent() -> None:
    with FakeOpenAIServer(["never asked"]) as server:
        client = build_client(LLMConfig(model="openai:gpt-4o", base_url=server.base_url))
        with episode_deadline(0.0), pytest.raises(EpisodeDeadlineError):
            client.chat(REQUEST)
    assert server.requests == []


def test_retries_stop_at_the_total_deadline(sleep: RecordingSleep) -> None:
    # A backoff that would end after the deadline is not waited out: the last error is raised at once.
    with FakeOpenAIServer(default=Fail(503)) as server:
        client = build_client(
            LLMConfig(model="openai:gpt-4o", base_url=server.base_url, timeout_s=1.0,
                      retry=RetryPolicy(max_attempts=5, base_delay_s=4.0)),
            sleep=sleep,
        )
        with pytest.raises(ServerError):
            client.chat(REQUEST)
    assert sleep.waits == [] and len(server.requests) == 1


def test_an_answer_larger_than_the_cap_is_refused_while_it_arrives_and_not_retried() -> None:
    from agent.llm.errors import AnswerTooLargeError

    with FakeOpenAIServer(default=Reply("x" * 3_000_000)) as server:
        client = build_client(LLMConfig(model="openai:gpt-4o", base_url=server.base_url, max_answer_bytes=1 << 20))
        with pytest.raises(AnswerTooLargeError, match="max_answer_bytes"):
            client.chat(REQUEST)
    assert len(server.requests) == 1


def test_a_lone_surrogate_in_an_answer_is_replaced_not_fatal() -> None:
    with FakeOpenAIServer([Reply("Answer: \ud800 12")]) as server:  # the fake sends it as JSON's \\ud800 escape
        client = build_client(LLMConfig(model="openai:gpt-4o", base_url=server.base_url))
        text = client.chat(REQUEST).text
    assert text == "Answer: \ufffd 12"
    text.encode("utf-8")
