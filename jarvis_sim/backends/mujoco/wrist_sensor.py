"""The wrist force a Franka Panda reports: its estimated external force, biased and noisy as a real one is.

A Panda has no wrist force sensor: it estimates the external wrench from its joint torque sensors and its dynamic
model (`O_F_ext_hat_K` in libfranka's RobotState). With nothing touching it the estimate is not zero: franka_ros
issue #404 ("Non-zero values from O_F_ext_hat_K without applied external force"; Franka's maintainer: unobservable
joint friction, and an inertia model averaged across many robots rather than identified per arm), and a reading
posted in libfranka issue #112 is (-2.06, 0.46, -0.15) N. So each episode's arm gets its own constant bias, drawn
from the episode's seed, up to `BIAS_MAX_N` on each axis (the largest component of that reading).

On top of the bias every reading carries white noise: each control tick the sensor takes a fresh sample, normal
with the standard deviation Franka's Panda datasheet gives its Cartesian force sensing, "Force noise (RMS)"
0.035 N (`FORCE_NOISE_RMS_N`; the same table: force resolution < 0.05 N, force repeatability 0.15 N, relative
force accuracy 0.8 N). Its draws come from a stream of the episode's seed of their own, so the same seed and the
same commands read the same noise, and a snapshot carries the stream (save / restore replays it). A program that
needs small forces (a guarded press feeling for contact) tares the reading first and keeps its thresholds well
above the noise, as one does on the real arm.
"""

from __future__ import annotations

import copy

import numpy as np

BIAS_MAX_N = 2.06  # libfranka issue #112: the largest component of an O_F_ext_hat_K reading with nothing touching
# Franka Emika, Panda datasheet (https://download.franka.de/Datasheet-EN.pdf), "Force/torque sensing": force noise
# (RMS) 0.035 N. Read per axis, one sample per reading. (The PDF could not be opened from here: the figure is as a
# public transcription of its table gives it; docs/physics.md.)
FORCE_NOISE_RMS_N = 0.035


def wrist_bias(seed: int) -> np.ndarray:
    """This seed's constant bias of the estimated external force (N, world frame)."""
    rng = np.random.default_rng([seed, 0x77F0])  # a stream of its own: the scene's draws are unchanged
    return rng.uniform(-BIAS_MAX_N, BIAS_MAX_N, size=3)


class WristSensor:
    """One episode's force estimate: the seed's constant bias plus a fresh noise sample each control tick."""

    def __init__(self, seed: int) -> None:
        self.bias = wrist_bias(seed)
        # The noise's own stream: the bias and the scene keep their draws.
        self._rng = np.random.default_rng([seed, 0x77F1])
        self.noise = np.zeros(3)
        self.sample()

    def sample(self) -> None:
        """Take the next tick's sample: every read until the next call returns it."""
        self.noise = self._rng.normal(0.0, FORCE_NOISE_RMS_N, size=3)

    def read(self, true_force: np.ndarray) -> np.ndarray:
        """What the arm reports for the true external force `true_force` (N, world frame)."""
        return true_force + self.bias + self.noise

    def copy(self) -> WristSensor:
        """An independent copy (bias, current sample and the noise stream's position), for snapshots."""
        return copy.deepcopy(self)
