"""MujocoBackend: the embedded CPU simulator behind the Backend protocol.

One control tick (SimConfig.control_dt_s, 10 ms) runs the Cartesian controller, the finger set-point ramp,
several physics steps, then the clutch and grasp rules:
- clutch (see clutch.py): a gripped connected brick pulled up by detach_lift_m comes off its weld; a released
  brick seats onto the lattice (and is welded) when within tolerance, judged from the first tick no finger pad
  touches it; a welded brick knocked more than 0.3 mm off its seat is set back on it;
- grasp lock: a brick squeezed between the pads is welded to the hand once the fingers stop, and let go when
  the gripper opens or when the load on it exceeds the pads' friction (it then slips physically).
Both stand in for stiffness MuJoCo's soft contacts do not give LEGO: measured numbers in the rules' comments.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

from jarvis_sim.backends.base import Backend, BackendError, CameraFrame, RobotState
from jarvis_sim.backends.mujoco.arm_control import ArmKinematics, CartesianController
from jarvis_sim.backends.mujoco.cameras import CameraRig
from jarvis_sim.backends.mujoco.clutch import GROUND, ClutchGraph
from jarvis_sim.backends.mujoco.panda import (
    DEFAULT_GRIP_FORCE_N,
    FINGER_MAX_M,
    HOME_Q,
    Q_LOWER,
    Q_UPPER,
    PandaNames,
)
from jarvis_sim.backends.mujoco.scene import (
    GRASP_LOCK_EQ,
    SIDE_CAMERA,
    TOP_CAMERA,
    SimConfig,
    baseplate_cells,
    build_scene,
    clutch_eq_name,
)
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import brick_pose_in_world
from jarvis_sim.lego.world_state import BrickState, WorldState
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.variation import loose_bricks, seeded_scene

_SNAP_WINDOW_S = 1.0  # keep trying while the brick settles, then give up
_SEAT_DRIFT_M = 3e-4  # a clutched brick pushed this far off its seat is set back on it
# MjData fields of island sleeping that a snapshot must carry besides the integration state.
_SLEEP_FIELDS = ("tree_asleep", "tree_awake", "body_awake", "body_awake_ind", "parent_awake_ind", "dof_awake_ind",
                 "ntree_awake", "nbody_awake", "nparent_awake", "nv_awake")
_LOCK_FINGER_SPEED_M_S = 0.002  # the grasp lock engages once the closing fingers move slower than this


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
    grip_closed: bool
    grip_force: float
    grip_open_width: float
    close_tcp_z: float | None
    pending: dict[str, float]
    ee_target: tuple[np.ndarray, np.ndarray] | None
    ee_setpoint: tuple[np.ndarray, np.ndarray] | None


def _weld_data(pos1: np.ndarray, quat1: np.ndarray, pos2: np.ndarray, quat2: np.ndarray, size: int) -> np.ndarray:
    """eq_data of a weld holding body2 at its current pose relative to body1 (zero anchor, torque scale 1).

    relpose is body2's pose in body1's frame; all zeros would mean "the pose at compile time", which is wrong
    at run time, so it is always filled explicitly.
    """
    rot = np.zeros(9)
    mujoco.mju_quat2Mat(rot, np.asarray(quat1, dtype=float))
    data = np.zeros(size)
    data[3:6] = rot.reshape(3, 3).T @ (np.asarray(pos2) - np.asarray(pos1))
    data[6:10] = _quat_mul(_quat_conj(np.asarray(quat1, dtype=float)), np.asarray(quat2, dtype=float))
    data[10] = 1.0
    return data


def _wake(m: mujoco.MjModel, d: mujoco.MjData, compute: Callable[[mujoco.MjModel, mujoco.MjData], None]) -> None:
    """Wake every kinematic tree and recompute `d` with `compute` (mj_forward or mj_fwdPosition).

    Writing tree_asleep alone leaves MuJoCo's derived sleep bookkeeping stale; one computation with island
    sleeping switched off rebuilds it for all trees awake.
    """
    sleep_bit = int(mujoco.mjtEnableBit.mjENBL_SLEEP)
    flags = int(m.opt.enableflags)
    m.opt.enableflags = flags & ~sleep_bit
    try:
        d.tree_asleep[:] = -mujoco.mjMINAWAKE
        compute(m, d)
    finally:
        m.opt.enableflags = flags


def _quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.zeros(4)
    mujoco.mju_mulQuat(out, a, b)
    return out


def _quat_conj(q: np.ndarray) -> np.ndarray:
    return np.array([q[0], -q[1], -q[2], -q[3]])


class MujocoBackend(Backend):
    """A Franka Panda LEGO workspace in MuJoCo (CPU, offscreen EGL/OSMesa rendering)."""

    name = "mujoco"

    def __init__(self, config: SimConfig | dict[str, Any] | None = None) -> None:
        self.config = config if isinstance(config, SimConfig) else SimConfig.model_validate(config or {})
        self.task: TaskSpec | None = None  # the scene of the loaded seed (jarvis_sim.tasks.variation.seeded_scene)
        self._generated_task: TaskSpec | None = None  # the task as load() received it
        self._model: mujoco.MjModel | None = None
        self._data: mujoco.MjData | None = None
        self._probe: mujoco.MjData | None = None
        self._rig: CameraRig | None = None
        self.kin = ArmKinematics()
        self.cart = CartesianController(self.kin)

    # --- life cycle ------------------------------------------------------------------------------
    def load(self, task: TaskSpec, seed: int = 0) -> None:
        """Build the scene of a task and settle it."""
        self.close()
        self._generated_task = task
        task = self.task = seeded_scene(task, seed)  # seed 0: the TaskSpec exactly; see jarvis_sim.tasks.variation
        spec, self.layout = build_scene(task, self.config)
        try:
            self._model = spec.compile()
        except ValueError as exc:
            raise BackendError(f"task {task.id}: MuJoCo could not compile the scene: {exc}") from exc
        self._data = mujoco.MjData(self._model)
        self._index_model()
        self.reset(seed)

    def _index_model(self) -> None:
        m = self.model
        names = PandaNames()
        self._arm_qadr = np.array([m.jnt_qposadr[m.joint(j).id] for j in names.joints])
        self._arm_dadr = np.array([m.jnt_dofadr[m.joint(j).id] for j in names.joints])
        self._finger_qadr = np.array([m.jnt_qposadr[m.joint(j).id] for j in names.finger_joints])
        self._arm_act = np.array([m.actuator(a).id for a in names.actuators])
        self._grip_act = m.actuator(names.gripper_actuator).id
        self._tcp = m.site(names.tcp_site).id
        self._hand = m.body(names.hand_body).id
        self._pads = (m.geom(names.finger_pads[0]).id, m.geom(names.finger_pads[1]).id)
        self._brick_ids = list(self.layout.initial_ids) + list(self.layout.action_ids)
        self._action = set(self.layout.action_ids)
        self._body = {b: m.body(b).id for b in self._brick_ids}
        self._action_of_body = {self._body[b]: b for b in self.layout.action_ids}
        self._brick_index = {b: k for k, b in enumerate(self._brick_ids)}
        self._seat_poses: dict[tuple[str, int, int, int, int], tuple[np.ndarray, np.ndarray]] = {}
        self._eq = {b: m.equality(clutch_eq_name(b)).id for b in self.layout.action_ids}
        self._lock_eq = m.equality(GRASP_LOCK_EQ).id if self.layout.action_ids else None
        self._finger_dadr = np.array([m.jnt_dofadr[m.joint(j).id] for j in names.finger_joints])
        self._qadr = {b: int(m.jnt_qposadr[m.body_jntadr[self._body[b]]]) for b in self.layout.action_ids}
        self._dadr = {b: int(m.jnt_dofadr[m.body_jntadr[self._body[b]]]) for b in self.layout.action_ids}
        body_brick = np.full(m.nbody, -1, dtype=np.int32)
        for k, b in enumerate(self._brick_ids):
            body_brick[self._body[b]] = k
        self._geom_brick = body_brick[m.geom_bodyid]
        root = m.body_rootid[m.geom_bodyid]
        panda_root = m.body("panda/link0").id
        self._geom_robot = root == panda_root
        # Segment indices: bricks first (in id order), then named scene objects.
        segs = {k: b for k, b in enumerate(self._brick_ids)}
        extra = {"table": len(segs), "robot": len(segs) + 1, "baseplate": len(segs) + 2}
        segs.update({v: k for k, v in extra.items()})
        geom_seg = self._geom_brick.copy()
        geom_seg[self._geom_robot] = extra["robot"]
        geom_seg[m.geom("table").id] = extra["table"]
        if self.layout.baseplate_origin is not None:
            geom_seg[m.geom_bodyid == m.body("baseplate").id] = extra["baseplate"]
        self._geom_segment = geom_seg
        self._segment_names = segs
        self._rig = CameraRig(m, geom_seg, segs)
        self._probe = mujoco.MjData(m)
        self._geom_names = self._describe_geoms()

    def _describe_geoms(self) -> list[str]:
        m = self.model
        out = []
        for g in range(m.ngeom):
            k = self._geom_brick[g]
            if k >= 0:
                out.append(self._brick_ids[k])
            elif self._geom_robot[g]:
                out.append(mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, m.geom_bodyid[g]) or "robot")
            elif g == m.geom("table").id:
                out.append("table")
            else:
                out.append(mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, m.geom_bodyid[g]) or f"geom{g}")
        return out

    def reset(self, seed: int = 0) -> None:
        """Return to the initial scene of this seed: arm at home, gripper open, structure clutched, then settle."""
        generated = self._generated_task
        if generated is None:
            raise BackendError("no task loaded: call load(task) first")
        scene = seeded_scene(generated, seed)
        if [(d.id, d.part, d.color) for d in scene.distractors] != [(d.id, d.part, d.color) for d in self._task().distractors]:
            self.load(generated, seed)  # another seed's distractors need another model
            return
        task = self.task = scene
        m, d = self.model, self.data
        mujoco.mj_resetData(m, d)
        d.qpos[self._arm_qadr] = HOME_Q
        d.qpos[self._finger_qadr] = FINGER_MAX_M
        for a in loose_bricks(task):
            adr = self._qadr[a.id]
            d.qpos[adr : adr + 3] = (a.start.x, a.start.y, 0.0)
            d.qpos[adr + 3 : adr + 7] = (math.cos(a.start.yaw / 2), 0.0, 0.0, math.sin(a.start.yaw / 2))
        m.eq_obj2id[list(self._eq.values())] = 0
        d.eq_active[:] = m.eq_active0
        self.q_cmd = HOME_Q.copy()
        self.grip_closed = False
        self.grip_force = DEFAULT_GRIP_FORCE_N
        self.grip_open_width = 2 * FINGER_MAX_M
        self._apply_grip()
        d.ctrl[self._grip_act] = FINGER_MAX_M  # the fingers start open: no ramp from closed
        d.ctrl[self._arm_act] = self.q_cmd
        self.cart.clear()
        self._close_tcp_z: float | None = None
        self._pending: dict[str, float] = {}
        self.clutch = ClutchGraph(task.workspace.lattice_origin, baseplate_cells(task) if task.baseplate else None)
        initial = task.initial_assembly
        for b in initial:
            supports = tuple(initial.supports(b.id)) or (self.clutch.supports_of(b) if b.z == 0 else ())
            self.clutch.seat(b, supports)
        mujoco.mj_forward(m, d)
        settle_ticks = round(self.config.settle_s / self.control_dt)
        self.step(settle_ticks)
        d.time = 0.0

    def close(self) -> None:
        """Free renderers and the model."""
        if self._rig is not None:
            self._rig.close()
            self._rig = None
        self._model = self._data = self._probe = None

    # --- accessors -------------------------------------------------------------------------------
    @property
    def model(self) -> mujoco.MjModel:
        """The compiled scene (raises when nothing is loaded)."""
        if self._model is None:
            raise BackendError("no task loaded: call load(task) first")
        return self._model

    @property
    def data(self) -> mujoco.MjData:
        """The live simulation data."""
        if self._data is None:
            raise BackendError("no task loaded: call load(task) first")
        return self._data

    def _task(self) -> TaskSpec:
        if self.task is None:
            raise BackendError("no task loaded: call load(task) first")
        return self.task

    # --- time ------------------------------------------------------------------------------------
    @property
    def control_dt(self) -> float:
        """Seconds per control tick."""
        return self.config.control_dt_s

    @property
    def sim_time_s(self) -> float:
        """Simulated seconds since load/reset."""
        return float(self.data.time)

    def step(self, n: int = 1) -> None:
        """Advance n control ticks: controller, physics, clutch rules."""
        m, d = self.model, self.data
        substeps = max(1, round(self.control_dt / m.opt.timestep))
        for _ in range(n):
            if self.cart.target is not None:
                self.q_cmd = self.cart.tick(self.q_cmd, self.control_dt)
                d.ctrl[self._arm_act] = self.q_cmd
            self._ramp_grip()
            mujoco.mj_step(m, d, nstep=substeps)
            if not np.isfinite(d.qacc).all():
                raise BackendError(f"simulation diverged at t={d.time:.3f} s")
            self._clutch_tick()
            self._grasp_tick()

    # --- robot -----------------------------------------------------------------------------------
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
        self.data.ctrl[self._arm_act] = self.q_cmd

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
            self._close_tcp_z = float(self.kin.fk(self.q_cmd)[0][2])
        if not closed and self.grip_closed:
            held = self.grasp_locked() or self.held_brick()  # the lock can hold a brick one pad no longer touches
            if held is not None and held in self._action:
                self._pending[held] = float(self.data.time)
            self._close_tcp_z = None
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
        d.ctrl[self._grip_act] = now + float(np.clip(target - now, -step, step))

    def solve_ik(self, position: np.ndarray, quaternion: np.ndarray, q0: np.ndarray | None = None) -> np.ndarray | None:
        """Joint angles putting the TCP at the pose, or None when unreachable within joint limits."""
        return self.kin.solve(np.asarray(position, float), np.asarray(quaternion, float), q0)

    def collisions(self, q: np.ndarray, ignore: tuple[str, ...] = ()) -> list[tuple[str, str]]:
        """(robot part or held brick, obstacle) pairs in contact with the arm at q; the live state is untouched."""
        m, d, probe = self.model, self.data, self._probe
        assert probe is not None
        q = np.asarray(q, dtype=float)
        if q.shape != (7,):
            raise BackendError(f"collisions needs 7 joint angles, got shape {q.shape}")
        mujoco.mj_copyData(probe, m, d)
        held = self.held_brick()
        hand_p0, hand_q0 = d.xpos[self._hand].copy(), d.xquat[self._hand].copy()
        probe.qpos[self._arm_qadr] = q
        mujoco.mj_kinematics(m, probe)
        moving: set[str] = set()
        if held is not None and held in self._action:
            # Carry the held brick (and what is welded onto it) rigidly with the hand.
            hand_p1, hand_q1 = probe.xpos[self._hand].copy(), probe.xquat[self._hand].copy()
            rel_q = _quat_mul(hand_q1, _quat_conj(hand_q0))
            rot = np.zeros(9)
            mujoco.mju_quat2Mat(rot, rel_q)
            for b in self._welded_group(held):
                adr = self._qadr[b]
                p = d.qpos[adr : adr + 3]
                probe.qpos[adr : adr + 3] = hand_p1 + rot.reshape(3, 3) @ (p - hand_p0)
                probe.qpos[adr + 3 : adr + 7] = _quat_mul(rel_q, d.qpos[adr + 3 : adr + 7])
                moving.add(b)
        # The probe is a what-if pose: compute it with every tree awake, else MuJoCo may find contacts with
        # geoms it still marks asleep from the copied state and stop with a fatal error.
        _wake(m, probe, mujoco.mj_fwdPosition)
        pairs: set[tuple[str, str]] = set()
        names = self._geom_names
        for c in probe.contact[: probe.ncon]:
            g1, g2 = int(c.geom[0]), int(c.geom[1])
            if c.dist > 0:
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

    # --- sensing ---------------------------------------------------------------------------------
    def cameras(self) -> list[str]:
        """'top' and, when configured, 'side'."""
        return [TOP_CAMERA, SIDE_CAMERA] if self.config.side_camera else [TOP_CAMERA]

    def render(self, camera: str = "top", rgb: bool = True, depth: bool = True, segmentation: bool = False) -> CameraFrame:
        """Render one camera at the configured size."""
        if camera not in self.cameras():
            raise BackendError(f"unknown camera {camera!r}; valid: {', '.join(self.cameras())}")
        assert self._rig is not None
        return self._rig.render(self.data, camera, self.config.image_width, self.config.image_height,
                                rgb, depth, segmentation)

    # --- ground truth ----------------------------------------------------------------------------
    def world_state(self) -> WorldState:
        """Every brick's pose (bottom-face centre), held flag and clutch links."""
        task, d = self._task(), self.data
        held = self.held_brick()
        parts = {b.id: (b.part, b.color) for b in task.initial}
        parts.update({a.id: (a.part, a.color) for a in loose_bricks(task)})
        bricks = []
        for b in self._brick_ids:
            body = self._body[b]
            bricks.append(BrickState(
                id=b, part=parts[b][0], color=parts[b][1],
                position=tuple(float(v) for v in d.xpos[body]),  # type: ignore[arg-type]
                quaternion=tuple(float(v) for v in d.xquat[body]),  # type: ignore[arg-type]
                held=b == held,
                connected_to=self.clutch.connected_to(b),
            ))
        return WorldState(sim_time_s=float(d.time), bricks=bricks)

    def _pad_touches(self) -> tuple[set[int], set[int]]:
        """Brick indices touching each finger pad (left, right)."""
        d = self.data
        geoms = d.contact.geom[: d.ncon]
        touching: list[set[int]] = []
        for pad in self._pads:
            rows = (geoms == pad).any(axis=1)
            other = np.where(geoms[rows, 0] == pad, geoms[rows, 1], geoms[rows, 0])
            touching.append({int(k) for k in self._geom_brick[other] if k >= 0})
        return touching[0], touching[1]

    def held_brick(self) -> str | None:
        """The brick touching both finger pads, if any."""
        d = self.data
        if d.ncon == 0:
            return None
        touching = self._pad_touches()
        both = touching[0] & touching[1]
        if not both:
            return None
        # Pads wider than a small brick also touch a clutched neighbour: the held one is the loose one.
        loose = [k for k in both if self._brick_ids[k] in self._eq and not d.eq_active[self._eq[self._brick_ids[k]]]]
        return self._brick_ids[min(loose or both)]

    # --- clutch ----------------------------------------------------------------------------------
    def _welded_group(self, brick: str) -> set[str]:
        """The brick and every action brick welded onto it, transitively."""
        m, d = self.model, self.data
        group = {brick}
        changed = True
        while changed:
            changed = False
            for b, eq in self._eq.items():
                if b not in group and d.eq_active[eq] and m.eq_obj2id[eq] in {self._body[g] for g in group}:
                    group.add(b)
                    changed = True
        return group

    def _clutch_tick(self) -> None:
        d = self.data
        if self.grip_closed and self._close_tcp_z is not None and self.grip_force >= self.config.detach_min_grip_n:
            lift = float(self.kin.fk(self.q_cmd)[0][2]) - self._close_tcp_z
            if lift > self.config.detach_lift_m:
                held = self.held_brick()
                if held is not None and held in self._action and d.eq_active[self._eq[held]]:
                    self._detach(held)
        touched = set().union(*self._pad_touches()) if self._pending else set()
        for b, t_release in list(self._pending.items()):
            if self._brick_index[b] in touched:
                # Still touching a finger: the settling window starts once it is free. Welding a brick that a pad
                # still presses makes the weld and the pad contact fight, which kicks the brick off its seat
                # (measured: a 1x1 thrown 2.3 mm up onto the stud tops, then held there by its weld).
                self._pending[b] = float(d.time)
                continue
            # Judged from the first tick no pad touches it: a brick overhanging its support (a 2x6 on a 2x2) starts
            # to tip as soon as it is free, where clutch would hold it on a real build.
            age = float(d.time) - t_release
            if self._try_snap(b) or age > _SNAP_WINDOW_S:
                del self._pending[b]
        self._hold_seated()

    def _hold_seated(self) -> None:
        """Set clutched action bricks knocked off their seat back onto it: clutch is rigid, the soft weld is not.

        A pad brushing a freshly welded 1x1 lifted it onto the stud tops, where stud contact and weld balanced:
        it sat 1.7 mm high while counted as seated (measured). Real clutch takes newtons to undo, which the
        robot applies only by lifting a brick in its fingers, and that detaches it first (see above).
        """
        d = self.data
        locked = self.grasp_locked()
        for b in self.layout.action_ids:  # the initial structure is static: only action bricks can drift
            seat = self.clutch.seated.get(b)
            if seat is None or b == locked or not d.eq_active[self._eq[b]]:
                continue
            key = (b, seat.x, seat.y, seat.z, seat.yaw)
            pose = self._seat_poses.get(key)
            if pose is None:
                pos, quat = brick_pose_in_world(seat, self._task().workspace.lattice_origin)
                pose = self._seat_poses[key] = (np.asarray(pos), np.asarray(quat))
            body = self._body[b]
            if float(np.linalg.norm(d.xpos[body] - pose[0])) > _SEAT_DRIFT_M:
                adr, dadr = self._qadr[b], self._dadr[b]
                d.qpos[adr : adr + 3] = pose[0]
                d.qpos[adr + 3 : adr + 7] = pose[1]
                d.qvel[dadr : dadr + 6] = 0.0

    def _detach(self, brick: str) -> None:
        """Release a brick's weld; bricks welded onto it come along (they leave the lattice with it)."""
        self.data.eq_active[self._eq[brick]] = 0
        self.clutch.unseat(self._welded_group(brick))

    def try_seat(self, brick_id: str) -> bool:
        """Seat a loose placed brick on the lattice now if it lies within tolerance; True when it snapped."""
        self._require_action(brick_id, "try_seat")
        if brick_id == self.held_brick() or self.data.eq_active[self._eq[brick_id]]:
            return False
        return self._try_snap(brick_id)

    def _try_snap(self, brick: str) -> bool:
        m, d, cfg = self.model, self.data, self.config
        task = self._task()
        target = next(b for b in loose_bricks(task) if b.id == brick)  # distractors seat like any brick
        body = self._body[brick]
        seat = self.clutch.find_seat(brick, target.part, target.color, d.xpos[body], d.xmat[body].reshape(3, 3),
                                     cfg.snap_in_plane_m, cfg.snap_height_m, cfg.snap_yaw_rad, cfg.snap_tilt_rad)
        if seat is None:
            return False
        pos, quat = brick_pose_in_world(seat.brick, task.workspace.lattice_origin)
        adr, dadr = self._qadr[brick], self._dadr[brick]
        d.qpos[adr : adr + 3] = pos
        d.qpos[adr + 3 : adr + 7] = quat
        d.qvel[dadr : dadr + 6] = 0.0
        static = [s for s in seat.supports if s == GROUND or s not in self._action]
        partner = 0 if static else self._body[seat.supports[0]]
        self._weld(brick, partner, np.asarray(pos), np.asarray(quat))
        self.clutch.seat(seat.brick, seat.supports)
        mujoco.mj_forward(m, d)
        return True

    def _weld(self, brick: str, partner_body: int, pos: np.ndarray, quat: np.ndarray) -> None:
        """Activate the brick's weld to partner_body at the current relative pose."""
        m, d = self.model, self.data
        eq = self._eq[brick]
        m.eq_obj2id[eq] = partner_body
        m.eq_data[eq] = _weld_data(pos, quat, d.xpos[partner_body], d.xquat[partner_body], m.eq_data.shape[1])
        d.eq_active[eq] = 1

    # --- grasp lock ------------------------------------------------------------------------------
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
            if not self.grip_closed or self._grasp_overloaded(eq):
                d.eq_active[eq] = 0
            return
        if not self.grip_closed or float(np.abs(d.qvel[self._finger_dadr]).max()) > _LOCK_FINGER_SPEED_M_S:
            return
        held = self.held_brick()
        if held is None or held not in self._action or d.eq_active[self._eq[held]]:
            return
        body = self._body[held]
        m.eq_obj2id[eq] = body
        m.eq_data[eq] = _weld_data(d.xpos[self._hand], d.xquat[self._hand], d.xpos[body], d.xquat[body],
                                   m.eq_data.shape[1])
        d.eq_active[eq] = 1

    def _grasp_overloaded(self, eq: int) -> bool:
        """True when the locked brick is pushed (by anything but the fingers) harder than the pads' friction holds.

        The load is summed from the brick's own contacts rather than read from the weld: the weld and the
        squeezing pads form a closed loop whose internal forces the solver splits arbitrarily.
        """
        m, d = self.model, self.data
        if d.ncon == 0:
            return False
        body = int(m.eq_obj2id[eq])
        geoms = d.contact.geom[: d.ncon]
        bodies = m.geom_bodyid[geoms]
        rows = np.flatnonzero((bodies == body).any(axis=1) & ~self._geom_robot[geoms].any(axis=1))
        if not len(rows):
            return False
        total = np.zeros(3)
        wrench = np.zeros(6)
        for i in rows:
            mujoco.mj_contactForce(m, d, int(i), wrench)
            frame = d.contact.frame[i].reshape(3, 3)
            sign = 1.0 if bodies[i, 1] == body else -1.0  # the force acts on geom2's body along the frame
            total += sign * (frame.T @ wrench[:3])
        capacity = 2.0 * float(m.geom_friction[self._pads[0], 0]) * self.grip_force
        return bool(np.linalg.norm(total) > capacity)

    def grasp_locked(self) -> str | None:
        """The brick held rigidly by the grasp lock, if any (diagnostics and tests)."""
        eq = self._lock_eq
        if eq is None or not self.data.eq_active[eq]:
            return None
        return self._action_of_body[int(self.model.eq_obj2id[eq])]

    # --- state -----------------------------------------------------------------------------------
    def save_state(self) -> MujocoSnapshot:
        """A snapshot of physics, weld targets, clutch graph and commands."""
        m, d = self.model, self.data
        sig = mujoco.mjtState.mjSTATE_INTEGRATION
        physics = np.zeros(mujoco.mj_stateSize(m, sig))
        mujoco.mj_getState(m, d, physics, sig)
        return MujocoSnapshot(
            task_id=self._task().id,
            physics=physics,
            sleep={k: np.copy(getattr(d, k)) for k in _SLEEP_FIELDS},
            eq_data=m.eq_data.copy(),
            eq_obj2id=m.eq_obj2id.copy(),
            clutch=self.clutch.copy(),
            q_cmd=self.q_cmd.copy(),
            grip_closed=self.grip_closed,
            grip_force=self.grip_force,
            grip_open_width=self.grip_open_width,
            close_tcp_z=self._close_tcp_z,
            pending=dict(self._pending),
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
        self.grip_closed = snapshot.grip_closed
        self.grip_force = snapshot.grip_force
        self.grip_open_width = snapshot.grip_open_width
        self._apply_grip()
        self._close_tcp_z = snapshot.close_tcp_z
        self._pending = dict(snapshot.pending)
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
        mujoco.mj_forward(m, d)

    # --- perturbations ---------------------------------------------------------------------------
    def _require_action(self, brick_id: str, what: str) -> None:
        if brick_id not in self._body:
            raise BackendError(f"{what}: unknown brick {brick_id!r}")
        if brick_id not in self._action:
            raise BackendError(
                f"{what}: brick {brick_id!r} belongs to the initial structure, which this backend keeps static "
                f"(fused into the world for speed); only bricks placed during the episode can be moved"
            )

    def _wake_all(self) -> None:
        _wake(self.model, self.data, mujoco.mj_forward)

    def displace_brick(self, brick_id: str, offset_m: tuple[float, float]) -> None:
        """Detach a brick and set it (with what is welded onto it) down on the table, shifted by offset_m."""
        self._require_action(brick_id, "displace_brick")
        d = self.data
        if self.held_brick() == brick_id:
            self.drop_held()
        self._detach(brick_id)
        group = self._welded_group(brick_id)
        adr = self._qadr[brick_id]
        dz = -float(d.qpos[adr + 2])  # its bottom goes to the table top
        for b in group:
            a = self._qadr[b]
            d.qpos[a] += offset_m[0]
            d.qpos[a + 1] += offset_m[1]
            d.qpos[a + 2] += dz
            d.qvel[self._dadr[b] : self._dadr[b] + 6] = 0.0
        self._wake_all()
        mujoco.mj_forward(self.model, d)

    def drop_held(self) -> None:
        """Open the gripper at once; the brick falls (and seats if it lands within tolerance)."""
        self.set_gripper(False)

    def knock(self, brick_id: str, impulse_n_s: float) -> None:
        """Apply a horizontal impulse (along +x) to a placed brick, detaching it with what is welded onto it."""
        self._require_action(brick_id, "knock")
        if not (impulse_n_s >= 0 and math.isfinite(impulse_n_s)):
            raise BackendError(f"knock: impulse must be a non-negative number, got {impulse_n_s!r}")
        self._detach(brick_id)
        group = self._welded_group(brick_id)
        mass = sum(float(self.model.body_mass[self._body[b]]) for b in group)
        dv = impulse_n_s / mass
        for b in group:
            self.data.qvel[self._dadr[b]] += dv
        self._wake_all()

    def brick_lattice_pose(self, brick_id: str) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
        """World pose a brick would have at its lattice seat, when seated (oracle helper)."""
        seated = self.clutch.seated.get(brick_id)
        if seated is None:
            raise BackendError(f"brick {brick_id!r} is not seated on the lattice")
        return brick_pose_in_world(seated, self._task().workspace.lattice_origin)


__all__ = ["MujocoBackend", "MujocoSnapshot", "u"]
