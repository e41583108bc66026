"""Benchmark: the episode service on loopback against a real uvicorn server (`jarvis bench server`).

Figures (one JSON object each):
- overhead_ms: submit-to-done wall time of one queued episode minus the episode's own work (its record's
  wall_s), median over sequential submissions through the queue and a worker process (target <= 50 ms);
- soak: C concurrent clients (default 100) submitting and polling for D seconds (default 60): errors,
  requests/s, p50/p99 of read latency (target: no errors, p99 <= 100 ms);
- claim_cost: one claim + complete on a queue of 20,000 queued episodes of one token and 100 single-episode
  tokens, fair (round-robin over tokens) vs plain oldest-first, same run, same database (ratio);
- fair_soak: the same 100 clients under their own token, their episodes through the queue (fair
  scheduling across tokens), while another token's run of 20,000 queued episodes floods the workers:
  read p99, and submit-to-done of the soak token's episodes (fairness: seconds, not the flood's hours);
- rest_throughput: question episodes with the scripted agent through REST, as fast as 16 clients can
  submit: episodes/s and p99 submit latency, inline (the default for instant agents) and through the
  queue (target >= 200 episodes/s, p99 <= 100 ms);
- oracle_suite: an assembly suite with the oracle agent and 2 workers over REST (POST /v1/runs): wall
  time, episodes/hour, and the ratio to the same episodes run one after another in one process.
  `--oracle-suite jarvis-mini` (default, 6 episodes) or `jarvis-v1` (50 episodes, many minutes);
  `--oracle-suite none` skips it.
- hostile, rss: a hostile tenant beside a normal one (read p50/p99 without and with it) and peak RSS per
  episode against the byte budget (tests/bench/server_tenants.py).

Question items come from the quiz plug-in (tests/fakes/quiz_family.py), so no data set is needed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from common import emit, machine

REPO = Path(__file__).resolve().parents[2]
PLUGINS = "tests.fakes.quiz_family"


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`jarvis serve` in a subprocess on loopback, with its own data directory."""

    def __init__(self, data_dir: Path, workers: int, inline: bool, log: Path, tokens: str = ""):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.headers = {"Authorization": f"Bearer {tokens.split(',')[0]}"} if tokens else {}
        env = dict(os.environ, JARVIS_PLUGINS=PLUGINS, JARVIS_DATA_DIR=str(data_dir), JARVIS_WORKERS=str(workers),
                   JARVIS_PORT=str(self.port), JARVIS_HOST="127.0.0.1", JARVIS_MAX_CONCURRENT_PER_TOKEN="100000",
                   JARVIS_MAX_ACTIVE_PER_TOKEN="100000", JARVIS_API_TOKEN=tokens,
                   JARVIS_INLINE_AGENTS="scripted,random" if inline else "",
                   PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
        code = "from agent.cli.serve import serve; from agent.server.settings import ServerSettings; " \
               "serve(ServerSettings.from_env())"
        self.log = log.open("ab")
        self.proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}; see {log}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the server did not answer /healthz within 120 s; see {log}")

    def wait_workers(self, n: int, timeout: float = 120) -> None:
        """Wait until n worker processes are alive (they import the simulator stack first)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if httpx.get(self.url + "/v1/status", headers=self.headers).json()["workers"].get("alive", 0) >= n:
                return
            time.sleep(0.2)
        raise RuntimeError("workers did not start")

    def cpu_s(self) -> float:
        """CPU seconds the API process (not its workers) has used so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL)."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def pct(samples: list[float], q: float) -> float:
    """The q-quantile (0..1) of samples, nearest rank."""
    s = sorted(samples)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def wait_episode(client: httpx.Client, eid: str, poll_s: float = 0.002, timeout: float = 60) -> dict[str, Any]:
    """Poll an episode until it is terminal."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        body: dict[str, Any] = client.get(f"/v1/episodes/{eid}").json()
        if body["status"] in ("done", "failed", "cancelled"):
            return body
        time.sleep(poll_s)
    raise RuntimeError(f"episode {eid} did not finish")


def bench_overhead(tmp: Path, n: int) -> None:
    """Median submit-to-done minus the episode's own work, through the queue and one worker."""
    server = Server(tmp / "overhead", workers=1, inline=False, log=tmp / "server.log")
    try:
        server.wait_workers(1)
        overheads, totals = [], []
        with httpx.Client(base_url=server.url) as client:
            for k in range(n + 3):
                t0 = time.perf_counter()
                eid = client.post("/v1/episodes", json={"task_id": f"quiz/{k % 40}",
                                                        "agent": {"name": "scripted"}}).json()["id"]
                body = wait_episode(client, eid)
                total = time.perf_counter() - t0
                own = client.get(f"/v1/episodes/{eid}/record").json()["timings"]["wall_s"] or 0.0
                if k >= 3:  # the first episodes warm the worker's imports
                    overheads.append(total - own)
                    totals.append(total)
                assert body["status"] == "done", body
                time.sleep(0.05)  # let the worker go idle, as between real submissions
    finally:
        server.stop()
    emit("server_overhead_per_episode_median", statistics.median(overheads) * 1000, "ms", n=len(overheads),
         p90_ms=round(pct(overheads, 0.9) * 1000, 2), total_median_ms=round(statistics.median(totals) * 1000, 2),
         path="queue + 1 worker process, SQLite WAL, polling every 2 ms", target_ms=50, **machine())


async def _soak(url: str, clients: int, duration_s: float, poll_s: float, token: str = "") -> dict[str, Any]:
    reads: list[float] = []
    writes: list[float] = []
    errors: list[str] = []
    waits: list[float] = []  # submit to done of each finished episode
    stop_at = time.perf_counter() + duration_s
    limits = httpx.Limits(max_connections=clients + 10, max_keepalive_connections=clients + 10)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30, headers=headers) as client:

        async def one(k: int) -> None:
            n = 0
            while time.perf_counter() < stop_at:
                t0 = submitted = time.perf_counter()
                r = await client.post("/v1/episodes", json={"task_id": f"quiz/{(k + n) % 40}",
                                                            "agent": {"name": "random", "seed": n}})
                writes.append(time.perf_counter() - t0)
                n += 1
                if r.status_code not in (201, 202):
                    errors.append(f"POST {r.status_code}")
                    continue
                eid = r.json()["id"]
                for _ in range(200):
                    await asyncio.sleep(poll_s)
                    t0 = time.perf_counter()
                    g = await client.get(f"/v1/episodes/{eid}")
                    reads.append(time.perf_counter() - t0)
                    if g.status_code != 200:
                        errors.append(f"GET {g.status_code}")
                        break
                    if g.json()["status"] in ("done", "failed"):
                        waits.append(time.perf_counter() - submitted)
                        break

        await asyncio.gather(*(one(k) for k in range(clients)))
    return {"reads": reads, "writes": writes, "errors": errors, "waits": waits}


def _soak_process(url: str, clients: int, duration_s: float, poll_s: float, token: str, out: Any) -> None:
    out.put(asyncio.run(_soak(url, clients, duration_s, poll_s, token)))


def in_processes(target: Any, n_procs: int, clients: int, *args: Any) -> list[Any]:
    """Run an async client driver in n_procs processes sharing `clients` connections; their results.

    One Python process cannot drive 100 keep-alive connections fast enough (httpx's pool becomes the
    bottleneck near 100 requests/s), so the load comes from several.
    """
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    shares = [clients // n_procs + (1 if k < clients % n_procs else 0) for k in range(n_procs)]
    procs = [ctx.Process(target=target, args=(*args[:1], share, *args[1:], out)) for share in shares if share]
    for p in procs:
        p.start()
    got = [out.get() for _ in procs]
    for p in procs:
        p.join()
    return got


def bench_soak(tmp: Path, clients: int, duration_s: float, poll_s: float, workers: int, client_procs: int) -> None:
    """Many clients submitting and polling for a while: errors and read latency."""
    server = Server(tmp / "soak", workers=workers, inline=True, log=tmp / "server.log")
    try:
        server.wait_workers(workers)
        cpu0, t0 = server.cpu_s(), time.perf_counter()
        parts = in_processes(_soak_process, client_procs, clients, server.url, duration_s, poll_s, "")
        wall, cpu = time.perf_counter() - t0, server.cpu_s() - cpu0
    finally:
        server.stop()
    reads = [x for p in parts for x in p["reads"]]
    writes = [x for p in parts for x in p["writes"]]
    errors = [x for p in parts for x in p["errors"]]
    emit("soak_read_latency_p99", pct(reads, 0.99) * 1000, "ms", p50_ms=round(pct(reads, 0.5) * 1000, 2),
         reads=len(reads), clients=clients, client_processes=client_procs, duration_s=round(wall, 1),
         poll_s=poll_s, target_ms=100, load_avg_1min=os.getloadavg()[0], **machine())
    emit("soak_api_cpu_per_request", cpu / max(1, len(reads) + len(writes)) * 1000, "ms",
         note="CPU time of the API process per request: its capacity on one free core is 1000 / this")
    emit("soak_submit_latency_p99", pct(writes, 0.99) * 1000, "ms", p50_ms=round(pct(writes, 0.5) * 1000, 2),
         submissions=len(writes), clients=clients)
    emit("soak_errors", len(errors), "count", kinds=sorted(set(errors))[:10],
         requests_per_s=round((len(reads) + len(writes)) / wall, 1))


def bench_claim_cost(tmp: Path, n: int = 300) -> None:
    """What fair scheduling costs a claim, against the oldest-first claim on the same queue."""
    from agent.server.db import EpisodeRow, make_engine, migrate
    from agent.server.queue import EpisodeQueue

    url = f"sqlite:///{tmp / 'claims.sqlite'}"
    migrate(url)
    queue = EpisodeQueue(make_engine(url))
    queue.submit([EpisodeRow(id=f"e{k:06d}", run_id=None, task_id="quiz/1", family="quiz", agent="{}", budget="{}",
                             status="queued", interactive=False, token_id="flood" if k < 20_000 else f"t{k}",
                             created_at=1000.0 + k, attempts=0) for k in range(20_100)])
    per: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(3):  # interleaved rounds, so load changes on the machine hit both alike
        for fair in (True, False):
            t0 = time.perf_counter()
            for _ in range(n // 3):
                claim = queue.claim("bench", fair=fair)
                assert claim is not None
                queue.complete(claim.episode_id, "bench", "done", {}, None, None)
            per[fair].append((time.perf_counter() - t0) / (n // 3))
    fair_ms, oldest_ms = statistics.median(per[True]) * 1000, statistics.median(per[False]) * 1000
    emit("claim_cost_fair_vs_oldest", fair_ms / oldest_ms, "x", fair_ms=round(fair_ms, 3),
         oldest_ms=round(oldest_ms, 3), queued=20_100, tokens=101, backend="sqlite", **machine())


FLOOD_TOKEN = "bench-flood-token-aaaaaaaaaaaa"
SOAK_TOKEN = "bench-soak-token-bbbbbbbbbbbb"


def bench_fair_soak(tmp: Path, clients: int, duration_s: float, poll_s: float, workers: int, client_procs: int,
                    flood: int) -> None:
    """The soak under fair scheduling: one token floods the queue with a run, another token's 100 clients
    submit queued episodes and poll; read latency and how long the small token's episodes wait."""
    server = Server(tmp / "fair", workers=workers, inline=False, log=tmp / "server.log",
                    tokens=f"{FLOOD_TOKEN},{SOAK_TOKEN}")
    try:
        server.wait_workers(workers)
        with httpx.Client(base_url=server.url, headers=server.headers, timeout=120) as c:
            t0 = time.perf_counter()
            run = c.post("/v1/runs", json={"task_ids": [f"quiz/{k % 40}" for k in range(flood)],
                                           "agent": {"name": "scripted"}})
            assert run.status_code == 202, run.text
            queued_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        parts = in_processes(_soak_process, client_procs, clients, server.url, duration_s, poll_s, SOAK_TOKEN)
        wall = time.perf_counter() - t0
        with httpx.Client(base_url=server.url, headers=server.headers, timeout=60) as c:
            flood_counts = c.get(f"/v1/runs/{run.json()['id']}").json()["counts"]
            c.delete(f"/v1/runs/{run.json()['id']}")
    finally:
        server.stop()
    reads = [x for p in parts for x in p["reads"]]
    waits = [x for p in parts for x in p["waits"]]
    errors = [x for p in parts for x in p["errors"]]
    emit("fair_soak_read_latency_p99", pct(reads, 0.99) * 1000, "ms", p50_ms=round(pct(reads, 0.5) * 1000, 2),
         reads=len(reads), clients=clients, client_processes=client_procs, duration_s=round(wall, 1),
         poll_s=poll_s, workers=workers, flood_episodes=flood, flood_queued_in_s=round(queued_s, 2),
         target_ms=100, load_avg_1min=os.getloadavg()[0], **machine())
    emit("fair_soak_episode_wait_p50", pct(waits, 0.5), "s", p99_s=round(pct(waits, 0.99), 2),
         episodes=len(waits), flood_left_queued=flood_counts.get("queued", 0),
         flood_done_meanwhile=flood_counts.get("done", 0),
         note="submit to done of the soak token's queued episodes while the flood token's run waits; "
              "without fair claims they would wait behind every flood episode queued before them")
    emit("fair_soak_errors", len(errors), "count", kinds=sorted(set(errors))[:10])


def _hammer_process(url: str, clients: int, duration_s: float, agent: str, out: Any) -> None:
    out.put(asyncio.run(_hammer(url, clients, duration_s, agent)))


async def _hammer(url: str, clients: int, duration_s: float, agent: str) -> tuple[list[float], list[str], int]:
    lat: list[float] = []
    ids: list[str] = []
    bad = 0
    stop_at = time.perf_counter() + duration_s
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:

        async def one(k: int) -> None:
            nonlocal bad
            n = 0
            while time.perf_counter() < stop_at:
                t0 = time.perf_counter()
                r = await client.post("/v1/episodes", json={"task_id": f"quiz/{(k * 7 + n) % 40}",
                                                            "agent": {"name": agent}})
                lat.append(time.perf_counter() - t0)
                n += 1
                if r.status_code in (201, 202):
                    ids.append(r.json()["id"])
                else:
                    bad += 1

        await asyncio.gather(*(one(k) for k in range(clients)))
    return lat, ids, bad


def bench_rest_throughput(tmp: Path, duration_s: float, clients: int, workers: int, client_procs: int) -> None:
    """Scripted question episodes through REST: inline (instant agents) and through the queue."""
    for inline in (True, False):
        label = "inline" if inline else "queue"
        server = Server(tmp / f"rest-{label}", workers=workers, inline=inline, log=tmp / "server.log")
        try:
            server.wait_workers(workers)
            t0 = time.perf_counter()
            parts = in_processes(_hammer_process, client_procs, clients, server.url, duration_s, "scripted")
            lat = [x for p in parts for x in p[0]]
            ids = [x for p in parts for x in p[1]]
            bad = sum(p[2] for p in parts)
            with httpx.Client(base_url=server.url) as c:  # done = submitted and finished
                deadline = time.time() + 300
                while time.time() < deadline:
                    counts = c.get("/v1/status").json()["queue"]
                    if counts.get("queued", 0) + counts.get("running", 0) == 0:
                        break
                    time.sleep(0.05)
            wall = time.perf_counter() - t0
        finally:
            server.stop()
        emit(f"rest_episodes_per_s_{label}", counts.get("done", 0) / wall, "episodes/s",
             submitted=len(ids), done=counts.get("done", 0), errors=bad, wall_s=round(wall, 2), clients=clients,
             client_processes=client_procs, workers=workers, load_avg_1min=os.getloadavg()[0], submit_p50_ms=round(pct(lat, 0.5) * 1000, 2),
             submit_p99_ms=round(pct(lat, 0.99) * 1000, 2), target="200 episodes/s, p99 <= 100 ms")


def bench_oracle_suite(tmp: Path, suite: str, workers: int) -> None:
    """The oracle on an assembly suite: 2 workers over REST vs one process, one episode after another."""
    from agent.config import AgentConfig, Budget
    from agent.episodes.job import EpisodeJob
    from agent.runs.worker import WorkerRuntime
    from jarvis_sim.tasks.registry import suite_task_ids

    tasks = suite_task_ids(suite)
    server = Server(tmp / "oracle", workers=workers, inline=False, log=tmp / "server.log")
    try:
        server.wait_workers(workers)
        with httpx.Client(base_url=server.url, timeout=60) as c:
            t0 = time.perf_counter()
            run = c.post("/v1/runs", json={"suite": suite, "agent": {"name": "oracle"}}).json()
            while (body := c.get(f"/v1/runs/{run['id']}").json())["status"] != "done":
                time.sleep(0.5)
            served = time.perf_counter() - t0
    finally:
        server.stop()
    emit("oracle_suite_wall", served, "s", suite=suite, episodes=len(tasks), workers=workers, counts=body["counts"],
         mean_soft_score=(body.get("summary") or {}).get("soft_score"))
    emit("oracle_suite_episodes_per_hour", len(tasks) / served * 3600, "episodes/h", suite=suite, workers=workers)

    runtime = WorkerRuntime("mujoco")
    t0 = time.perf_counter()
    for task_id in tasks:
        runtime.run(EpisodeJob(task_id=task_id, agent=AgentConfig(name="oracle"), budget=Budget()), tmp / "sequential")
    sequential = time.perf_counter() - t0
    runtime.close()
    emit("oracle_suite_sequential_wall", sequential, "s", suite=suite, episodes=len(tasks))
    emit("oracle_suite_speedup_vs_sequential", sequential / served, "x", suite=suite, workers=workers,
         note="server with its workers vs one process running the episodes one after another; "
              f"{os.cpu_count()} cores on this machine")


def main() -> None:
    """Parse options and run the chosen figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--overhead-n", type=int, default=60, help="sequential episodes for the overhead median")
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of the soak")
    ap.add_argument("--poll-s", type=float, default=0.5, help="each soak client's wait between polls")
    ap.add_argument("--throughput-s", type=float, default=10.0, help="seconds of the REST throughput test")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--client-procs", type=int, default=4, help="processes generating the load")
    ap.add_argument("--oracle-suite", default="jarvis-mini", help="jarvis-mini, jarvis-v1 or none")
    ap.add_argument("--flood", type=int, default=20_000, help="episodes of the flooding token's run (fair_soak)")
    ap.add_argument("--tenant-s", type=float, default=30.0, help="seconds of each hostile phase (alone, beside)")
    ap.add_argument("--sleepers", type=int, default=45, help="hostile programs in flight (past its limit of 4)")
    ap.add_argument("--sleep-s", type=float, default=12.0, help="seconds each hostile program sleeps")
    ap.add_argument("--idle-sockets", type=int, default=300, help="idle connections the hostile tenant holds")
    ap.add_argument("--drips", type=int, default=20, help="slow header drips (a byte a second)")
    ap.add_argument("--big-calls", type=int, default=380, help="find_bricks calls of the oversized program")
    ap.add_argument("--big-mb", type=float, default=1.0, help="MB of each of its arguments")
    ap.add_argument("--program-every", type=int, default=5, help="the normal tenant's read rounds per program")
    ap.add_argument("--pause-s", type=float, default=0.05, help="the normal tenant's pause between read rounds")
    ap.add_argument("--only", default="overhead,soak,claim_cost,fair_soak,throughput,oracle,hostile,rss",
                    help="comma-separated figures to run")
    args = ap.parse_args()
    sys.path.insert(0, str(REPO))
    os.environ["JARVIS_PLUGINS"] = PLUGINS
    from server_tenants import bench_hostile, bench_rss  # needs the repository root on sys.path

    import tests.fakes.quiz_family  # noqa: F401  (registers quiz here too)

    only = set(args.only.split(","))
    tmp = Path(tempfile.mkdtemp(prefix="jarvis-bench-server-"))
    try:
        if "overhead" in only:
            bench_overhead(tmp, args.overhead_n)
        if "soak" in only:
            bench_soak(tmp, args.clients, args.duration, args.poll_s, args.workers, args.client_procs)
        if "claim_cost" in only:
            bench_claim_cost(tmp)
        if "fair_soak" in only:
            bench_fair_soak(tmp, args.clients, args.duration, args.poll_s, args.workers, args.client_procs, args.flood)
        if "throughput" in only:
            bench_rest_throughput(tmp, args.throughput_s, 16, args.workers, args.client_procs)
        if "oracle" in only and args.oracle_suite != "none":
            bench_oracle_suite(tmp, args.oracle_suite, args.workers)
        if "hostile" in only:
            bench_hostile(tmp, args.tenant_s, args.sleepers, args.sleep_s, args.idle_sockets, args.drips,
                          args.big_calls, args.big_mb, args.program_every, args.pause_s)
        if "rss" in only:
            bench_rss(tmp, args.big_calls, args.big_mb)
    finally:
        log = tmp / "server.log"
        if log.exists() and b"Traceback" in log.read_bytes():
            print(json.dumps({"server_log_tracebacks": log.read_text()[-3000:]}), file=sys.stderr)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
