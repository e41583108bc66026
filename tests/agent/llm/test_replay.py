"""Replay: sequential and keyed recordings, the recorder that writes them, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.llm import ChatMessage, ChatRequest, LLMConfig, ReplayExhaustedError, build_client
from tests.fakes.llm_servers import FakeOpenAIServer, Reply


def _ask(text: str) -> ChatRequest:
    return ChatRequest(messages=(ChatMessage.user(text),))


def _write(path: Path, lines: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_sequential_recording_answers_in_order_then_says_it_ran_out(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "answers.jsonl",
        [{"text": "first", "usage": {"input_tokens": 5, "output_tokens": 2}}, {"text": "second", "model": "gpt-4o"}],
    )
    client = build_client(LLMConfig(model=f"replay:{path}"))
    one, two = client.chat(_ask("a")), client.chat(_ask("b"))
    assert (one.text, two.text) == ("first", "second")
    assert one.provider == "replay" and one.usage.input_tokens == 5 and two.model == "gpt-4o"
    assert one.cost_usd == 0.0 and one.cost_known
    with pytest.raises(ReplayExhaustedError, match="holds 2 answers; request 3"):
        client.chat(_ask("c"))


def test_recorded_run_replays_by_request_hash(tmp_path: Path) -> None:
    recording = tmp_path / "run" / "llm.jsonl"
    with FakeOpenAIServer([Reply("plan A"), Reply("plan B")]) as server:
        live = build_client(LLMConfig(model="openai:gpt-4o", base_url=server.base_url, record_to=recording))
        live.chat(_ask("task 1"))
        live.chat(_ask("task 2"))
    lines = [json.loads(line) for line in recording.read_text().splitlines()]
    assert [line["text"] for line in lines] == ["plan A", "plan B"]
    assert lines[0]["request_hash"] == _ask("task 1").content_hash()

    replay = build_client(LLMConfig(model=f"replay:{recording}"))
    # Keyed: order does not matter, a repeated request gets its answer again.
    assert replay.chat(_ask("task 2")).text == "plan B"
    assert replay.chat(_ask("task 1")).text == "plan A"
    assert replay.chat(_ask("task 1")).text == "plan A"
    with pytest.raises(ReplayExhaustedError, match="no answer for request"):
        replay.chat(_ask("task 3"))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"text": "ok"}\nnot json\n', r"answers\.jsonl:2: not valid JSON"),
        ('{"txt": "typo"}\n', r"answers\.jsonl:1: "),
        ('{"text": "a", "request_hash": "abc"}\n{"text": "b"}\n', "mixes keyed and sequential"),
    ],
)
def test_malformed_recording_names_file_and_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(content)
    with pytest.raises(ValueError, match=message):
        build_client(LLMConfig(model=f"replay:{path}"))


def test_missing_recording_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"cannot read replay file .*nope\.jsonl"):
        build_client(LLMConfig(model=f"replay:{tmp_path / 'nope.jsonl'}"))


def test_replay_is_never_cached(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.jsonl", [{"text": "x"}])
    client = build_client(LLMConfig(model=f"replay:{path}", cache_dir=tmp_path / "cache"))
    client.chat(_ask("a"))
    assert client.cache is None and not (tmp_path / "cache").exists()
