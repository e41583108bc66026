"""`jarvis bench server --only hostile,rss`: one tenant's hostile but legal load beside a normal tenant, and
peak memory per episode against the byte budget, on a real `jarvis serve` over loopback (issue 30).

- hostile: token A (normal) loops over reads (GET /healthz, GET /v1/suites, GET its interactive episode) and
  now and then a small program; first alone, then while token B (hostile, its own process) keeps posting
  sleeping programs past its per-token limit (429s expected), holds a few hundred idle sockets and slow header
  drips (reconnecting whenever the server closes them), and runs one program of 380 find_bricks(color=<1 MB>)
  calls. Same server, same run: A's p50/p99 per request kind without and with B, and their ratio.
- rss: peak RSS (VmHWM) of the API process (interactive episodes run there), of the worker process (queued
  episodes; a replay agent answering the program) and of the sandbox children, after a plain episode and
  after the 380 x 1 MB episode, with the response's and the record's bytes against Budget.record_bytes.

Assembly episodes render: set MUJOCO_GL (osmesa on a machine without a GPU) as for the tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from common import emit, machine

from agent.config import Budget
from jarvis_sim.tasks.registry import suite_task_ids
from tests.agent.server.live_server import live_server

NORMAL = "bench-normal-token-aaaaaaaaaaaa"
HOSTILE = "bench-hostile-token-bbbbbbbbbbb"
PLAIN = "bricks = observe()\nprint(len(bricks))\n"
SMALL = "x = 1\n"


def big_arguments(calls: int, mb: float) -> str:
    """A program making `calls` legal find_bricks calls with a `mb` MB colour each, catching the typed refusals."""
    return (f"big = 'r' * {int(mb * 1_000_000)}\nrefused = 0\nkind = None\nfor i in range({calls}):\n"
            "    try:\n        find_bricks(color=big)\n    except SkillError as e:\n"
            "        refused += 1\n        kind = e.kind\nprint(refused, kind)\n")


def quantiles(samples: list[float]) -> dict[str, float]:
    """p50 and p99 (ms) of seconds samples, nearest rank."""
    s = sorted(samples)
    if not s:
        return {"n": 0}
    at = lambda q: s[min(len(s) - 1, round(q * (len(s) - 1)))] * 1000  # noqa: E731
    return {"n": len(s), "p50_ms": round(at(0.5), 2), "p99_ms": round(at(0.99), 2)}


def open_episode(client: httpx.Client, token: str) -> str:
    """An interactive assembly episode of token (its simulator lives in the API process)."""
    r = client.post("/v1/episodes", json={"task_id": suite_task_ids("jarvis-mini")[0], "agent": {"name": "external"},
                                          "budget": {"rounds": 100}},
                    headers={"Authorization": f"Bearer {token}"}, timeout=300)
    if r.status_code != 201:
        raise RuntimeError(f"opening an interactive episode answered {r.status_code}: {r.text[:500]}")
    return str(r.json()["id"])


def normal_tenant(client: httpx.Client, eid: str, duration_s: float, program_every: int,
                  pause_s: float) -> dict[str, Any]:
    """Token A's steady loop for duration_s: latencies per request kind, and every non-2xx answer."""
    kinds = {"healthz": "/healthz", "suites": "/v1/suites", "episode": f"/v1/episodes/{eid}"}
    lat: dict[str, list[float]] = {k: [] for k in (*kinds, "program")}
    errors: list[str] = []
    n, stop_at = 0, time.perf_counter() + duration_s
    while time.perf_counter() < stop_at:
        for kind, path in kinds.items():
            t0 = time.perf_counter()
            try:
                r = client.get(path)
                lat[kind].append(time.perf_counter() - t0)
                if r.status_code != 200:
                    errors.append(f"{kind} {r.status_code}")
            except httpx.HTTPError as e:
                errors.append(f"{kind} {type(e).__name__}")
        n += 1
        if n % program_every == 0:
            t0 = time.perf_counter()
            try:
                r = client.post(f"/v1/episodes/{eid}/programs", json={"code": SMALL})
                lat["program"].append(time.perf_counter() - t0)
                if r.status_code != 200 or r.json().get("outcome") != "ok":
                    errors.append(f"program {r.status_code} {r.text[:120]}")
            except httpx.HTTPError as e:
                errors.append(f"program {type(e).__name__}")
        time.sleep(pause_s)
    return {"lat": lat, "errors": errors}


async def _hold_idle(host: str, port: int, stop_at: float, counts: dict[str, int]) -> None:
    """One idle socket: connect, send nothing; reconnect whenever the server closes it."""
    while time.perf_counter() < stop_at:
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            counts["idle_connect_errors"] += 1
            await asyncio.sleep(1.0)
            continue
        try:
            await asyncio.wait_for(reader.read(1), timeout=max(0.01, stop_at - time.perf_counter()))
            counts["idle_closed_by_server"] += 1
        except (TimeoutError, OSError):
            pass
        finally:
            writer.close()


async def _drip(host: str, port: int, stop_at: float, interval_s: float, counts: dict[str, int]) -> None:
    """One slow client: a request line, then a header byte every interval_s; reconnect when cut off."""
    while time.perf_counter() < stop_at:
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: bench\r\n")
            while time.perf_counter() < stop_at and not reader.at_eof():
                writer.write(b"X")
                await writer.drain()
                try:
                    if await asyncio.wait_for(reader.read(1024), timeout=interval_s) == b"":
                        break
                except TimeoutError:
                    continue
            if time.perf_counter() < stop_at:
                counts["drips_cut_by_server"] += 1
            writer.close()
        except OSError:
            counts["drip_errors"] += 1
            await asyncio.sleep(interval_s)


async def _hostile(url: str, eids: list[str], duration_s: float, sleepers: int, sleep_s: float, idle: int, drips: int,
                   big_calls: int, big_mb: float) -> dict[str, Any]:
    host, port = url.removeprefix("http://").split(":")
    stop_at = time.perf_counter() + duration_s
    counts = dict.fromkeys(("idle_closed_by_server", "idle_connect_errors", "drips_cut_by_server", "drip_errors"), 0)
    statuses: dict[str, int] = {}
    big: dict[str, Any] = {}
    limits = httpx.Limits(max_connections=sleepers + 4, max_keepalive_connections=sleepers + 4)
    headers = {"Authorization": f"Bearer {HOSTILE}"}
    async with httpx.AsyncClient(base_url=url, headers=headers, limits=limits, timeout=600) as client:

        async def sleeper() -> None:
            code = f"import time\ntime.sleep({sleep_s})\n"
            await asyncio.sleep(1.0)  # the oversized program has its slot of the token's limit first
            while time.perf_counter() < stop_at:
                try:
                    r = await client.post(f"/v1/episodes/{eids[0]}/programs", json={"code": code})
                    key = str(r.status_code)
                except httpx.HTTPError as e:
                    key = type(e).__name__
                statuses[key] = statuses.get(key, 0) + 1
                if key != "200":
                    await asyncio.sleep(0.5)  # a hostile client ignores Retry-After

        async def oversized() -> None:
            t0 = time.perf_counter()
            r = await client.post(f"/v1/episodes/{eids[1]}/programs", json={"code": big_arguments(big_calls, big_mb)})
            body = r.json() if r.status_code == 200 else {}
            big.update(status=r.status_code, seconds=round(time.perf_counter() - t0, 2), response_bytes=len(r.content),
                       outcome=body.get("outcome"), stdout=(body.get("stdout") or r.text)[:200].strip())

        tasks = [sleeper() for _ in range(sleepers)] + [oversized()]
        tasks += [_hold_idle(host, int(port), stop_at, counts) for _ in range(idle)]
        tasks += [_drip(host, int(port), stop_at, 1.0, counts) for _ in range(drips)]
        # Programs still waiting when the phase ends are abandoned, as by a client that goes away.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*tasks), timeout=duration_s + 5)
    return {"program_statuses": statuses, "oversized": big, **counts}


def _hostile_process(url: str, eids: list[str], kw: dict[str, Any], out: Any) -> None:
    out.put(asyncio.run(_hostile(url, eids, **kw)))


def vm_hwm_mb(pid: int) -> float:
    """A process's peak resident memory so far (VmHWM), in MB; 0 when it is gone or unreadable."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def bench_hostile(tmp: Path, duration_s: float, sleepers: int, sleep_s: float, idle: int, drips: int,
                  big_calls: int, big_mb: float, program_every: int, pause_s: float) -> None:
    """Token A's latencies without, then with, token B's hostile load; one server, one run."""
    env = {"JARVIS_API_TOKEN": f"{NORMAL},{HOSTILE}", "JARVIS_MAX_INTERACTIVE": "3", "JARVIS_WORKERS": "0",
           "JARVIS_MAX_ROUNDS": "100"}
    (tmp / "hostile").mkdir()
    with live_server(tmp / "hostile", env, startup_s=300) as server, \
            httpx.Client(base_url=server.url, timeout=60, headers={"Authorization": f"Bearer {NORMAL}"}) as client:
        normal = open_episode(client, NORMAL)
        hostile = [open_episode(client, HOSTILE) for _ in range(2)]  # sleepers' episode, the oversized one's
        normal_tenant(client, normal, min(5.0, duration_s), program_every, pause_s)  # warm-up, not counted
        alone = normal_tenant(client, normal, duration_s, program_every, pause_s)
        rss_alone, log0 = vm_hwm_mb(server.proc.pid), server.log_bytes()
        ctx = multiprocessing.get_context("spawn")
        out = ctx.Queue()
        kw = dict(duration_s=duration_s, sleepers=sleepers, sleep_s=sleep_s, idle=idle, drips=drips,
                  big_calls=big_calls, big_mb=big_mb)
        proc = ctx.Process(target=_hostile_process, args=(server.url, hostile, kw, out))
        proc.start()
        time.sleep(3.0)  # its sockets and sleepers are in before A measures
        beside = normal_tenant(client, normal, duration_s, program_every, pause_s)
        b = out.get(timeout=duration_s + 120)
        proc.join()
        survived = client.get(f"/v1/episodes/{normal}").json()["status"]
        log = server.log_path.read_text(errors="replace")
        figures = {"rss_mb_before": round(rss_alone), "rss_mb_after": round(vm_hwm_mb(server.proc.pid)),
                   "log_bytes_during": server.log_bytes() - log0, "tracebacks_in_log": log.count("Traceback")}
    rows = {}
    for kind in alone["lat"]:
        a, h = quantiles(alone["lat"][kind]), quantiles(beside["lat"][kind])
        rows[kind] = {"alone": a, "beside_hostile": h,
                      "p99_ratio": round(h["p99_ms"] / a["p99_ms"], 2) if a["n"] and h["n"] else None}
    reads_a = [x for k in ("healthz", "suites", "episode") for x in alone["lat"][k]]
    reads_h = [x for k in ("healthz", "suites", "episode") for x in beside["lat"][k]]
    qa, qh = quantiles(reads_a), quantiles(reads_h)
    common = dict(seconds_each=duration_s, load_avg_1min=round(os.getloadavg()[0], 2), cores=os.cpu_count(),
                  **machine())
    emit("tenant_read_p99_beside_hostile", qh["p99_ms"], "ms", p50_ms=qh["p50_ms"], reads=qh["n"],
         alone_p50_ms=qa["p50_ms"], alone_p99_ms=qa["p99_ms"], alone_reads=qa["n"],
         p50_ratio=round(qh["p50_ms"] / qa["p50_ms"], 2), p99_ratio=round(qh["p99_ms"] / qa["p99_ms"], 2),
         target="p99 within 1 s (issue 30)", **common)
    emit("tenant_latency_by_kind", len(rows), "kinds", kinds=rows,
         normal_errors_alone=alone["errors"][:10], normal_errors_beside=beside["errors"][:10],
         normal_session_after=survived)
    emit("hostile_tenant_load", b["oversized"].get("seconds", 0.0), "s", hostile=b,
         sleepers=sleepers, sleep_s=sleep_s, idle_sockets=idle, header_drips=drips, oversized_calls=big_calls,
         oversized_arg_mb=big_mb, api_process=figures,
         note="hostile: program statuses of the sleepers (429 past the per-token limit), sockets the server closed "
              "(header deadline), the oversized program's answer; value: the oversized program's seconds")


class ProcessTree:
    """Samples VmHWM of a server's processes: its workers (multiprocessing children) and sandbox children."""

    def __init__(self, root: int):
        self.root = root
        self.peaks: dict[int, tuple[str, float, float]] = {}  # pid -> (role, peak MB, when last seen)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _descendants(self) -> dict[int, str]:
        parents: dict[int, int] = {}
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    parents[int(entry.name)] = int(Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()[1])
        found: dict[int, str] = {}
        commands: dict[int, bytes] = {}
        with contextlib.suppress(OSError):
            commands[self.root] = Path(f"/proc/{self.root}/cmdline").read_bytes()
        frontier = [self.root]
        while frontier:
            parent = frontier.pop()
            for pid, ppid in parents.items():
                if ppid == parent and pid not in found:
                    try:
                        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                    except OSError:
                        continue
                    frontier.append(pid)
                    if cmd == commands.get(parent):  # forked, not yet exec'd: it still shows its parent's peak
                        continue
                    commands[pid] = cmd
                    found[pid] = "worker" if b"spawn_main" in cmd else "other" if b"resource_tracker" in cmd \
                        else "sandbox"
        return found

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            for pid, role in self._descendants().items():
                mb = vm_hwm_mb(pid)
                if mb:
                    self.peaks[pid] = (role, max(mb, self.peaks.get(pid, (role, 0.0, 0.0))[1]), time.monotonic())

    def peak(self, role: str, since: float = 0.0) -> float:
        """The highest peak of a role's processes alive at some sample since `since` (time.monotonic())."""
        return max((mb for r, mb, seen in self.peaks.values() if r == role and seen >= since), default=0.0)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _interactive_episode(client: httpx.Client, code: str) -> dict[str, Any]:
    eid = open_episode(client, NORMAL)
    r = client.post(f"/v1/episodes/{eid}/programs", json={"code": code}, timeout=600)
    body = r.json() if r.status_code == 200 else {}
    finish = client.post(f"/v1/episodes/{eid}/finish", timeout=300)
    record = client.get(f"/v1/episodes/{eid}/record")
    return {"status": r.status_code, "outcome": body.get("outcome"), "stdout": (body.get("stdout") or r.text)[:120],
            "response_bytes": len(r.content), "record_bytes": len(record.content), "finish": finish.status_code}


def _queued_episode(client: httpx.Client, tmp: Path, code: str, label: str) -> dict[str, Any]:
    recording = tmp / f"{label}.jsonl"
    recording.write_text(json.dumps({"text": f"```python\n{code}```"}) + "\n" + json.dumps({"text": "DONE"}) + "\n")
    r = client.post("/v1/episodes", json={"task_id": suite_task_ids("jarvis-mini")[0], "agent": {
        "name": "replay", "mode": "reflective", "replay_file": str(recording)}})
    if r.status_code != 202:
        raise RuntimeError(f"submitting the {label} episode answered {r.status_code}: {r.text[:500]}")
    eid, deadline = r.json()["id"], time.time() + 900
    while (body := client.get(f"/v1/episodes/{eid}").json())["status"] not in ("done", "failed", "cancelled"):
        if time.time() > deadline:
            raise RuntimeError(f"the {label} episode did not finish in 900 s")
        time.sleep(0.5)
    record = client.get(f"/v1/episodes/{eid}/record")
    rounds = record.json().get("rounds", []) if record.status_code == 200 else []
    return {"status": body["status"], "error": body.get("error"), "record_bytes": len(record.content),
            "stdout": (rounds[0].get("stdout") or "")[:120] if rounds else None}


def bench_rss(tmp: Path, big_calls: int, big_mb: float) -> None:
    """Peak RSS of the API process, its worker and the sandbox children: plain episode vs oversized arguments."""
    env = {"JARVIS_API_TOKEN": NORMAL, "JARVIS_MAX_INTERACTIVE": "1", "JARVIS_WORKERS": "1", "JARVIS_MAX_ROUNDS": "100",
           "JARVIS_TRUST_AGENT_OPTIONS": "1", "JARVIS_INLINE_AGENTS": ""}
    budget = Budget().record_bytes
    (tmp / "rss").mkdir()
    big = big_arguments(big_calls, big_mb)
    with live_server(tmp / "rss", env, startup_s=300) as server, \
            httpx.Client(base_url=server.url, timeout=60, headers={"Authorization": f"Bearer {NORMAL}"}) as client:
        tree = ProcessTree(server.proc.pid)
        try:
            _wait_worker(client)
            rows: dict[str, dict[str, Any]] = {}
            for label, code in (("plain", PLAIN), ("oversized", big)):
                since = time.monotonic()
                episode = _interactive_episode(client, code)
                time.sleep(0.2)
                rows[f"api_{label}"] = {**episode, "api_peak_mb": round(vm_hwm_mb(server.proc.pid)),
                                        "sandbox_peak_mb": round(tree.peak("sandbox", since))}
            for label, code in (("plain", PLAIN), ("oversized", big)):
                since = time.monotonic()
                episode = _queued_episode(client, tmp, code, label)
                time.sleep(0.2)
                rows[f"worker_{label}"] = {**episode, "worker_peak_mb": round(tree.peak("worker")),
                                           "sandbox_peak_mb": round(tree.peak("sandbox", since))}
        finally:
            tree.stop()
    for where, key in (("api", "api_peak_mb"), ("worker", "worker_peak_mb")):
        plain, hostile = rows[f"{where}_plain"], rows[f"{where}_oversized"]
        emit(f"{where}_peak_rss_oversized_vs_plain", hostile[key] / max(1, plain[key]), "x",
             plain=plain, oversized=hostile, record_bytes_budget=budget,
             oversized_record_over_budget=round(hostile["record_bytes"] / budget, 3),
             calls=big_calls, arg_mb=big_mb, target="<= 1.5x, record and response within the byte budget (issue 30)",
             note="peaks are VmHWM, monotonic over the process's life: the plain episode runs first", **machine())


def _wait_worker(client: httpx.Client, timeout: float = 300) -> None:
    deadline = time.time() + timeout
    while client.get("/v1/status").json()["workers"].get("alive", 0) < 1:
        if time.time() > deadline:
            raise RuntimeError("the worker did not start")
        time.sleep(0.5)

