"""Liveness and Prometheus metrics."""

from __future__ import annotations

import statistics

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, SummaryMetricFamily

from agent.server.deps import QueueDep, StateDep
from agent.server.queue import EpisodeQueue

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz(queue: QueueDep, state: StateDep) -> dict[str, object]:
    """The server is up; which sandbox layers and workers it has."""
    pool = getattr(state, "pool", None)
    return {
        "status": "ok",
        "queue": queue.counts_by_status(),
        "workers": pool.describe() if pool is not None else {"workers": 0},
        "sandbox_layers": getattr(state, "sandbox_layers", {}),
    }


class _QueueCollector:
    """Reads the queue at scrape time, so every process reports the same numbers."""

    def __init__(self, queue: EpisodeQueue):
        self.queue = queue

    def collect(self):  # type: ignore[no-untyped-def]
        counts = self.queue.counts_by_status()
        depth = GaugeMetricFamily("jarvis_queue_depth", "Episodes waiting for a worker")
        depth.add_metric([], counts.get("queued", 0))
        yield depth
        by_state = GaugeMetricFamily("jarvis_episodes", "Episodes by state", labels=["state"])
        for st in ("queued", "running", "interactive", "done", "failed", "cancelled"):
            by_state.add_metric([st], counts.get(st, 0))
        yield by_state
        durations = self.queue.recent_durations()
        summary = SummaryMetricFamily("jarvis_episode_duration_seconds", "Durations of recent finished episodes")
        summary.add_metric([], count_value=len(durations), sum_value=sum(durations))
        yield summary
        if durations:
            med = GaugeMetricFamily("jarvis_episode_duration_median_seconds", "Median of recent episode durations")
            med.add_metric([], statistics.median(durations))
            yield med


@router.get("/metrics")
def metrics(queue: QueueDep) -> Response:
    """Prometheus text exposition: queue depth, episodes by state, durations."""
    registry = CollectorRegistry()
    registry.register(_QueueCollector(queue))  # type: ignore[arg-type]
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
