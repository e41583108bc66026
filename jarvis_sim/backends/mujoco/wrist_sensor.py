"""The wrist force a Franka Panda reports: its estimated external force, biased as a real one is.

A Panda has no wrist force sensor: it estimates the external wrench from its joint torque sensors and its dynamic
model (`O_F_ext_hat_K` in libfranka's RobotState). With nothing touching it the estimate is not zero: franka_ros
issue #404 ("Non-zero values from O_F_ext_hat_K without applied external force"; Franka's maintainer: unobservable
joint friction, and an inertia model averaged across many robots rather than identified per arm), and a reading
posted in libfranka issue #112 is (-2.06, 0.46, -0.15) N. So each episode's arm gets its own constant bias, drawn
from the episode's seed, up to `BIAS_MAX_N` on each axis (the largest component of that reading). A program that
needs small forces (a guarded press feeling for contact) tares the reading first, as one does on the real arm.
The estimate's noise is not modelled: no published figure was found (libfranka issue #25 calls it "clearly
observable"), and a number made up here would be tuning.
"""

from __future__ import annotations

import numpy as np

BIAS_MAX_N = 2.06  # libfranka issue #112: the largest component of an O_F_ext_hat_K reading with nothing touching


def wrist_bias(seed: int) -> np.ndarray:
    """This seed's constant bias of the estimated external force (N, world frame)."""
    rng = np.random.default_rng([seed, 0x77F0])  # a stream of its own: the scene's draws are unchanged
    return rng.uniform(-BIAS_MAX_N, BIAS_MAX_N, size=3)
