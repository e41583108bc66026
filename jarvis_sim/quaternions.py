"""Unit-quaternion helpers (w, x, y, z) shared by the simulator's controller and the skills' motion."""

from __future__ import annotations

import math

import numpy as np


def slerp(q0: np.ndarray, q1: np.ndarray, t: float) -> np.ndarray:
    """Spherical interpolation of unit quaternions along the shorter arc."""
    d = float(np.dot(q0, q1))
    if d < 0:
        q1, d = -q1, -d
    if d > 0.9995:  # nearly parallel: normalised lerp avoids dividing by sin(~0)
        q = q0 + t * (q1 - q0)
        return np.asarray(q / np.linalg.norm(q))
    theta = math.acos(d)
    return np.asarray((math.sin((1 - t) * theta) * q0 + math.sin(t * theta) * q1) / math.sin(theta))


def half_turn(q: np.ndarray) -> np.ndarray:
    """The orientation turned by pi about its own z axis: q * (0, 0, 0, 1)."""
    w, x, y, z = (float(v) for v in q)
    return np.array([-z, y, -x, w])
