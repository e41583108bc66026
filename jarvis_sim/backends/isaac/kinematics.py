"""Franka Panda kinematics in plain numpy: forward kinematics, the geometric Jacobian and damped least-squares IK
for the tool centre point of the backend protocol, plus a sphere model of the arm for what-if collision queries.

The Isaac backend needs answers about configurations the simulated arm is not in (Backend.solve_ik, collisions):
asking PhysX would mean moving the articulation and stepping. These are Franka's published kinematics (modified
Denavit-Hartenberg parameters of the Panda datasheet), the same robot the MuJoCo model describes; a test checks
that both agree to a fraction of a millimetre over random configurations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

# (a, d, alpha) of joints 1..7 and the flange, modified DH (Craig): T = RotX(alpha) TransX(a) RotZ(theta) TransZ(d).
PANDA_MDH = (
    (0.0, 0.333, 0.0),
    (0.0, 0.0, -math.pi / 2),
    (0.0, 0.316, math.pi / 2),
    (0.0825, 0.0, math.pi / 2),
    (-0.0825, 0.384, -math.pi / 2),
    (0.0, 0.0, math.pi / 2),
    (0.088, 0.0, math.pi / 2),
)
FLANGE_D = 0.107
# Franka Hand: mounted at -45 deg about the flange axis; the pads' centre (the protocol's TCP) lies this far out.
HAND_YAW = -math.pi / 4
TCP_OFFSET_M = 0.1034
PANDA_LOWER = np.array([-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973])
PANDA_UPPER = np.array([2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973])
PANDA_HOME = np.array([0.0, -0.785398, 0.0, -2.356194, 0.0, 1.570796, 0.785398])


def _mdh(a: float, d: float, alpha: float, theta: float) -> np.ndarray:
    ca, sa, ct, st = math.cos(alpha), math.sin(alpha), math.cos(theta), math.sin(theta)
    return np.array([
        [ct, -st, 0.0, a],
        [st * ca, ct * ca, -sa, -d * sa],
        [st * sa, ct * sa, ca, d * ca],
        [0.0, 0.0, 0.0, 1.0],
    ])


def _rot_z(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    out = np.eye(4)
    out[:2, :2] = [[c, -s], [s, c]]
    return out


def link_frames(q: np.ndarray, base: np.ndarray | None = None) -> list[np.ndarray]:
    """World frames of joints 1..7 (each z axis is its joint axis), the flange and the TCP: 9 4x4 matrices."""
    t = np.eye(4) if base is None else np.asarray(base, dtype=float)
    frames = []
    for (a, d, alpha), theta in zip(PANDA_MDH, np.asarray(q, dtype=float), strict=True):
        t = t @ _mdh(a, d, alpha, float(theta))
        frames.append(t)
    flange = t @ _mdh(0.0, FLANGE_D, 0.0, 0.0)
    frames.append(flange)
    tcp = flange @ _rot_z(HAND_YAW)
    tcp[:3, 3] += tcp[:3, 2] * TCP_OFFSET_M
    frames.append(tcp)
    return frames


def tcp_pose(q: np.ndarray, base: np.ndarray | None = None) -> np.ndarray:
    """4x4 world pose of the tool centre point at joint angles q."""
    return link_frames(q, base)[-1]


def jacobian(q: np.ndarray, base: np.ndarray | None = None) -> np.ndarray:
    """6x7 geometric Jacobian of the TCP (linear rows first), world frame."""
    frames = link_frames(q, base)
    p = frames[-1][:3, 3]
    jac = np.zeros((6, 7))
    for i in range(7):
        z, o = frames[i][:3, 2], frames[i][:3, 3]
        jac[:3, i] = np.cross(z, p - o)
        jac[3:, i] = z
    return jac


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """3x3 rotation of a quaternion (w, x, y, z), normalised first."""
    return np.asarray(Rotation.from_quat(np.asarray(q, dtype=float), scalar_first=True).as_matrix())


def matrix_to_quat(r: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) with w >= 0 of a 3x3 rotation."""
    return np.asarray(Rotation.from_matrix(np.asarray(r, dtype=float)).as_quat(canonical=True, scalar_first=True))


def orientation_error(current: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Rotation vector taking `current` to `target` (both 3x3), world frame (a half turn included)."""
    return np.asarray(Rotation.from_matrix(np.asarray(target) @ np.asarray(current).T).as_rotvec())


@dataclass(frozen=True)
class IkSettings:
    """Damped least squares: iterations, damping, and when a solution counts (position m, orientation rad)."""

    iterations: int = 200
    damping: float = 0.02
    position_tolerance_m: float = 0.0005
    orientation_tolerance_rad: float = 0.005


def ik_step(q: np.ndarray, position: np.ndarray, quaternion: np.ndarray, damping: float = 0.02,
            base: np.ndarray | None = None) -> np.ndarray:
    """One damped least-squares step from q toward the TCP pose, clipped to the joint limits (a Cartesian
    controller runs one or a few per control tick)."""
    pose = tcp_pose(q, base)
    err = np.concatenate([np.asarray(position, dtype=float) - pose[:3, 3],
                          orientation_error(pose[:3, :3], quat_to_matrix(quaternion))])
    jac = jacobian(q, base)
    step = jac.T @ np.linalg.solve(jac @ jac.T + damping**2 * np.eye(6), err)
    return np.clip(np.asarray(q, dtype=float) + step, PANDA_LOWER, PANDA_UPPER)


def solve_ik(position: np.ndarray, quaternion: np.ndarray, q0: np.ndarray | None = None,
             base: np.ndarray | None = None, settings: IkSettings = IkSettings()) -> np.ndarray | None:
    """Joint angles within the Panda's limits putting the TCP at the pose, or None when none was found."""
    target_p = np.asarray(position, dtype=float)
    target_r = quat_to_matrix(quaternion)
    q = np.clip(np.asarray(PANDA_HOME if q0 is None else q0, dtype=float), PANDA_LOWER, PANDA_UPPER)
    for _ in range(settings.iterations):
        pose = tcp_pose(q, base)
        err = np.concatenate([target_p - pose[:3, 3], orientation_error(pose[:3, :3], target_r)])
        if (np.linalg.norm(err[:3]) < settings.position_tolerance_m
                and np.linalg.norm(err[3:]) < settings.orientation_tolerance_rad):
            return q
        q = ik_step(q, target_p, quaternion, settings.damping, base)
    return None
