"""The Anthropic client against a fake Messages API server over real HTTP."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from agent.llm import (
    ChatMessage,
    ChatRequest,
    ImagePart,
    LLMConfig,
    ProviderTimeoutError,
    RateLimitedError,
    RequestRejectedError,
    RetryPolicy,
    build_client,
)
from tests.agent.llm.conftest import ANTHROPIC_KEY, RecordingSleep
from tests.fakes.llm_servers import Fail, FakeAnthropicServer, Reply, Stall

MODEL = "anthropic:claude-sonnet-4-6"
FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05)


def test_text_and_image_reach_the_server_as_content_blocks(
    anthropic_server: FakeAnthropicServer, png_file: Path, png_image: ImagePart, sleep: RecordingSleep
) -> None:
    anthropic_server.push(Reply("```python\nplace_on('a', 'b')\n```", input_tokens=2000, output_tokens=100))
    client = build_client(LLMConfig(model=MODEL, base_url=anthropic_server.base_url), sleep=sleep)
    request = ChatRequest(
        system="You control a robot.",
        messages=(ChatMessage.user("Manual:", png_file, "Go."), ChatMessage.assistant("Sure."), ChatMessage.user("Now.")),
        temperature=0.0,
        max_tokens=512,
    )
    response = client.chat(request)
    assert response.text.startswith("```python")
    assert response.provider == "anthropic" and response.model == "claude-sonnet-4-6"
    assert response.finish_reason == "end_turn"
    assert response.cost_usd == pytest.approx((2000 * 3.0 + 100 * 15.0) / 1e6) and response.cost_known

    (received,) = anthropic_server.requests
    assert received.path.startswith("/v1/messages")
    assert received.headers.get("anthropic-version")
    auth = received.headers.get("x-api-key") or received.headers["authorization"].removeprefix("Bearer ")
    assert auth == ANTHROPIC_KEY
    body = received.body
    assert body["model"] == "claude-sonnet-4-6" and body["max_tokens"] == 512
    assert body["system"] == "You control a robot."
    assert "temperature" not in body  # the API version SDK 2.x speaks rejects sampling parameters
    user, assistant, user2 = body["messages"]
    assert user["role"] == "user"
    text1, image, text2 = user["content"]
    assert text1 == {"type": "text", "text": "Manual:"} and text2 == {"type": "text", "text": "Go."}
    assert image["type"] == "image" and image["source"]["type"] == "base64"
    assert image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"]) == png_image.data
    assert assistant == {"role": "assistant", "content": [{"type": "text", "text": "Sure."}]}
    assert user2["content"] == [{"type": "text", "text": "Now."}]


def test_no_system_field_when_no_system_prompt(anthropic_server: FakeAnthropicServer, sleep: RecordingSleep) -> None:
    anthropic_server.push("hi")
    client = build_client(LLMConfig(model=MODEL, base_url=anthropic_server.base_url), sleep=sleep)
    client.chat(ChatRequest(messages=(ChatMessage.user("hello"),)))
    assert "system" not in anthropic_server.requests[0].body


def test_rate_limit_and_overload_are_retried(
    anthropic_server: FakeAnthropicServer, sleep: RecordingSleep
) -> None:
    # Timeouts are not retried here: timeout_s is the call's total deadline (tests/agent/llm/test_deadline.py).
    anthropic_server.push(Fail(429, "rate limited", {"retry-after": "2"}), Fail(529, "overloaded"), "done")
    client = build_client(
        LLMConfig(
            model=MODEL,
            base_url=anthropic_server.base_url,
            timeout_s=30.0,
            retry=RetryPolicy(max_attempts=4, base_delay_s=0.01, max_delay_s=0.05),
        ),
        sleep=sleep,
    )
    response = client.chat(ChatRequest(messages=(ChatMessage.user("hello"),)))
    assert response.text == "done" and response.attempts == 3
    assert sleep.waits[0] == 2.0 and len(sleep.waits) == 2


def test_a_stalled_answer_times_out_at_the_total_deadline(
    anthropic_server: FakeAnthropicServer, sleep: RecordingSleep
) -> None:
    import anthropic  # noqa: F401  (imported before the clock starts: the first import alone can take 0.3 s)

    anthropic_server.push(Stall(5.0), "never reached")
    client = build_client(LLMConfig(model=MODEL, base_url=anthropic_server.base_url, timeout_s=0.3,
                                    retry=RetryPolicy(max_attempts=4, base_delay_s=0.01)), sleep=sleep)
    with pytest.raises(ProviderTimeoutError):
        client.chat(ChatRequest(messages=(ChatMessage.user("hello"),)))
    assert len(anthropic_server.requests) == 1 and sleep.waits == []


def test_bad_request_is_not_retried(anthropic_server: FakeAnthropicServer, sleep: RecordingSleep) -> None:
    anthropic_server.push(Fail(404, "model not found"))
    client = build_client(LLMConfig(model=MODEL, base_url=anthropic_server.base_url, retry=FAST_RETRY), sleep=sleep)
    with pytest.raises(RequestRejectedError, match="HTTP 404") as info:
        client.chat(ChatRequest(messages=(ChatMessage.user("hello"),)))
    assert "model not found" in info.value.detail and "model not found" not in str(info.value)
    assert len(anthropic_server.requests) == 1 and sleep.waits == []


def test_rate_limit_every_time_gives_up(anthropic_server: FakeAnthropicServer, sleep: RecordingSleep) -> None:
    anthropic_server.push(*[Fail(429, "rate limited")] * 3)
    client = build_client(LLMConfig(model=MODEL, base_url=anthropic_server.base_url, retry=FAST_RETRY), sleep=sleep)
    with pytest.raises(RateLimitedError):
        client.chat(ChatRequest(messages=(ChatMessage.user("hello"),)))
    assert len(anthropic_server.requests) == 3
