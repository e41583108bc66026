"""Fixtures for the LLM layer: fake keys in the environment, fake servers, a sleep that only records."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from agent.llm import ImagePart
from tests.fakes.llm_servers import FakeAnthropicServer, FakeOpenAIServer

OPENAI_KEY = "sk-test-7f3a9c1e5b2d4f6a8c0e-NEVERLOG"
ANTHROPIC_KEY = "sk-ant-test-91b2c3d4e5f6a7b8-NEVERLOG"
COMPAT_KEY = "compat-test-0a1b2c3d4e5f-NEVERLOG"
ALL_KEYS = (OPENAI_KEY, ANTHROPIC_KEY, COMPAT_KEY)


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Distinctive fake keys, so a leak is easy to find in any text."""
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("VLLM_TEST_KEY", COMPAT_KEY)


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    """A fake chat-completions server with an empty script."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def anthropic_server() -> Iterator[FakeAnthropicServer]:
    """A fake Messages API server with an empty script."""
    with FakeAnthropicServer() as server:
        yield server


class RecordingSleep:
    """Stands in for time.sleep: remembers the waits instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture
def sleep() -> RecordingSleep:
    """A sleep that records its waits."""
    return RecordingSleep()


@pytest.fixture
def png_image() -> ImagePart:
    """A small real PNG (a 4x3 gradient)."""
    pixels = np.arange(4 * 3 * 3, dtype=np.uint8).reshape(3, 4, 3) * 7
    return ImagePart.from_array(pixels, label="gradient")


@pytest.fixture
def png_file(tmp_path: Path, png_image: ImagePart) -> Path:
    """The same PNG written to a file."""
    path = tmp_path / "manual_step_1.png"
    path.write_bytes(png_image.data)
    return path
