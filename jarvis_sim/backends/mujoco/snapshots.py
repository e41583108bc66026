"""Saving and restoring the MuJoCo backend's whole state, and the perturbations that edit it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

from jarvis_sim.backends.base import BackendError
from jarvis_sim.backends.mujoco.clutch import (
    ClutchGraph,
    utilisation,
)
from jarvis_sim.backends.mujoco.core import SLEEP_FIELDS, MujocoCore
from jarvis_sim.backends.mujoco.wrist_sensor import WristSensor
from jarvis_sim.lego.assembly import brick_pose_in_world
from jarvis_sim.lego.statics import Joint


@dataclass(frozen=True)
class MujocoSnapshot:
    """Full state of a MujocoBackend: physics, runtime weld targets, clutch graph, commands."""

    task_id: str
    physics: np.ndarray
    sleep: dict[str, Any]
    eq_data: np.ndarray
    eq_obj2id: np.ndarray
    clutch: ClutchGraph
    q_cmd: np.ndarray
    limiter: tuple[np.ndarray, np.ndarray, np.ndarray]
    grip_closed: bool
    grip_force: float
    grip_open_width: float
    partner: dict[int, str]
    capacity: np.ndarray
    rest_load: np.ndarray
    joint_plane: dict[int, Joint]
    seating: dict[str, float]
    engaged: frozenset[str]
    registered: dict[str, float]
    slipping: dict[str, Any]
    frictionloss: np.ndarray
    rest_pending: frozenset[str]
    overloaded: frozenset[int]
    lock_armed: bool
    collision: tuple[str, str, float] | None
    reflex_n: float
    wrist: WristSensor
    reflex_hold_n: float | None
    ee_target: tuple[np.ndarray, np.ndarray] | None
    ee_setpoint: tuple[np.ndarray, np.ndarray] | None


class Snapshots(MujocoCore):
    """save_state / restore_state and the perturbations (mixed into MujocoBackend)."""

    def save_state(self) -> MujocoSnapshot:
        """A snapshot of physics, weld targets, clutch graph and commands."""
        m, d = self.model, self.data
        sig = mujoco.mjtState.mjSTATE_INTEGRATION
        physics = np.zeros(mujoco.mj_stateSize(m, sig))
        mujoco.mj_getState(m, d, physics, sig)
        return MujocoSnapshot(
            task_id=self._task().id,
            physics=physics,
            sleep={k: np.copy(getattr(d, k)) for k in SLEEP_FIELDS},
            eq_data=m.eq_data.copy(),
            eq_obj2id=m.eq_obj2id.copy(),
            clutch=self.clutch.copy(),
            q_cmd=self.q_cmd.copy(),
            limiter=(self.limiter.q.copy(), self.limiter.v.copy(), self.limiter.a.copy()),
            grip_closed=self.grip_closed,
            grip_force=self.grip_force,
            grip_open_width=self.grip_open_width,
            partner=dict(self._partner),
            capacity=self._capacity.copy(),
            rest_load=self._rest_load.copy(),
            joint_plane=dict(self._joint_plane),
            seating=dict(self._seating),
            engaged=frozenset(self._engaged),
            registered=dict(self._registered),
            slipping=dict(self._slipping),
            frictionloss=m.dof_frictionloss.copy(),
            rest_pending=frozenset(self._rest_pending),
            overloaded=frozenset(self._overloaded),
            lock_armed=self._lock_armed,
            collision=self._collision,
            reflex_n=self.reflex_n,
            wrist=self._wrist.copy(),
            reflex_hold_n=self._reflex_hold_n,
            ee_target=None if self.cart.target is None else (self.cart.target[0].copy(), self.cart.target[1].copy()),
            ee_setpoint=None if self.cart.setpoint is None else (self.cart.setpoint[0].copy(), self.cart.setpoint[1].copy()),
        )

    def restore_state(self, snapshot: Any) -> None:
        """Return to a snapshot of this task taken by save_state."""
        if not isinstance(snapshot, MujocoSnapshot) or snapshot.task_id != self._task().id:
            raise BackendError("restore_state needs a snapshot taken by save_state on this backend and task")
        m, d = self.model, self.data
        m.eq_data[:] = snapshot.eq_data
        m.eq_obj2id[:] = snapshot.eq_obj2id
        mujoco.mj_setState(m, d, snapshot.physics, mujoco.mjtState.mjSTATE_INTEGRATION)
        self.clutch = snapshot.clutch.copy()
        self.q_cmd = snapshot.q_cmd.copy()
        self.limiter.q, self.limiter.v, self.limiter.a = (v.copy() for v in snapshot.limiter)
        self.grip_closed = snapshot.grip_closed
        self.grip_force = snapshot.grip_force
        self.grip_open_width = snapshot.grip_open_width
        self._apply_grip()
        self._partner = dict(snapshot.partner)
        self._capacity = snapshot.capacity.copy()
        self._brick_caps = {}
        self._rest_load = snapshot.rest_load.copy()
        self._joint_plane = dict(snapshot.joint_plane)
        self._seating = dict(snapshot.seating)
        self._engaged = set(snapshot.engaged)
        self._registered = dict(snapshot.registered)
        self._slipping = dict(snapshot.slipping)
        m.dof_frictionloss[:] = snapshot.frictionloss
        self._rest_pending = set(snapshot.rest_pending)
        self._overloaded = set(snapshot.overloaded)
        self._lock_armed = snapshot.lock_armed
        self._collision = snapshot.collision
        self.reflex_n = snapshot.reflex_n
        self._wrist = snapshot.wrist.copy()
        self._reflex_hold_n = snapshot.reflex_hold_n
        self.cart.target = None if snapshot.ee_target is None else (snapshot.ee_target[0].copy(), snapshot.ee_target[1].copy())
        self.cart.setpoint = None if snapshot.ee_setpoint is None else (snapshot.ee_setpoint[0].copy(), snapshot.ee_setpoint[1].copy())
        # MuJoCo's sleep bookkeeping (which trees, bodies and dofs are awake, and their counts) is not part of the
        # integration state; restoring tree_asleep alone left it stale (measured: a restored grasp had no contacts,
        # so the held brick fell through the fingers). It is restored whole, which keeps a round trip exact.
        for k, v in snapshot.sleep.items():
            if np.ndim(v):
                getattr(d, k)[:] = v
            else:
                setattr(d, k, v.item())
        self._apply_collision_groups()
        mujoco.mj_forward(m, d)

    def displace_brick(self, brick_id: str, offset_m: tuple[float, float]) -> None:
        """Detach a brick and set it (with what is welded onto it) down on the table, shifted by offset_m."""
        self._require_brick(brick_id, "displace_brick")
        d = self.data
        if self.held_brick() == brick_id:
            self.drop_held()
        group = self._welded_group(brick_id)
        self._detach(brick_id)
        adr = self._qadr[brick_id]
        dz = -float(d.qpos[adr + 2])  # its bottom goes to the table top
        for b in group:
            a = self._qadr[b]
            d.qpos[a] += offset_m[0]
            d.qpos[a + 1] += offset_m[1]
            d.qpos[a + 2] += dz
            d.qvel[self._dadr[b] : self._dadr[b] + 6] = 0.0
        self._wake_all()
        self._sync_collision_groups()
        mujoco.mj_forward(self.model, d)

    def drop_held(self) -> None:
        """Open the gripper at once; the brick falls (and stays unseated where it lands: nothing presses it)."""
        self.set_gripper(False)

    def knock(self, brick_id: str, impulse_n_s: float) -> None:
        """Apply a horizontal impulse (along +x) to a brick's centre of mass, as a blow would.

        Its connections take the blow: they break where the load exceeds their capacity (clutch.py), and
        whatever comes loose moves as physics has it.
        """
        self._require_brick(brick_id, "knock")
        if not (impulse_n_s >= 0 and math.isfinite(impulse_n_s)):
            raise BackendError(f"knock: impulse must be a non-negative number, got {impulse_n_s!r}")
        m, d = self.model, self.data
        self._wake_all()
        body = self._body[brick_id]
        force = impulse_n_s / m.opt.timestep  # spread over one physics step
        before = self.save_state()
        d.xfrc_applied[body, 0] += force
        self._sync_collision_groups()
        mujoco.mj_step(m, d)
        d.xfrc_applied[body, 0] -= force
        # Within that step the welds absorb the blow whole; if it overloaded some, they gave way as it struck:
        # the step is run again from before the blow without them, so what came loose takes the impulse.
        eqs, loads, moments = self._net_loads()
        broken = [int(e) for e, use in zip(eqs, utilisation(loads, moments, self._capacity[eqs]), strict=True)
                  if use > 1.0 and int(e) in self._partner]
        if broken:
            self.restore_state(before)
            for eq in broken:
                if eq in self._partner:
                    self._disconnect(eq)
            d.xfrc_applied[body, 0] += force
            self._sync_collision_groups()
            mujoco.mj_step(m, d)
            d.xfrc_applied[body, 0] -= force

    def brick_lattice_pose(self, brick_id: str) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
        """World pose a brick would have at its lattice seat, when seated (oracle helper)."""
        seated = self.clutch.seated.get(brick_id)
        if seated is None:
            raise BackendError(f"brick {brick_id!r} is not seated on the lattice")
        return brick_pose_in_world(seated, self._task().workspace.lattice_origin)
