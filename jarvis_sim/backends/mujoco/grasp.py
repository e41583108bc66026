"""The grasp lock: a brick squeezed between the pads is held rigidly until the grip opens or slips."""

from __future__ import annotations

import math

import mujoco
import numpy as np

from jarvis_sim.backends.mujoco.core import MujocoCore
from jarvis_sim.backends.mujoco.poses import weld_data

LOCK_FINGER_SPEED_M_S = 0.002  # the grasp lock engages once the closing fingers move slower than this


class GraspLock(MujocoCore):
    """The grasp lock (mixed into MujocoBackend)."""

    def _grasp_tick(self) -> None:
        """Hold a squeezed brick rigidly in the hand until the grip opens or its friction is exceeded.

        MuJoCo's soft contacts let a brick squeezed between the pads creep (measured: 0.2-0.4 mm along the pads
        per 60 mm lift, whatever the friction, impratio or noslip settings), while placing a brick between
        clutched neighbours needs it within 0.1 mm. Once the fingers have stopped closing on a brick, the brick
        is welded to the hand where it sits; the weld lets go when the gripper opens, or when the load on it
        exceeds what the pads' friction could hold (the brick then slips as it would on a real gripper).
        """
        eq = self._lock_eq
        if eq is None:
            return
        m, d = self.model, self.data
        if d.eq_active[eq]:
            if not self.grip_closed:
                d.eq_active[eq] = 0
            return
        if not self._lock_armed or not self.grip_closed:
            return
        if float(np.abs(d.qvel[self._finger_dadr]).max()) > LOCK_FINGER_SPEED_M_S:
            return
        held = self.held_brick()
        if held is None:
            return
        self._lock_armed = False
        body = self._body[held]
        m.eq_obj2id[eq] = body
        m.eq_data[eq] = weld_data(d.xpos[self._hand], d.xquat[self._hand], d.xpos[body],
                                   self._squared_in_pads(d.xquat[self._hand], d.xquat[body]), m.eq_data.shape[1])
        d.eq_active[eq] = 1

    def _squared_in_pads(self, hand_quat: np.ndarray, brick_quat: np.ndarray) -> np.ndarray:
        """The brick's orientation with its squeezed faces flat on the pads (world quaternion).

        Two rigid parallel pads square a box between them; MuJoCo's soft pad contacts do so only over seconds
        (measured: a 2x4 gripped 1.5 deg askew was still 0.6 deg off after 0.5 s), and a brick held a degree
        askew misses the stud lead-in. The lock's rest pose is therefore the squared one, reached by the weld
        within milliseconds. Only the yaw about the hand axis is squared.
        """
        rh, rb = np.zeros(9), np.zeros(9)
        mujoco.mju_quat2Mat(rh, np.asarray(hand_quat, dtype=float))
        mujoco.mju_quat2Mat(rb, np.asarray(brick_quat, dtype=float))
        rel = rh.reshape(3, 3).T @ rb.reshape(3, 3)  # brick axes in the hand frame (columns)
        k = int(np.argmax(np.abs(rel[1, :])))  # the brick axis closest to the closing direction (hand y)
        n = rel[:, k] * math.copysign(1.0, float(rel[1, k]))
        # Only the yaw about the hand axis is squared: a roll would press the brick's edge into what it stands on.
        turn = np.zeros(4)
        mujoco.mju_axisAngle2Quat(turn, rh.reshape(3, 3)[:, 2], math.atan2(float(n[0]), float(n[1])))
        out = np.zeros(4)
        mujoco.mju_mulQuat(out, turn, np.asarray(brick_quat, dtype=float))
        return out

    def _release_slipping_grasp(self) -> float:
        """Let go of the locked brick when it is loaded past the pads' friction; return load over that capacity
        (0 when nothing is locked)."""
        eq = self._lock_eq
        if eq is None or not self.data.eq_active[eq]:
            return 0.0
        ratio = self._grasp_load_ratio(eq)
        if ratio > 1.0:
            self.data.eq_active[eq] = 0
        return ratio

    def _grasp_load_ratio(self, eq: int) -> float:
        """How hard the locked brick is pushed (by anything but the fingers), over what the pads' friction holds.

        The load is summed from the brick's own contacts and its clutch connections rather than read from the
        lock: the lock and the squeezing pads form a closed loop whose internal forces the solver splits
        arbitrarily. A brick clutched more strongly than the grip holds slips out of the fingers.
        """
        m, d = self.model, self.data
        body = int(m.eq_obj2id[eq])
        brick = self._brick_of_body[body]
        total = np.zeros(3)
        if any(e in self._partner for e in self._slots[brick]):
            eqs, force, _ = self._clutch_loads()
            for k, e in enumerate(eqs):
                if self._slot_brick[int(e)] == brick:
                    total -= force[k]  # what the connection pulls on the brick
        geoms = d.contact.geom[: d.ncon]
        bodies = m.geom_bodyid[geoms]
        rows = np.flatnonzero((bodies == body).any(axis=1) & ~self._geom_robot[geoms].any(axis=1))
        wrench = np.zeros(6)
        for i in rows:
            mujoco.mj_contactForce(m, d, int(i), wrench)
            frame = d.contact.frame[i].reshape(3, 3)
            sign = 1.0 if bodies[i, 1] == body else -1.0  # the force acts on geom2's body along the frame
            total += sign * (frame.T @ wrench[:3])
        capacity = 2.0 * float(m.geom_friction[self._pads[0], 0]) * self.grip_force
        return math.sqrt(float(total.dot(total))) / capacity  # np.linalg.norm's formula, without its wrapper (per tick)
