"""Liveness (public), server status and Prometheus metrics (behind the token: they describe every token's work)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, SummaryMetricFamily

from agent.server.deps import QueueDep, StateDep, TokenDep
from agent.server.queue import EpisodeQueue

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """Liveness, public and nothing else: the queue, workers and host details are at /v1/status."""
    return {"status": "ok"}


@router.get("/v1/status")
def status(queue: QueueDep, state: StateDep, _token: TokenDep) -> dict[str, object]:
    """The server's queue (all tokens, by state), workers and sandbox layers; needs a token."""
    pool = getattr(state, "pool", None)
    return {
        "status": "ok",
        "queue": queue.counts_by_status(),
        "workers": pool.describe() if pool is not None else {"workers": 0},
        "sandbox_layers": getattr(state, "sandbox_layers", {}),
    }


class _QueueCollector:
    """Reads the queue at scrape time, so every API process behind a load balancer reports the same numbers."""

    def __init__(self, queue: EpisodeQueue, state: Any):
        self.queue, self.state = queue, state

    def collect(self) -> Iterator[Any]:
        """The metric families of one scrape."""
        counts = self.queue.counts_by_status()
        depth = GaugeMetricFamily("jarvis_queue_depth", "Episodes waiting for a worker")
        depth.add_metric([], counts.get("queued", 0))
        yield depth
        by_state = GaugeMetricFamily("jarvis_episodes", "Episodes by state", labels=["state"])
        for st in ("queued", "running", "interactive", "done", "failed", "cancelled"):
            by_state.add_metric([st], counts.get(st, 0))
        yield by_state
        n, total = self.queue.duration_totals()
        summary = SummaryMetricFamily("jarvis_episode_duration_seconds",
                                      "Wall time of finished episodes, claim to result (all time)")
        summary.add_metric([], count_value=n, sum_value=total)
        yield summary
        recent = sorted(self.queue.recent_durations())
        if recent:
            q = GaugeMetricFamily("jarvis_episode_duration_recent_seconds",
                                  "Quantiles of the last 500 finished episodes' durations", labels=["quantile"])
            for level in (0.5, 0.9, 0.99):
                q.add_metric([str(level)], recent[min(len(recent) - 1, int(level * len(recent)))])
            yield q
        pool = getattr(self.state, "pool", None)
        workers = GaugeMetricFamily("jarvis_workers_alive", "Episode worker processes alive in this server")
        workers.add_metric([], pool.describe()["alive"] if pool is not None else 0)
        yield workers
        sims = GaugeMetricFamily("jarvis_interactive_simulators", "Simulators held by interactive episodes")
        sims.add_metric([], self.state.interactive.simulators_in_use())
        yield sims


@router.get("/metrics")
def metrics(queue: QueueDep, state: StateDep, _token: TokenDep) -> Response:
    """Prometheus text exposition: queue depth, episodes by state, durations, workers."""
    registry = CollectorRegistry()
    registry.register(_QueueCollector(queue, state))  # type: ignore[arg-type]
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
