"""Tolerance kernels: how an error (metres or radians) becomes credit in [0, 1].

Every kernel gives full credit up to `full` (measurement noise and the simulator's snap tolerance live
there), no credit from `zero` on, and decreases monotonically in between, so scores are bounded and
never reward a larger error. The shape says how credit falls between the two:

- `linear`: 1 - t, with t = (e - full) / (zero - full);
- `cosine`: (1 + cos(pi t)) / 2, smooth at both ends (the default: small slips cost little);
- `gaussian`: exp(-t^2 * 4.5), i.e. sigma = (zero - full) / 3, cut to 0 at `zero`.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

KernelShape = Literal["linear", "cosine", "gaussian"]


class Kernel(BaseModel):
    """Credit for an error: 1 up to `full`, 0 from `zero` on, falling monotonically with `shape` between."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    full: float = Field(ge=0.0, description="Largest error that still earns full credit (m or rad).")
    zero: float = Field(gt=0.0, description="Smallest error that earns no credit (m or rad).")
    shape: KernelShape = Field(default="cosine", description="How credit falls between full and zero.")

    @model_validator(mode="after")
    def _ordered(self) -> Kernel:
        if not self.zero > self.full:
            raise ValueError(f"kernel needs zero > full, got full={self.full} zero={self.zero}")
        return self

    def __call__(self, error: float) -> float:
        """Credit in [0, 1] for one non-negative error (NaN earns none)."""
        if error <= self.full:
            return 1.0
        if not error < self.zero:  # also catches NaN
            return 0.0
        t = (error - self.full) / (self.zero - self.full)
        if self.shape == "linear":
            return 1.0 - t
        if self.shape == "cosine":
            return 0.5 * (1.0 + math.cos(math.pi * t))
        return math.exp(-4.5 * t * t)

    def many(self, errors: np.ndarray) -> np.ndarray:
        """Credit for an array of errors, element-wise (same rules as calling the kernel)."""
        e = np.asarray(errors, dtype=float)
        t = np.clip((e - self.full) / (self.zero - self.full), 0.0, 1.0)
        if self.shape == "linear":
            out = 1.0 - t
        elif self.shape == "cosine":
            out = 0.5 * (1.0 + np.cos(np.pi * t))
        else:
            out = np.where(t < 1.0, np.exp(-4.5 * t * t), 0.0)
        return np.where(np.isnan(e), 0.0, out)
