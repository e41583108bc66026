"""Means with bootstrap confidence intervals: 50 tasks is a small sample, so every mean carries one."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

BOOTSTRAP_RESAMPLES = 2000
_CHUNK_CELLS = 2_000_000  # resample in chunks so a paper-scale pool never builds a huge index array


class MeanCI(BaseModel):
    """A mean with its percentile-bootstrap confidence interval."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mean: float
    lo: float = Field(description="Lower bound of the interval.")
    hi: float = Field(description="Upper bound of the interval.")
    n: int = Field(ge=1, description="Sample size.")
    level: float = 0.95

    def fmt(self, digits: int = 1) -> str:
        """'mean [lo, hi]' for tables."""
        return f"{self.mean:.{digits}f} [{self.lo:.{digits}f}, {self.hi:.{digits}f}]"


def mean_ci(
    values: Sequence[float], level: float = 0.95, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
) -> MeanCI | None:
    """Mean and percentile-bootstrap interval of the values (None for no values); seeded, so repeatable."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        return None
    mean = float(x.mean())
    if n == 1 or np.all(x == x[0]):
        return MeanCI(mean=mean, lo=mean, hi=mean, n=n, level=level)
    rng = np.random.default_rng(seed)
    per_chunk = max(1, _CHUNK_CELLS // n)
    means = []
    done = 0
    while done < resamples:
        k = min(per_chunk, resamples - done)
        means.append(x[rng.integers(0, n, size=(k, n))].mean(axis=1))
        done += k
    boot = np.concatenate(means)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(boot, [alpha, 1.0 - alpha])
    return MeanCI(mean=mean, lo=float(min(lo, mean)), hi=float(max(hi, mean)), n=n, level=level)
