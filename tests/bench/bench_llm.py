"""LLM layer overheads: package import, a real-SDK round trip to a loopback fake, and a cache hit.

Run: `jarvis bench llm [--repeat N]`. The fake answers at once, so the round trip is the client's own
cost (SDK request building, HTTP on loopback, parsing, pricing, cache write); the cache hit is the
cost of a rerun served from disk.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repo root, for tests.fakes

import numpy as np
from common import emit, timed

from agent.llm import ChatMessage, ChatRequest, ImagePart, LLMConfig, build_client
from tests.fakes.llm_servers import FakeAnthropicServer, FakeOpenAIServer


def main() -> None:
    """Print one JSON object per figure."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "bench-key")
    os.environ.setdefault("ANTHROPIC_API_KEY", "bench-key")

    imports = []
    for _ in range(5):
        out = subprocess.run(
            [sys.executable, "-c", "import time; t=time.perf_counter(); import agent.llm; print(time.perf_counter()-t)"],
            capture_output=True, text=True, check=True,
        )
        imports.append(float(out.stdout))
    emit("llm_import", statistics.median(imports) * 1e3, "ms", repeat=5)

    image = ImagePart.from_array(np.random.default_rng(0).integers(0, 255, (480, 640, 3), dtype=np.uint8))
    bench_provider("openai", FakeOpenAIServer(default=ANSWER), "openai:gpt-4o", image, args.repeat)
    bench_provider("anthropic", FakeAnthropicServer(default=ANSWER), "anthropic:claude-sonnet-4-6", image, args.repeat)


ANSWER = "```python\npick('a')\n```"


def bench_provider(name: str, server: FakeOpenAIServer | FakeAnthropicServer, model: str, image: ImagePart, repeat: int) -> None:
    """Round trip (distinct requests) and cache hit (one request again) through one provider."""
    with server, tempfile.TemporaryDirectory() as cache:
        client = build_client(LLMConfig(model=model, base_url=server.base_url, cache_dir=Path(cache)))
        counter = iter(range(10**9))
        client.chat(ChatRequest(messages=(ChatMessage.user("warm-up", image),)))
        fresh = timed(lambda: client.chat(ChatRequest(messages=(ChatMessage.user(f"q{next(counter)}", image),))), repeat)
        same = ChatRequest(messages=(ChatMessage.user("q0", image),))
        hits = timed(lambda: client.chat(same), repeat)
        assert client.total.cached >= repeat
    fresh_ms, hit_ms = statistics.median(fresh) * 1e3, statistics.median(hits) * 1e3
    extra = {"repeat": repeat, "image": "640x480 PNG"}
    emit(f"llm_{name}_round_trip", fresh_ms, "ms", **extra)
    emit(f"llm_{name}_cache_hit", hit_ms, "ms", **extra)
    emit(f"llm_{name}_round_trip_over_cache_hit", fresh_ms / hit_ms, "ratio", **extra)

if __name__ == "__main__":
    main()
