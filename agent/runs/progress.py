"""How far a run is: one model for the CLI's progress bar, the batch runner and the server's run pages."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RunProgress:
    """Episodes of a run per outcome, and when it is expected to finish."""

    total: int
    skipped: int = 0  # finished in an earlier, resumed run of the same directory (not run again)
    done: int = 0
    failed: int = 0
    cancelled: int = 0
    running: int = 0
    queued: int = 0
    score_sum: float = 0.0  # soft scores of the episodes counted in `done`
    started: float = 0.0  # time.perf_counter() when this process started counting
    eta_s: float | None = None

    @property
    def finished(self) -> int:
        """Episodes that will not run again (those of an earlier run not included)."""
        return self.done + self.failed + self.cancelled

    @property
    def percent(self) -> float:
        """Share of episodes finished, 0-100."""
        return 100.0 * (self.skipped + self.finished) / self.total if self.total else 100.0

    @property
    def mean_score(self) -> float:
        """Running mean soft score over finished episodes."""
        return self.score_sum / self.done if self.done else 0.0

    def estimate_eta(self, elapsed_s: float) -> float | None:
        """Seconds left at the rate so far (None before the first episode finishes); kept in `eta_s`."""
        if self.finished:
            self.eta_s = elapsed_s / self.finished * (self.total - self.skipped - self.finished)
        return self.eta_s
