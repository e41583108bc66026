"""Weld rest poses and quaternion products for the MuJoCo backend's welds (clutch and grasp lock)."""

from __future__ import annotations

import mujoco
import numpy as np


def weld_data(pos1: np.ndarray, quat1: np.ndarray, pos2: np.ndarray, quat2: np.ndarray, size: int) -> np.ndarray:
    """eq_data of a weld holding body2 at its current pose relative to body1 (zero anchor, torque scale 1).

    relpose is body2's pose in body1's frame; all zeros would mean "the pose at compile time", which is wrong
    at run time, so it is always filled explicitly.
    """
    rot = np.zeros(9)
    mujoco.mju_quat2Mat(rot, np.asarray(quat1, dtype=float))
    data = np.zeros(size)
    data[3:6] = rot.reshape(3, 3).T @ (np.asarray(pos2) - np.asarray(pos1))
    data[6:10] = quat_mul(quat_conj(np.asarray(quat1, dtype=float)), np.asarray(quat2, dtype=float))
    data[10] = 1.0
    return data


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The product a b of two wxyz quaternions."""
    out = np.zeros(4)
    mujoco.mju_mulQuat(out, a, b)
    return out


def quat_conj(q: np.ndarray) -> np.ndarray:
    """The conjugate (the inverse of a unit quaternion)."""
    return np.array([q[0], -q[1], -q[2], -q[3]])
