"""MujocoBackend: the embedded CPU simulator behind the Backend protocol.

One control tick (SimConfig.control_dt_s, 10 ms) runs the Cartesian controller, the finger set-point ramp,
several physics steps, then the contact reflex, the clutch and the grasp rules:
- contact reflex: an external force on the arm, hand or held brick above SimConfig.contact_reflex_n stops the
  motion where it is and records what was hit (Franka's reflex; see `collision_event`);
- clutch (see clutch.py): every brick is a free body; a connection is a weld that forms only when a brick is
  pressed within the stud lead-in, and breaks when its load exceeds the capacity of its engaged studs; a
  knocked brick stays where physics leaves it;
- grasp lock: a brick squeezed between the pads is welded to the hand once the fingers stop, and let go when
  the gripper opens or when the load on it exceeds the pads' friction (it then slips physically).
The welds stand in for stiffness MuJoCo's soft contacts do not give LEGO: measured numbers in the rules' comments.

The backend is put together from parts along the physics' lines, each a mixin over the shared state (core.py):
loading.py (scene, indices, reset), clutch_welds.py (seating, welds, breaking them), clutch_loads.py (what each
connection carries, what breaks), clutch_slip.py (studs still in after a give), arm.py (commands, reflex, collision queries), grasp.py (the grasp lock),
sensing.py (cameras, ground truth), snapshots.py (save / restore, perturbations).
"""

from __future__ import annotations

from typing import Any

import mujoco
import numpy as np

from jarvis_sim.backends.base import BackendError
from jarvis_sim.backends.mujoco.arm import ArmAndReflex
from jarvis_sim.backends.mujoco.arm_control import ArmKinematics, CartesianController, JointLimiter
from jarvis_sim.backends.mujoco.clutch_loads import ClutchLoads
from jarvis_sim.backends.mujoco.clutch_slip import ClutchSlip
from jarvis_sim.backends.mujoco.clutch_welds import ClutchWelds
from jarvis_sim.backends.mujoco.grasp import GraspLock
from jarvis_sim.backends.mujoco.loading import SceneLoading
from jarvis_sim.backends.mujoco.panda import HOME_Q
from jarvis_sim.backends.mujoco.scene import SimConfig
from jarvis_sim.backends.mujoco.sensing import Sensing
from jarvis_sim.backends.mujoco.snapshots import MujocoSnapshot, Snapshots


class MujocoBackend(SceneLoading, ClutchWelds, ClutchLoads, ClutchSlip, ArmAndReflex, GraspLock, Sensing, Snapshots):
    """A Franka Panda LEGO workspace in MuJoCo (CPU, offscreen EGL/OSMesa rendering)."""

    name = "mujoco"

    def __init__(self, config: SimConfig | dict[str, Any] | None = None) -> None:
        self.config = config if isinstance(config, SimConfig) else SimConfig.model_validate(config or {})
        self.task = None  # the scene of the loaded seed (jarvis_sim.tasks.variation.seeded_scene)
        self._generated_task = None  # the task as load() received it
        self._model = None
        self._data = None
        self._probe = None
        self._rig = None
        self.kin = ArmKinematics()
        self.cart = CartesianController(self.kin)
        self.limiter = JointLimiter(HOME_Q)

    def _diverged(self, dof: int, t: float) -> None:
        """Stop: MuJoCo found non-finite accelerations and has already put every body back to the model's rest pose
        (its auto-reset), so nothing after this tick would be what happened."""
        m = self.model
        where = ""
        if 0 <= dof < m.nv:
            body = int(m.dof_bodyid[dof])
            bricks = np.flatnonzero(self._brick_body == body)
            name = self._brick_ids[int(bricks[0])] if len(bricks) else mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, body)
            where = f" at {name}" if name else ""
        raise BackendError(f"simulation diverged{where} in the tick after t={t:.3f} s: the physics blew up and the "
                           "episode's state is lost")

    def step(self, n: int = 1) -> None:
        """Advance n control ticks: controller, physics, clutch rules."""
        m, d = self.model, self.data
        substeps = max(1, round(self.control_dt / m.opt.timestep))
        fractions = np.array([k / substeps for k in range(1, substeps + 1)])
        arm_ctrl, bad_qacc, qacc = self._arm_ctrl, self._bad_qacc, self._qacc  # live views (loading._index_model)
        for _ in range(n):
            if self.cart.target is not None:
                self.q_cmd = self.cart.tick(self.q_cmd, self.control_dt)
            self._ramp_grip()
            # The joint command follows q_cmd within the Panda's limits, interpolated over the physics steps so the
            # servos never see a jump.
            q_prev = self.limiter.q  # tick() replaces it with a new array, never writes it in place
            q_next = self.limiter.tick(self.q_cmd, self.control_dt)
            self._sync_collision_groups()
            ramp = q_prev + np.multiply.outer(fractions, q_next - q_prev)  # one row per physics step
            diverged, t0 = bad_qacc.number, d.time
            for k in range(substeps):
                arm_ctrl[:] = ramp[k]
                mujoco.mj_step(m, d)
            if bad_qacc.number != diverged or not np.isfinite(qacc).all():
                self._diverged(int(bad_qacc.lastinfo), t0)
            self._wrist.sample()  # the force estimate's noise: a fresh sample each control tick
            self._reflex_tick()
            # The grip and the clutch share one load path: when the fingers slip, what they pass on is bounded by their
            # friction, so the clutch is judged on the loads scaled back to the moment of slipping.
            slip = self._release_slipping_grasp()
            self._clutch_tick(1.0 / slip if slip > 1.0 else 1.0)
            self._grasp_tick()


__all__ = ["MujocoBackend", "MujocoSnapshot"]
