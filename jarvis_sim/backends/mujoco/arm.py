"""The arm and gripper of the MuJoCo backend: commands, the Franka contact reflex, what-if collision queries."""

from __future__ import annotations

import math

import mujoco
import numpy as np

from jarvis_sim.backends.base import BackendError, RobotState
from jarvis_sim.backends.mujoco.core import MujocoCore, wake
from jarvis_sim.backends.mujoco.panda import (
    DEFAULT_GRIP_FORCE_N,
    FINGER_MAX_M,
    HOME_Q,
    Q_LOWER,
    Q_UPPER,
)
from jarvis_sim.backends.mujoco.poses import quat_conj, quat_mul

REFLEX_REARM_FRACTION = 0.8  # see _reflex_tick
REFLEX_RISE_N = 5.0
QUERY_CLEARANCE_MAX_M = 0.01  # what-if queries up to this clearance keep MuJoCo's midphase (see loading.py)


class ArmAndReflex(MujocoCore):
    """Arm and gripper commands, the contact reflex, collision queries (mixed into MujocoBackend)."""

    def tool_contact_force(self) -> tuple[np.ndarray, str | None, str | None]:
        """The external force (N, world frame) the arm estimates on itself, its hand and held brick, biased and
        noisy as a Panda's estimate is (wrist_sensor.py: one sample a control tick), with the robot part (or held
        brick) and the obstacle of its largest contact (None, None when untouched)."""
        force, part_name, obstacle = self._contact_force_on_tool()
        return self._wrist.read(force), part_name, obstacle

    def _contact_force_on_tool(self) -> tuple[np.ndarray, str | None, str | None]:
        """The true external force on the arm, hand and held brick (see tool_contact_force)."""
        m, d = self.model, self.data
        total = np.zeros(3)
        if d.ncon == 0:
            return total, None, None
        # The held brick moves with the hand, so its contacts load the wrist's sensor and the pads' grip on it does
        # not; once it is clutched to the structure it is part of the scene, and the pads pressing or sliding on it
        # are felt like any other contact (a seated brick pushes back on the press).
        geoms = d.contact.geom[: d.ncon]
        own = self._geom_robot[geoms]  # only the geoms in contact are classified (this runs every tick)
        held = self.grasp_locked()
        if held is None:
            if not own.any():
                return total, None, None  # nothing touches the robot, so its pads hold nothing either
            touched = self.held_brick()
            held = touched if touched is not None and not self._connected(touched) else None
        if held is not None:
            own |= self._geom_brick[geoms] == self._brick_index[held]
        rows = np.flatnonzero(own[:, 0] ^ own[:, 1])
        if not len(rows):
            return total, None, None
        wrench = np.zeros(6)
        best = -1.0
        pair: tuple[str | None, str | None] = (None, None)
        frames = d.contact.frame[: d.ncon]
        for i in rows:
            mujoco.mj_contactForce(m, d, int(i), wrench)
            force = frames[i].reshape(3, 3).T @ wrench[:3]  # on geom2, from geom1
            g1, g2 = int(geoms[i, 0]), int(geoms[i, 1])
            on_mine, other = (g2, g1) if own[i, 1] else (g1, g2)
            if on_mine == g1:
                force = -force
            total += force
            if wrench[0] > best:
                best, pair = float(wrench[0]), (self._geom_names[on_mine], self._geom_names[other])
        return total, pair[0], pair[1]

    def set_contact_reflex(self, force_n: float | None = None) -> None:
        """Set the contact reflex threshold (N); None restores SimConfig.contact_reflex_n. A guarded press
        raises it for its duration, as a Franka program raises its collision thresholds for a contact task."""
        value = self.config.contact_reflex_n if force_n is None else float(force_n)
        if not (value > 0 and math.isfinite(value)):
            raise BackendError(f"set_contact_reflex: threshold must be a positive number of newtons, got {force_n!r}")
        self.reflex_n = value

    def collision_event(self, clear: bool = True) -> tuple[str, str, float] | None:
        """(robot part or held brick, obstacle, force N) of the last contact reflex, or None; read once."""
        event = self._collision
        if clear:
            self._collision = None
        return event

    def _reflex_tick(self) -> None:
        """Franka's reflex: an external force above the threshold stops the arm where it is.

        What is knocked stays knocked; the skill reading the event raises `collision`. The threshold defaults
        to 20 N (SimConfig.contact_reflex_n), the Cartesian force thresholds libfranka's example programs
        pass to set_collision_behavior (20-25 N).

        Once it has fired, the reflex re-arms when the force falls below REFLEX_REARM_FRACTION of the threshold;
        until then it fires again only if the force rises REFLEX_RISE_N past the least it has eased to since the
        stop. The contact rings down over the ticks after a stop (57 N, 32 N, 22 N): that is the same collision,
        and must not be charged to the next motion, which would be stopped before it could back the hand away.
        Pushing on into what was hit raises the force again, and stops the arm again.
        """
        if self.data.ncon == 0:
            self._reflex_hold_n = None
            return
        force, part_name, obstacle = self.tool_contact_force()
        magnitude = math.sqrt(float(force.dot(force)))  # np.linalg.norm's own formula, without its wrapper's cost
        if magnitude <= self.reflex_n or part_name is None or obstacle is None:
            if self._reflex_hold_n is not None and magnitude < REFLEX_REARM_FRACTION * self.reflex_n:
                self._reflex_hold_n = None
            return
        if self._reflex_hold_n is not None and magnitude <= self._reflex_hold_n + REFLEX_RISE_N:
            self._reflex_hold_n = min(self._reflex_hold_n, magnitude)
            return
        self._reflex_hold_n = magnitude
        if self._collision is None:
            self._collision = (part_name, obstacle, magnitude)
        self.cart.clear()
        self.q_cmd = np.clip(self.data.qpos[self._arm_qadr].copy(), self.kin.lower, self.kin.upper)
        self.limiter.reset(self.q_cmd)  # the reflex brakes at once, as Franka's does
        self.data.ctrl[self._arm_act] = self.q_cmd

    def robot_state(self) -> RobotState:
        """Joint state, gripper opening and TCP pose."""
        d = self.data
        quat = np.zeros(4)
        mujoco.mju_mat2Quat(quat, d.site_xmat[self._tcp])
        return RobotState(
            joint_positions=d.qpos[self._arm_qadr].copy(),
            joint_velocities=d.qvel[self._arm_dadr].copy(),
            gripper_width=float(d.qpos[self._finger_qadr].sum()),
            ee_position=d.site_xpos[self._tcp].copy(),
            ee_quaternion=quat,
            sim_time_s=float(d.time),
            extra={"joint_targets": self.q_cmd.copy(), "gripper_closed": self.grip_closed},
        )

    def set_joint_targets(self, q: np.ndarray) -> None:
        """Command the 7 joint position targets (rad); cancels a Cartesian target."""
        q = np.asarray(q, dtype=float)
        if q.shape != (7,) or not np.isfinite(q).all():
            raise BackendError(f"set_joint_targets needs 7 finite angles, got {q!r}")
        self.cart.clear()
        self.q_cmd = np.clip(q, self.kin.lower, self.kin.upper)

    def set_ee_target(self, position: np.ndarray, quaternion: np.ndarray) -> None:
        """Track a TCP pose (world frame; base = world origin) in straight lines at bounded speed."""
        p = np.asarray(position, dtype=float)
        q = np.asarray(quaternion, dtype=float)
        if p.shape != (3,) or q.shape != (4,) or not (np.isfinite(p).all() and np.isfinite(q).all()):
            raise BackendError(f"set_ee_target needs a 3-vector and a wxyz quaternion, got {p!r}, {q!r}")
        if np.linalg.norm(q) < 1e-9:
            raise BackendError("set_ee_target: zero quaternion")
        self.cart.set_target(p, q, self.q_cmd)

    def ee_target_reached(self) -> bool:
        """True when the Cartesian set-point has arrived at the target (the arm may still be settling)."""
        return self.cart.arrived()

    def set_gripper(self, closed: bool, force_n: float | None = None, width_m: float | None = None) -> None:
        """Open (to width_m, default fully), or close squeezing with force_n newtons per finger (default 5 N)."""
        force = DEFAULT_GRIP_FORCE_N if force_n is None else float(force_n)
        if not (force > 0 and math.isfinite(force)):
            raise BackendError(f"set_gripper: force must be positive, got {force_n!r}")
        opening = 2 * FINGER_MAX_M if width_m is None else float(width_m)
        if not (0.0 <= opening <= 2 * FINGER_MAX_M and math.isfinite(opening)):
            raise BackendError(f"set_gripper: width must lie in [0, {2 * FINGER_MAX_M}] m, got {width_m!r}")
        self.grip_open_width = opening
        if closed and not self.grip_closed:
            self._lock_armed = True  # the lock engages once per closing of the fingers
        self.grip_closed = bool(closed)
        self.grip_force = force
        self._apply_grip()

    def _apply_grip(self) -> None:
        """Set the squeeze limit; the finger set-point moves toward the command in step() (_ramp_grip)."""
        m = self.model
        # The finger coupling splits the actuator force between both fingers.
        m.actuator_forcerange[self._grip_act] = (-2 * self.grip_force, 2 * self.grip_force)

    def _ramp_grip(self) -> None:
        """Move the finger set-point toward the command at the gripper's speed.

        A set-point jumping to closed slammed the pads into a brick at ~170 mm/s, knocking it 0.3 mm off centre
        before it settled between them; the Franka hand closes at 20-100 mm/s.
        """
        d = self.data
        target = 0.0 if self.grip_closed else self.grip_open_width / 2
        now = float(d.ctrl[self._grip_act])
        step = self.config.finger_speed_m_s * self.control_dt
        d.ctrl[self._grip_act] = now + min(max(target - now, -step), step)

    def solve_ik(self, position: np.ndarray, quaternion: np.ndarray, q0: np.ndarray | None = None) -> np.ndarray | None:
        """Joint angles putting the TCP at the pose, or None when unreachable within joint limits."""
        return self.kin.solve(np.asarray(position, float), np.asarray(quaternion, float), q0)

    def collisions(self, q: np.ndarray, ignore: tuple[str, ...] = (),
                   clearance_m: float = 0.0) -> list[tuple[str, str]]:
        """(robot part or held brick, obstacle) pairs closer than clearance_m (0: in contact) with the arm at q;
        the live state is untouched."""
        m, d, probe = self.model, self.data, self._probe
        assert probe is not None
        q = np.asarray(q, dtype=float)
        if q.shape != (7,):
            raise BackendError(f"collisions needs 7 joint angles, got shape {q.shape}")
        if not (math.isfinite(clearance_m) and clearance_m >= 0.0):
            raise BackendError(f"collisions needs a clearance of 0 m or more, got {clearance_m}")
        self._sync_collision_groups()
        mujoco.mj_copyData(probe, m, d)
        held = self.held_brick()
        hand_p0, hand_q0 = d.xpos[self._hand].copy(), d.xquat[self._hand].copy()
        probe.qpos[self._arm_qadr] = q
        mujoco.mj_kinematics(m, probe)
        moving: set[str] = set()
        if held is not None and held in self._action:
            # Carry the held brick (and what is welded onto it) rigidly with the hand.
            hand_p1, hand_q1 = probe.xpos[self._hand].copy(), probe.xquat[self._hand].copy()
            rel_q = quat_mul(hand_q1, quat_conj(hand_q0))
            rot = np.zeros(9)
            mujoco.mju_quat2Mat(rot, rel_q)
            for b in self._welded_group(held):
                adr = self._qadr[b]
                p = d.qpos[adr : adr + 3]
                probe.qpos[adr : adr + 3] = hand_p1 + rot.reshape(3, 3) @ (p - hand_p0)
                probe.qpos[adr + 3 : adr + 7] = quat_mul(rel_q, d.qpos[adr + 3 : adr + 7])
                moving.add(b)
        # MuJoCo reports a pair as a contact once it is closer than the larger of the two geoms' margins: widen
        # the moving geoms' margins to the clearance for this one query (the live model is restored before
        # anything steps again). The midphase's bounding boxes of multi-geom bodies keep the margins the model was
        # compiled with (see load) and drop any pair farther apart than those; past them the midphase is off.
        widened = None
        if clearance_m > 0.0:
            widened = self._geom_robot.copy()
            if moving:
                widened |= np.isin(np.asarray(self._geom_names), sorted(moving))
        saved_margin, saved_flags = m.geom_margin.copy(), int(m.opt.disableflags)
        if widened is not None:
            m.geom_margin[widened] = np.maximum(m.geom_margin[widened], clearance_m)
            if clearance_m > QUERY_CLEARANCE_MAX_M:  # beyond what the bounding boxes were compiled for
                m.opt.disableflags = saved_flags | int(mujoco.mjtDisableBit.mjDSBL_MIDPHASE)
        try:
            # The probe is a what-if pose: compute it with every tree awake, else MuJoCo may find contacts with
            # geoms it still marks asleep from the copied state and stop with a fatal error.
            wake(m, probe, mujoco.mj_fwdPosition)
        finally:
            m.geom_margin[:] = saved_margin
            m.opt.disableflags = saved_flags
        pairs: set[tuple[str, str]] = set()
        names = self._geom_names
        for c in probe.contact[: probe.ncon]:
            g1, g2 = int(c.geom[0]), int(c.geom[1])
            if c.dist > clearance_m:
                continue
            for ga, gb in ((g1, g2), (g2, g1)):
                a_name, b_name = names[ga], names[gb]
                a_moving = self._geom_robot[ga] or a_name in moving
                b_moving = self._geom_robot[gb] or b_name in moving
                if a_moving and not b_moving and a_name not in ignore and b_name not in ignore:
                    pairs.add((a_name, b_name))
        return sorted(pairs)

    @property
    def home_q(self) -> np.ndarray:
        """The arm's home configuration (TCP 0.49 m above the table, pointing down)."""
        return HOME_Q.copy()

    def joint_limits(self) -> tuple[np.ndarray, np.ndarray]:
        """Franka's published joint position limits (rad)."""
        return Q_LOWER.copy(), Q_UPPER.copy()
