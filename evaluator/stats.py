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
    if n == 1 or np.all(x == x[0]):  # no spread to resample (scipy would warn and answer NaN)
        return MeanCI(mean=mean, lo=mean, hi=mean, n=n, level=level)
    from scipy import stats  # scipy.stats takes ~0.3 s to import: only when an interval is asked for

    # scipy's percentile bootstrap, in batches so a paper-scale pool never builds a huge index array; it draws
    # the same resamples from the seeded generator as the hand-written loop it replaced (tests/evaluator).
    result = stats.bootstrap((x,), np.mean, n_resamples=resamples, batch=max(1, _CHUNK_CELLS // n),
                             vectorized=True, confidence_level=level, method="percentile",
                             rng=np.random.default_rng(seed))
    lo, hi = result.confidence_interval
    return MeanCI(mean=mean, lo=float(min(lo, mean)), hi=float(max(hi, mean)), n=n, level=level)
