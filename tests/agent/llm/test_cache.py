"""The on-disk response cache: hits on identical requests, misses on any change, survives corruption."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

import numpy as np
import pytest

from agent.llm import CacheMissError, ChatMessage, ChatRequest, ImagePart, LLMConfig, build_client
from agent.llm.cache import ResponseCache, cache_key
from tests.agent.llm.conftest import RecordingSleep
from tests.fakes.llm_servers import FakeOpenAIServer, Reply


def _request(text: str, image: ImagePart, **kw: object) -> ChatRequest:
    return ChatRequest(messages=(ChatMessage.user(text, image),), **kw)  # type: ignore[arg-type]


def test_identical_request_hits_and_any_change_misses(
    openai_server: FakeOpenAIServer, png_image: ImagePart, tmp_path: Path, sleep: RecordingSleep
) -> None:
    openai_server.push(*(Reply(f"answer {i}", input_tokens=100, output_tokens=10) for i in range(6)))
    config = LLMConfig(model="openai:gpt-4o", base_url=openai_server.base_url, cache_dir=tmp_path / "cache")
    client = build_client(config, sleep=sleep)

    first = client.chat(_request("build it", png_image, seed=1))
    again = client.chat(_request("build it", png_image, seed=1))
    assert first.text == again.text == "answer 0"
    assert not first.cached and again.cached and again.attempts == 0
    assert len(openai_server.requests) == 1

    other_image = ImagePart.from_array(np.full((3, 4, 3), 200, dtype=np.uint8))
    changes = [
        _request("build it!", png_image, seed=1),
        _request("build it", other_image, seed=1),
        _request("build it", png_image, seed=2),
        _request("build it", png_image, seed=1, temperature=0.5),
        _request("build it", png_image, seed=1, system="be brief"),
    ]
    texts = [client.chat(r).text for r in changes]
    assert texts == [f"answer {i}" for i in range(1, 6)]
    assert len(openai_server.requests) == 6

    # A new client (a rerun) answers from disk without the server.
    rerun = build_client(config, sleep=sleep)
    assert rerun.chat(_request("build it", png_image, seed=1)).text == "answer 0"
    assert len(openai_server.requests) == 6
    assert rerun.total.cached == 1 and rerun.total.cost_usd == 0.0


def test_model_is_part_of_the_key(openai_server: FakeOpenAIServer, png_image: ImagePart, tmp_path: Path) -> None:
    openai_server.push("from 4o", "from mini")
    a = build_client(LLMConfig(model="openai:gpt-4o", base_url=openai_server.base_url, cache_dir=tmp_path))
    b = build_client(LLMConfig(model="openai:gpt-4o-mini", base_url=openai_server.base_url, cache_dir=tmp_path))
    assert a.chat(_request("x", png_image)).text == "from 4o"
    assert b.chat(_request("x", png_image)).text == "from mini"


def test_readonly_cache_fails_on_miss_without_calling(
    openai_server: FakeOpenAIServer, png_image: ImagePart, tmp_path: Path
) -> None:
    client = build_client(
        LLMConfig(model="openai:gpt-4o", base_url=openai_server.base_url, cache_dir=tmp_path, cache_mode="readonly")
    )
    with pytest.raises(CacheMissError, match="read-only response cache"):
        client.chat(_request("x", png_image))
    assert openai_server.requests == []


def test_corrupt_entry_is_a_logged_miss_and_gets_rewritten(
    openai_server: FakeOpenAIServer, png_image: ImagePart, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    openai_server.push("first", "second")
    client = build_client(LLMConfig(model="openai:gpt-4o", base_url=openai_server.base_url, cache_dir=tmp_path))
    request = _request("x", png_image)
    client.chat(request)
    assert client.cache is not None
    path = client.cache.path_for(cache_key(client.provider.identity(), request))
    path.write_text('{"format": 1, "key": "trunc')
    with caplog.at_level(logging.WARNING, logger="agent.llm.cache"):
        assert client.chat(request).text == "second"
    assert "corrupt" in caplog.text
    assert json.loads(path.read_text())["response"]["text"] == "second"


def test_entry_holds_no_image_bytes_and_no_temp_files_remain(
    openai_server: FakeOpenAIServer, png_image: ImagePart, tmp_path: Path
) -> None:
    openai_server.push("ok")
    client = build_client(LLMConfig(model="openai:gpt-4o", base_url=openai_server.base_url, cache_dir=tmp_path))
    client.chat(_request("x", png_image))
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == 1 and files[0].suffix == ".json"
    entry = json.loads(files[0].read_text())
    assert entry["request"]["messages"][0]["content"][1] == {"image": png_image.sha256(), "media_type": "image/png"}
    assert png_image.base64()[:40] not in files[0].read_text()


def test_concurrent_writers_leave_a_whole_entry(png_image: ImagePart, tmp_path: Path) -> None:
    from agent.llm import ChatResponse

    cache = ResponseCache(tmp_path)
    request = _request("x", png_image)
    key = cache_key("p|u|m", request)
    responses = [ChatResponse(text="t" * 20000 + str(i), model="m", provider="p") for i in range(8)]
    threads = [threading.Thread(target=cache.put, args=(key, "p|u|m", request, r)) for r in responses]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = cache.get(key)
    assert got is not None and got in responses
    assert [p.name for p in cache.path_for(key).parent.iterdir()] == [cache.path_for(key).name]
