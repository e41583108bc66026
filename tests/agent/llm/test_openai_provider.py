"""The OpenAI-compatible client against a fake chat-completions server over real HTTP."""

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
    ServerError,
    build_client,
)
from tests.agent.llm.conftest import COMPAT_KEY, OPENAI_KEY, RecordingSleep
from tests.fakes.llm_servers import Fail, FakeOpenAIServer, Reply, Stall

FAST_RETRY = RetryPolicy(max_attempts=3, base_delay_s=0.01, max_delay_s=0.05)


def _request(*parts: str | ImagePart | Path, system: str = "") -> ChatRequest:
    return ChatRequest(messages=(ChatMessage.user(*parts),), system=system, temperature=0.0, seed=7, max_tokens=256)


def test_text_and_image_reach_the_server_in_chat_completions_shape(
    openai_server: FakeOpenAIServer, png_file: Path, png_image: ImagePart, sleep: RecordingSleep
) -> None:
    openai_server.push(Reply("```python\npick('2x4')\n```", input_tokens=1200, output_tokens=30))
    client = build_client(LLMConfig(model="openai:gpt-4o", base_url=openai_server.base_url), sleep=sleep)
    request = ChatRequest(
        system="You control a robot.",
        messages=(
            ChatMessage.user("Step 1 of the manual:", png_file),
            ChatMessage.assistant("Which brick first?"),
            ChatMessage.user("The red one."),
        ),
        temperature=0.2,
        seed=7,
        max_tokens=256,
    )
    response = client.chat(request)

    assert response.text == "```python\npick('2x4')\n```"
    assert (response.usage.input_tokens, response.usage.output_tokens) == (1200, 30)
    assert response.provider == "openai" and response.model == "gpt-4o"
    assert response.cost_known and response.cost_usd == pytest.approx((1200 * 2.5 + 30 * 10.0) / 1e6)
    assert not response.cached and response.attempts == 1 and response.latency_s > 0
    assert response.finish_reason == "stop" and response.request_hash == request.content_hash()

    (received,) = openai_server.requests
    assert received.path == "/v1/chat/completions"
    assert received.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    body = received.body
    assert body["model"] == "gpt-4o"
    assert body["temperature"] == 0.2 and body["seed"] == 7 and body["max_completion_tokens"] == 256
    system, user1, assistant, user2 = body["messages"]
    assert system == {"role": "system", "content": "You control a robot."}
    assert user1["content"][0] == {"type": "text", "text": "Step 1 of the manual:"}
    image = user1["content"][1]
    assert image["type"] == "image_url"
    prefix = "data:image/png;base64,"
    assert image["image_url"]["url"].startswith(prefix)
    assert base64.b64decode(image["image_url"]["url"][len(prefix):]) == png_image.data
    assert assistant == {"role": "assistant", "content": "Which brick first?"}
    assert user2["content"] == [{"type": "text", "text": "The red one."}]


def test_compatible_endpoint_from_the_model_string(sleep: RecordingSleep) -> None:
    with FakeOpenAIServer(["ok"]) as server:
        model = f"openai-compatible:{server.base_url}:qwen2.5-vl:7b"
        client = build_client(LLMConfig(model=model, api_key_env="VLLM_TEST_KEY"), sleep=sleep)
        response = client.chat(_request("hello"))
    assert response.text == "ok" and response.model == "qwen2.5-vl:7b"
    assert not response.cost_known and response.cost_usd == 0.0  # self-hosted: not in the price table
    body = server.requests[0].body
    assert body["model"] == "qwen2.5-vl:7b" and body["max_tokens"] == 256 and "max_completion_tokens" not in body
    assert server.requests[0].headers["authorization"] == f"Bearer {COMPAT_KEY}"


def test_temperature_left_out_when_unset(openai_server: FakeOpenAIServer, sleep: RecordingSleep) -> None:
    openai_server.push("ok")
    client = build_client(LLMConfig(model="openai:gpt-5", base_url=openai_server.base_url), sleep=sleep)
    client.chat(ChatRequest(messages=(ChatMessage.user("hi"),)))
    body = openai_server.requests[0].body
    assert "temperature" not in body and "seed" not in body


def test_rate_limit_then_success_honours_retry_after(openai_server: FakeOpenAIServer, sleep: RecordingSleep) -> None:
    openai_server.push(Fail(429, "slow down", {"retry-after": "3"}), Fail(429, "slow down"), "finally")
    client = build_client(
        LLMConfig(model="openai:gpt-4o", base_url=openai_server.base_url, retry=FAST_RETRY), sleep=sleep
    )
    response = client.chat(_request("hi"))
    assert response.text == "finally" and response.attempts == 3
    assert len(openai_server.requests) == 3
    assert sleep.waits[0] == 3.0  # the server's Retry-After, not the backoff
    assert 0.01 <= sleep.waits[1] <= 0.02  # backoff for retry 2: step 0.02, equal jitter -> [0.01, 0.02]


def test_server_error_is_retried_then_given_up(openai_server: FakeOpenAIServer, sleep: RecordingSleep) -> None:
    openai_server.push(Fail(500, "boom"), Fail(503, "busy"), Fail(502, "bad gateway"))
    client = build_client(
        LLMConfig(model="openai:gpt-4o", base_url=openai_server.base_url, retry=FAST_RETRY), sleep=sleep
    )
    with pytest.raises(ServerError, match=r"HTTP 502 \(ServerError\)") as info:
        client.chat(_request("hi"))
    assert info.value.status == 502
    # The provider's text stays out of the message (it reaches public episode fields) and in `detail`.
    assert "bad gateway" not in str(info.value) and "bad gateway" in info.value.detail
    assert len(openai_server.requests) == 3 and len(sleep.waits) == 2


def test_client_error_is_not_retried(openai_server: FakeOpenAIServer, sleep: RecordingSleep) -> None:
    openai_server.push(Fail(400, "unsupported parameter"), "never reached")
    client = build_client(
        LLMConfig(model="openai:gpt-4o", base_url=openai_server.base_url, retry=FAST_RETRY), sleep=sleep
    )
    with pytest.raises(RequestRejectedError, match=r"HTTP 400") as info:
        client.chat(_request("hi"))
    assert info.value.status == 400 and not info.value.retryable
    assert "unsupported parameter" in info.value.detail and "unsupported parameter" not in str(info.value)
    assert len(openai_server.requests) == 1 and sleep.waits == []


def test_retry_after_beyond_the_cap_is_not_waited(openai_server: FakeOpenAIServer, sleep: RecordingSleep) -> None:
    openai_server.push(Fail(429, "quota", {"retry-after": "3600"}))
    client = build_client(
        LLMConfig(model="openai:gpt-4o", base_url=openai_server.base_url, retry=FAST_RETRY), sleep=sleep
    )
    with pytest.raises(RateLimitedError) as info:
        client.chat(_request("hi"))
    assert info.value.retry_after_s == 3600.0 and sleep.waits == []


def test_timeout_is_not_retried_past_the_total_deadline(openai_server: FakeOpenAIServer, sleep: RecordingSleep) -> None:
    # timeout_s bounds the whole call, retries included: a stalled attempt uses it up.
    import openai  # noqa: F401  (imported before the clock starts: the first import alone can take 0.3 s)

    openai_server.push(Stall(5.0, Reply("too late")), "in time")
    client = build_client(
        LLMConfig(model="openai:gpt-4o", base_url=openai_server.base_url, timeout_s=0.3, retry=FAST_RETRY),
        sleep=sleep,
    )
    with pytest.raises(ProviderTimeoutError):
        client.chat(_request("hi"))
    assert len(openai_server.requests) == 1 and sleep.waits == []


def test_timeout_every_time_raises_timeout_error(openai_server: FakeOpenAIServer, sleep: RecordingSleep) -> None:
    openai_server.push(Stall(5.0), Stall(5.0))
    client = build_client(
        LLMConfig(
            model="openai:gpt-4o",
            base_url=openai_server.base_url,
            timeout_s=0.2,
            retry=RetryPolicy(max_attempts=2, base_delay_s=0.0),
        ),
        sleep=sleep,
    )
    with pytest.raises(ProviderTimeoutError, match="timed out"):
        client.chat(_request("hi"))


def test_connection_refused_is_a_server_error(sleep: RecordingSleep) -> None:
    with FakeOpenAIServer() as server:
        url = server.base_url
    client = build_client(
        LLMConfig(model="openai:gpt-4o", base_url=url, retry=RetryPolicy(max_attempts=2, base_delay_s=0.0)),
        sleep=sleep,
    )
    with pytest.raises(ServerError, match="connection failed"):
        client.chat(_request("hi"))
    assert len(sleep.waits) == 1


def test_scripted_callable_sees_the_request(openai_server: FakeOpenAIServer, sleep: RecordingSleep) -> None:
    openai_server.push(lambda body: Reply(f"you said {body['messages'][-1]['content'][0]['text']}"))
    client = build_client(LLMConfig(model="openai:gpt-4o", base_url=openai_server.base_url), sleep=sleep)
    assert client.chat(_request("bonjour")).text == "you said bonjour"
