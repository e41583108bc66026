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
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import mujoco
import numpy as np

from jarvis_sim.backends.base import Backend, BackendError, CameraFrame, RobotState
from jarvis_sim.backends.mujoco.arm_control import ArmKinematics, CartesianController, JointLimiter
from jarvis_sim.backends.mujoco.bricks import FLOOR_SUFFIX
from jarvis_sim.backends.mujoco.cameras import CameraRig
from jarvis_sim.backends.mujoco.clutch import (
    GROUND,
    STUD_CLUTCH_N,
    STUD_LEAD_IN_M,
    ClutchGraph,
    Seat,
    capacity_of,
    utilisation,
)
from jarvis_sim.backends.mujoco.collision_groups import cluster_masks
from jarvis_sim.backends.mujoco.panda import (
    ARM_CONTYPE,
    DEFAULT_GRIP_FORCE_N,
    FINGER_MAX_M,
    HOME_Q,
    Q_LOWER,
    Q_UPPER,
    PandaNames,
)
from jarvis_sim.backends.mujoco.scene import (
    BASEPLATE_GEOM_PREFIX,
    GRASP_LOCK_EQ,
    SIDE_CAMERA,
    TOP_CAMERA,
    SimConfig,
    baseplate_cells,
    build_scene,
    clutch_eq_name,
    clutch_slots,
)
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import brick_pose_in_world
from jarvis_sim.lego.catalog import part
from jarvis_sim.lego.statics import GROUND as GROUND_INDEX
from jarvis_sim.lego.statics import Joint, admissible, joint_on_cells
from jarvis_sim.lego.world_state import BrickState, WorldState
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.variation import loose_bricks, seeded_scene

_SEATING_MAX_S = 2.0  # a brick pressed into its seat while still squeezed: see _seat
_PULL_IN_S = 0.05  # how long a freshly seated brick's welds take to draw it onto its seat: see _seat
_ON_PLANE_M = 0.002  # a loose cluster whose bricks are this far off their stud planes is not analysed on them
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
    rest_pending: frozenset[str]
    overloaded: frozenset[int]
    lock_armed: bool
    collision: tuple[str, str, float] | None
    reflex_n: float
    reflex_hold_n: float | None
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


_BAD_QACC = int(mujoco.mjtWarning.mjWARN_BADQACC)
REFLEX_REARM_FRACTION = 0.8  # see _reflex_tick
REFLEX_RISE_N = 5.0
QUERY_CLEARANCE_MAX_M = 0.01  # what-if queries up to this clearance keep MuJoCo's midphase (see load)


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
        self.limiter = JointLimiter(HOME_Q)

    # --- life cycle ------------------------------------------------------------------------------
    def load(self, task: TaskSpec, seed: int = 0) -> None:
        """Build the scene of a task and settle it."""
        self.close()
        self._generated_task = task
        task = self.task = seeded_scene(task, seed)  # seed 0: the TaskSpec exactly; see jarvis_sim.tasks.variation
        spec, self.layout = build_scene(task, self.config)
        # Compiled with the margins of what a what-if query moves (the arm and the loose bricks it may carry)
        # widened to the largest clearance a query may ask for (collisions(clearance_m=...)), then given their own
        # margins back: MuJoCo's midphase keeps the compiled margins in its bounding boxes, so a query can widen
        # them up to this much at run time and still meet every pair, while the simulation contacts exactly as
        # before. (All the structure's geoms widened made a query 9x slower in a 150-brick scene.)
        carried = [g for a in self.layout.action_ids for g in spec.body(a).geoms]
        widened = [(g, float(g.margin)) for g in [g for g in spec.geoms if g.contype == ARM_CONTYPE] + carried]
        for g, margin in widened:
            g.margin = max(margin, QUERY_CLEARANCE_MAX_M)
        try:
            self._model = spec.compile()
        except ValueError as exc:
            raise BackendError(f"task {task.id}: MuJoCo could not compile the scene: {exc}") from exc
        for g, margin in widened:
            self._model.geom_margin[g.id] = margin
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
        task = self._task()
        self._brick_ids = list(self.layout.initial_ids) + list(self.layout.action_ids)
        self._action = set(self.layout.action_ids)
        self._part = {b.id: (b.part, b.color) for b in task.initial}
        self._part.update({a.id: (a.part, a.color) for a in loose_bricks(task)})  # distractors seat like any brick
        self._body = {b: m.body(b).id for b in self._brick_ids}
        self._brick_of_body = {self._body[b]: b for b in self._brick_ids}
        self._brick_body = np.array([self._body[b] for b in self._brick_ids], dtype=int)
        self._brick_index = {b: k for k, b in enumerate(self._brick_ids)}
        self._slots = {b: [m.equality(clutch_eq_name(b, k)).id for k in range(n)] for b, n in clutch_slots(task).items()}
        self._slot_brick = {eq: b for b, eqs in self._slots.items() for eq in eqs}
        self._eq_brick = np.full(m.neq, -1, dtype=np.int64)  # brick index of each clutch weld (vectorised lookups)
        for eq, b in self._slot_brick.items():
            self._eq_brick[eq] = self._brick_index[b]
        self._is_clutch = np.zeros(m.neq, dtype=bool)
        self._is_clutch[list(self._slot_brick)] = True
        self._lock_eq = m.equality(GRASP_LOCK_EQ).id if self.layout.action_ids else None
        self._finger_dadr = np.array([m.jnt_dofadr[m.joint(j).id] for j in names.finger_joints])
        self._qadr = {b: int(m.jnt_qposadr[m.body_jntadr[self._body[b]]]) for b in self._brick_ids}
        self._dadr = {b: int(m.jnt_dofadr[m.body_jntadr[self._body[b]]]) for b in self._brick_ids}
        self._tree = {b: int(m.body_treeid[self._body[b]]) for b in self._brick_ids}
        body_brick = np.full(m.nbody, -1, dtype=np.int32)
        for k, b in enumerate(self._brick_ids):
            body_brick[self._body[b]] = k
        self._geom_brick = body_brick[m.geom_bodyid]
        # Colliding geoms of bricks (and the baseplate, the ground's), whose bitmasks follow the welded clusters.
        colliding = (m.geom_contype != 0) | (m.geom_conaffinity != 0)
        self._cgeoms = np.flatnonzero(colliding & (self._geom_brick >= 0))
        self._cgeom_brick = self._geom_brick[self._cgeoms]
        # The ground's cluster: the baseplate, and the table it is sunk into (level 0 is the table top, so bricks
        # seated on the baseplate touch the table too: contacts that only fight their welds).
        baseplate = np.array([(mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_GEOM, g) or "").startswith(BASEPLATE_GEOM_PREFIX)
                              for g in range(m.ngeom)], dtype=bool)
        self._ground_geoms = (np.append(np.flatnonzero(colliding & baseplate), m.geom("table").id)
                              if self.layout.baseplate_origin is not None else np.zeros(0, dtype=int))
        sizes = np.array([part(self._part[b][0]).size_m for b in self._brick_ids], dtype=float).reshape(-1, 3)
        self._box_half = sizes / 2 + np.array([0.0, 0.0, u.STUD_HEIGHT_M / 2])  # body and studs
        self._floor_geom = np.array([m.geom(f"{b}{FLOOR_SUFFIX}").id for b in self._brick_ids], dtype=int)
        self._geom_support = np.zeros(m.ngeom, dtype=bool)  # the table and the baseplate: they carry, not load
        self._geom_support[m.geom("table").id] = True
        self._geom_support[baseplate] = True
        self._groups_dirty = True
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
        geom_seg[baseplate] = extra["baseplate"]
        self._geom_segment = geom_seg
        self._segment_names = segs
        self._baseplate_geom = baseplate
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
            elif self._baseplate_geom[g]:
                out.append("baseplate")
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
        initial = task.initial_assembly
        origin = task.workspace.lattice_origin
        for b in initial:
            pos, quat = brick_pose_in_world(b, origin)
            adr = self._qadr[b.id]
            d.qpos[adr : adr + 3] = pos
            d.qpos[adr + 3 : adr + 7] = quat
        m.eq_obj2id[list(self._slot_brick)] = 0
        d.eq_active[:] = m.eq_active0
        # Per clutch weld: capacity (studs, pull N, moment about x and y N m) and the engaged centre's offset
        # from the brick's origin (world frame, m); `partner` names what an active weld holds the brick to.
        self._capacity = np.zeros((m.neq, 9))
        self._brick_caps: dict[str, np.ndarray] = {}  # combined capacity of a brick on several supports (see _use)
        self._rest_load = np.zeros((m.neq, 6))  # force and moment each clutch weld carries at rest
        # Per clutch weld, its engaged studs and joint plane as seated (admissibility, _cluster_admissible).
        self._joint_plane: dict[int, Joint] = {}  # bricks by their index in _brick_ids, GROUND_INDEX for the ground
        self._settling = False
        self._rest_pending: set[str] = set()  # bricks let go since the rest loads were last recorded
        self._partner: dict[int, str] = {}
        self._engaged: set[str] = set()  # bricks whose floor is off (see _clear_floors)
        self._brick_cluster = np.full(len(self._brick_ids), -1, dtype=np.int32)
        self._overloaded: set[int] = set()  # clutch welds over capacity in the last tick (see _break_overloaded)
        self._seating: dict[str, float] = {}
        self._lock_armed = False
        self._collision: tuple[str, str, float] | None = None
        self._reflex_hold_n: float | None = None  # least force since the last reflex stop, until it re-arms
        self.reflex_n = self.config.contact_reflex_n
        self.q_cmd = HOME_Q.copy()
        self.limiter.reset(HOME_Q)
        self.grip_closed = False
        self.grip_force = DEFAULT_GRIP_FORCE_N
        self.grip_open_width = 2 * FINGER_MAX_M
        self._apply_grip()
        d.ctrl[self._grip_act] = FINGER_MAX_M  # the fingers start open: no ramp from closed
        d.ctrl[self._arm_act] = self.q_cmd
        self.cart.clear()
        self.clutch = ClutchGraph(task.workspace.lattice_origin, baseplate_cells(task) if task.baseplate else None)
        for b in sorted(initial, key=lambda b: b.z):  # supports first: a connection needs its partner seated
            supports = tuple(initial.supports(b.id)) or (self.clutch.supports_of(b) if b.z == 0 else ())
            self.clutch.seat(b, supports)
            for s in supports:
                self._connect(b.id, s)
        self._sync_collision_groups()
        mujoco.mj_forward(m, d)
        settle_ticks = round(self.config.settle_s / self.control_dt)
        self._settling = True
        try:
            self.step(settle_ticks)
        finally:
            self._settling = False
        # A cluster asleep has no constraint rows: its welds' rest loads would stay unrecorded (zero), and its whole
        # self-stress would count as load the moment something woke it (measured on jarvis-v1: every weld of a
        # settled 46-brick staircase, up to 0.41 of capacity). Recorded on a copy with every tree awake (waking the
        # live scene would change how it goes on).
        assert self._probe is not None
        mujoco.mj_copyData(self._probe, m, d)
        _wake(m, self._probe, mujoco.mj_forward)
        self._record_rest_loads(data=self._probe)
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
        arm = self._arm_act
        for _ in range(n):
            if self.cart.target is not None:
                self.q_cmd = self.cart.tick(self.q_cmd, self.control_dt)
            self._ramp_grip()
            # The joint command follows q_cmd within the Panda's limits, interpolated over the physics steps so the
            # servos never see a jump.
            q_prev = self.limiter.q.copy()
            q_next = self.limiter.tick(self.q_cmd, self.control_dt)
            self._sync_collision_groups()
            ramp = q_prev + np.multiply.outer(fractions, q_next - q_prev)  # one row per physics step
            diverged, t0 = d.warning[_BAD_QACC].number, d.time
            for k in range(substeps):
                d.ctrl[arm] = ramp[k]
                mujoco.mj_step(m, d)
            if d.warning[_BAD_QACC].number != diverged or not np.isfinite(d.qacc).all():
                self._diverged(int(d.warning[_BAD_QACC].lastinfo), t0)
            self._reflex_tick()
            # The grip and the clutch share one load path: when the fingers slip, what they pass on is bounded by their
            # friction, so the clutch is judged on the loads scaled back to the moment of slipping.
            slip = self._release_slipping_grasp()
            self._clutch_tick(1.0 / slip if slip > 1.0 else 1.0)
            self._grasp_tick()

    # --- contact reflex --------------------------------------------------------------------------
    def tool_contact_force(self) -> tuple[np.ndarray, str | None, str | None]:
        """The external force (N, world frame) the scene exerts on the arm, hand and held brick, with the
        robot part (or held brick) and the obstacle of its largest contact (None, None when untouched)."""
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
            rel_q = _quat_mul(hand_q1, _quat_conj(hand_q0))
            rot = np.zeros(9)
            mujoco.mju_quat2Mat(rot, rel_q)
            for b in self._welded_group(held):
                adr = self._qadr[b]
                p = d.qpos[adr : adr + 3]
                probe.qpos[adr : adr + 3] = hand_p1 + rot.reshape(3, 3) @ (p - hand_p0)
                probe.qpos[adr + 3 : adr + 7] = _quat_mul(rel_q, d.qpos[adr + 3 : adr + 7])
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
            _wake(m, probe, mujoco.mj_fwdPosition)
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

    # --- sensing ---------------------------------------------------------------------------------
    def cameras(self) -> list[str]:
        """'top' and, when configured, 'side'."""
        return [TOP_CAMERA, SIDE_CAMERA] if self.config.side_camera else [TOP_CAMERA]

    def render(self, camera: str = "top", rgb: bool = True, depth: bool = True, segmentation: bool = False) -> CameraFrame:
        """Render one camera at the configured size."""
        if self._rig is None:
            raise BackendError("no task loaded: call load(task) first")
        if camera not in self.cameras():
            raise BackendError(f"unknown camera {camera!r}; valid: {', '.join(self.cameras())}")
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
            touching.append({k for k in self._geom_brick[other].tolist() if k >= 0})
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
        loose = [k for k in both if not self._connected(self._brick_ids[k])]
        return self._brick_ids[min(loose or both)]

    # --- clutch ----------------------------------------------------------------------------------
    def _connected(self, brick: str) -> bool:
        """True when the brick is welded to at least one support."""
        d = self.data
        return any(d.eq_active[eq] for eq in self._slots[brick])

    def _welded_group(self, brick: str) -> set[str]:
        """The brick and every brick welded onto it, transitively (what moves with it)."""
        group = {brick}
        changed = True
        while changed:
            changed = False
            for eq, partner in self._partner.items():
                b = self._slot_brick[eq]
                if partner in group and b not in group:
                    group.add(b)
                    changed = True
        return group

    def _lattice_pose(self, brick_id: str) -> tuple[np.ndarray, np.ndarray]:
        seat = self.clutch.seated[brick_id]
        pos, quat = brick_pose_in_world(seat, self._task().workspace.lattice_origin)
        return np.asarray(pos, dtype=float), np.asarray(quat, dtype=float)

    def _connect(self, brick: str, support: str) -> None:
        """Weld a seated brick to one support at their lattice poses, with the capacity of the engaged studs."""
        m, d = self.model, self.data
        free = [eq for eq in self._slots[brick] if not d.eq_active[eq]]
        if not free:
            return  # more supports than the brick has welds for: the others hold by contact only
        eq = free[0]
        pos, quat = self._lattice_pose(brick)
        if support == GROUND:
            partner_body, p2, q2 = 0, np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0])
        else:
            partner_body = self._body[support]
            p2, q2 = self._lattice_pose(support)
        m.eq_obj2id[eq] = partner_body
        data = _weld_data(pos, quat, p2, q2, m.eq_data.shape[1])
        # The anchor is the brick's bottom-face centre, so loads are read about the joint: MuJoCo holds the point
        # `anchor` of the partner (its frame) on the point relpose.pos of the brick (its frame), here its origin.
        rot2 = np.zeros(9)
        mujoco.mju_quat2Mat(rot2, q2)
        data[0:3] = rot2.reshape(3, 3).T @ (pos - p2)
        data[3:6] = 0.0
        m.eq_data[eq] = data
        d.eq_active[eq] = 1
        seat = self.clutch.seated[brick]
        cells = self.clutch.engaged_cells(seat, support)
        origin = self._task().workspace.lattice_origin
        cap = capacity_of(seat.cells(), cells, origin, float(pos[2]), self.config.contact_point_clutch_n)
        lower = GROUND_INDEX if support == GROUND else self._brick_index[support]
        self._joint_plane[eq] = joint_on_cells(self._brick_index[brick], lower, cells, origin, float(pos[2]))
        self._capacity[eq] = (cap.studs, cap.pull_n, cap.moment_x_nm, cap.moment_y_nm, *(pos - np.asarray(cap.centre)),
                              cap.half_x_m, cap.half_y_m)
        self._partner[eq] = support
        self._brick_caps.pop(brick, None)
        self._rest_load[eq] = 0.0
        self._groups_dirty = True

    def _sync_collision_groups(self) -> None:
        if self._groups_dirty:
            self._apply_collision_groups()

    def _apply_collision_groups(self) -> None:
        """Bricks welded together stop colliding with each other (collision_groups.py)."""
        m = self.model
        links = [(self._slot_brick[eq], partner) for eq, partner in self._partner.items()]
        members: list[str] = list(self._brick_ids) + ([GROUND] if len(self._ground_geoms) else [])
        groups = cluster_masks(members, links, self._brick_index)
        self._brick_cluster = np.array([groups.cluster_of[b] for b in self._brick_ids], dtype=np.int32)
        ct = np.array([groups.masks[b][0] for b in self._brick_ids], dtype=np.int32)
        ca = np.array([groups.masks[b][1] for b in self._brick_ids], dtype=np.int32)
        m.geom_contype[self._cgeoms] = ct[self._cgeom_brick]
        m.geom_conaffinity[self._cgeoms] = ca[self._cgeom_brick]
        engaged = [self._brick_index[b] for b in self._engaged]
        m.geom_contype[self._floor_geom[engaged]] = 0
        m.geom_conaffinity[self._floor_geom[engaged]] = 0
        if len(self._ground_geoms):
            m.geom_contype[self._ground_geoms], m.geom_conaffinity[self._ground_geoms] = groups.masks[GROUND]
        self._groups_dirty = False

    def _clear_floors(self) -> None:
        """Give a brick whose connection broke its floor back once no stud of another cluster is inside it."""
        if not self._engaged:
            return
        self._sync_collision_groups()  # clusters as they are after this tick's breaks and seatings
        d = self.data
        bodies = self._brick_body
        rot = d.xmat[bodies].reshape(-1, 3, 3)
        centre = d.xpos[bodies] + rot[:, :, 2] * self._box_half[:, 2:3]
        half = np.einsum("kij,kj->ki", np.abs(rot), self._box_half)
        lo, hi = centre - half, centre + half
        # One row per engaged brick (this runs every tick while one is): does any brick of another cluster reach
        # into its underside?
        engaged = sorted(self._engaged)
        ks = np.array([self._brick_index[b] for b in engaged])
        overlap = ((lo[None, :, :2] < hi[ks, None, :2] - STUD_LEAD_IN_M).all(axis=2)
                   & (hi[None, :, :2] > lo[ks, None, :2] + STUD_LEAD_IN_M).all(axis=2))
        overlap &= (lo[ks, None, 2] < hi[None, :, 2] - 1e-4) & (lo[ks, None, 2] > lo[None, :, 2])
        overlap[np.arange(len(ks)), ks] = False
        mine = self._brick_cluster[ks][:, None]
        overlap &= (mine < 0) | (self._brick_cluster[None, :] != mine)
        clear = {b for b, hit in zip(engaged, overlap.any(axis=1).tolist(), strict=True) if not hit}
        if clear:
            self._engaged -= clear
            self._groups_dirty = True

    def _disconnect(self, eq: int) -> None:
        """Break one connection; a brick left without supports leaves the lattice with what is welded onto it."""
        brick = self._slot_brick[eq]
        support = self._partner.pop(eq)
        self._brick_caps.pop(brick, None)
        self._groups_dirty = True
        # The studs of what it came off are still inside its underside: no floor until it is clear of them.
        self._engaged.add(brick)
        self.data.eq_active[eq] = 0
        self.clutch.links.discard(frozenset((brick, support)))
        if not self._connected(brick):
            self.clutch.unseat(self._welded_group(brick))

    def _detach(self, brick: str) -> None:
        """Break every connection of a brick to its supports (displace_brick)."""
        for eq in self._slots[brick]:
            if eq in self._partner:
                self._disconnect(eq)
        self.clutch.unseat(self._welded_group(brick))

    def _clutch_loads(self, data: mujoco.MjData | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Active clutch welds with constraint rows this step: (eq ids, external force on the brick N, external
        moment about the engaged centre N m), world frame.

        Calibrated against known wrenches: a weld's three translational rows hold minus the external force on
        its first body, its three rotational rows minus twice the external torque about the anchor.
        """
        d = self.data if data is None else data
        # MuJoCo lays out the equality rows first (d.ne of them): no scan of the whole constraint array. This runs
        # every tick, and while the structure sleeps its welds have no rows at all.
        ne = d.ne
        if ne == 0 or not self._partner:
            return np.zeros(0, dtype=int), np.zeros((0, 3)), np.zeros((0, 3))
        ids = d.efc_id[:ne]
        rows = np.flatnonzero(self._is_clutch[ids])
        if not len(rows):
            return np.zeros(0, dtype=int), np.zeros((0, 3)), np.zeros((0, 3))
        ids = ids[rows]
        f = d.efc_force[rows].reshape(-1, 6)
        eqs = ids[::6]
        force = -f[:, :3]
        lever = self._capacity[eqs, 4:7]
        # lever x force, written out as np.cross computes it (same products, same order), without its wrapper's cost.
        cross = np.stack([lever[:, 1] * force[:, 2] - lever[:, 2] * force[:, 1],
                          lever[:, 2] * force[:, 0] - lever[:, 0] * force[:, 2],
                          lever[:, 0] * force[:, 1] - lever[:, 1] * force[:, 0]], axis=1)
        moment = -0.5 * f[:, 3:] + cross
        return eqs, force, moment

    def _net_loads(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """_clutch_loads less each weld's load at rest (see _record_rest_loads): what actions add to a connection."""
        eqs, force, moment = self._clutch_loads()
        if not len(eqs):
            return eqs, force, moment
        rest = self._rest_load[eqs]
        return eqs, force - rest[:, :3], moment - rest[:, 3:]

    def _record_rest_loads(self, skip_clusters: set[int] | None = None, data: mujoco.MjData | None = None) -> None:
        """Take the loads the awake welds carry now as their rest loads.

        A structure's welds carry its weight and the self-stress of their loops (a brick on two supports, a wall
        in running bond): soft welds split forces around a loop by their softness, and the split reached 1-1.5x
        the capacity of 1-wide bricks in resting structures (measured on jarvis-v1: 22 connections of a 159-brick
        random stack broke while it settled under its own weight). A real structure carries its assembly stress
        too; what breaks it is what is added: a push, a pull, a blow, a press. So connections are judged on their
        load less the load at rest, recorded when a scene has settled and when a seated brick is let go.
        """
        eqs, force, moment = self._clutch_loads(data)
        if skip_clusters:
            bricks = [self._brick_index[self._slot_brick[int(e)]] for e in eqs]
            keep = ~np.isin(self._brick_cluster[bricks], list(skip_clusters))
            eqs, force, moment = eqs[keep], force[keep], moment[keep]
        self._rest_load[eqs] = np.concatenate([force, moment], axis=1)

    def _record_pending_rest(self) -> None:
        """Record the rest loads of clusters that took a seated brick, once nothing outside loads them (a press
        still on, or the hand still touching, would be taken for the structure's own load)."""
        if not self._rest_pending or self._seating:
            return
        self._sync_collision_groups()
        loaded = self._externally_loaded_clusters()
        if any(int(self._brick_cluster[self._brick_index[b]]) in loaded for b in self._rest_pending):
            return
        self._rest_pending.clear()
        self._record_rest_loads(skip_clusters=loaded)

    def _break_overloaded(self, load_scale: float = 1.0) -> None:
        """Break every connection loaded past its capacity (clutch.py: pull and prying moments interact linearly)."""
        t = float(self.data.time)
        if self._settling or any(t - since < _PULL_IN_S for since in self._seating.values()):
            return
        eqs, force, moment = self._net_loads()
        if not len(eqs):
            return
        use = load_scale * self._use(eqs, force, moment)
        over = np.flatnonzero(use > 1.0)
        if not len(over):
            return
        loaded = self._externally_loaded_clusters()
        # While a brick is being seated and the pads still squeeze it, its welds draw it the last fraction of a
        # millimetre against rigid pads: the fight loads its whole cluster, where a real brick's lead-in and the pads'
        # rubber absorb the centring. Its cluster is judged once the pads let go.
        seating = {int(self._brick_cluster[self._brick_index[b]]) for b in self._seating}
        prev, self._overloaded = self._overloaded, set()
        breaking: dict[int, list[int]] = {}
        for k in over:
            eq = int(eqs[k])
            if self._slot_brick[eq] in self._seating or eq not in self._partner:
                continue
            cluster = int(self._brick_cluster[self._brick_index[self._slot_brick[eq]]])
            if cluster not in loaded or cluster in seating:
                continue
            # Overloaded for two ticks running (20 ms): the soft welds ring for a tick when a cluster wakes or a
            # contact starts, and a single-tick spike is that ringing, not a load.
            self._overloaded.add(eq)
            if eq in prev:
                breaking.setdefault(cluster, []).append(eq)
        # A joint over its capacity in the welds' split of the load breaks only if no other split could carry it
        # (jarvis_sim/lego/statics.py); decided for every cluster before any breaks.
        doomed = [eq for cluster, over_eqs in breaking.items() if not self._cluster_admissible(cluster, load_scale)
                  for eq in over_eqs]
        for eq in doomed:
            self._disconnect(eq)

    def _cluster_admissible(self, cluster: int, load_scale: float = 1.0) -> bool:
        """Whether a welded cluster, standing still, carries what is added to it now (jarvis_sim/lego/statics.py):
        every contact from outside it (the robot, other bricks, the table) and any applied force, the contacts
        multiplied by `load_scale` as in _break_overloaded.

        The loads come from what touches the cluster, not from its welds: the welds' split of them is what is in
        question, and their readings carry the ringing of soft constraints (measured on jarvis-v1's house: pure
        moments of 40 mN m on bricks nothing touched, while 3 N was pressed on the wall's top). The weight is left
        out as each joint's rest load is (see _record_rest_loads): four of jarvis-v1's fifty initial structures
        would not stand under their own weight by this test with StableLego's T (tests/bench/bench_statics.py), and
        the question here is what an action adds.
        """
        m, d = self.model, self.data
        members = np.flatnonzero(self._brick_cluster == cluster)
        local = np.full(len(self._brick_ids), -1, dtype=np.int64)
        local[members] = np.arange(len(members))
        joints = []
        for eq in self._partner:
            joint = self._joint_plane[eq]
            if local[joint.upper] < 0:
                continue
            lower = GROUND_INDEX if joint.lower == GROUND_INDEX else int(local[joint.lower])
            if joint.lower != GROUND_INDEX and lower < 0:
                return False  # clusters changed since they were grouped: no consistent structure to analyse
            joints.append(replace(joint, upper=int(local[joint.upper]), lower=lower))
        if not joints:
            return False
        bodies = self._brick_body[members]
        # The analysis is on the lattice's stud planes. A cluster welded to the baseplate stands on them (its soft welds
        # sag a millimetre or two under a press); one resting on the table, or knocked or carried off, must be on them.
        grounded = any(j.lower == GROUND_INDEX for j in joints)
        sag = np.abs(d.xpos[bodies[[j.upper for j in joints]], 2] - [j.z for j in joints]).max()
        if not grounded and sag > _ON_PLANE_M:
            return False
        centre = np.mean([j.centre for j in joints], axis=0)  # moments about the cluster's middle: well conditioned
        # What is added to the structure standing at rest (as _net_loads judges each joint): its weight is left out.
        loads = np.zeros((len(members), 6))
        applied = d.xfrc_applied[bodies]
        loads[:, :3] = applied[:, :3]
        loads[:, 3:] = np.cross(d.xipos[bodies] - centre, applied[:, :3]) + applied[:, 3:]
        if d.ncon:
            k = self._geom_brick[d.contact.geom[: d.ncon]]
            side = np.where(k >= 0, local[np.maximum(k, 0)], -1)
            wrench = np.zeros(6)
            for i in np.flatnonzero((side[:, 0] >= 0) != (side[:, 1] >= 0)):  # one side in the cluster, one outside
                mujoco.mj_contactForce(m, d, int(i), wrench)
                frame = d.contact.frame[i].reshape(3, 3)
                on_second = frame.T @ wrench[:3]  # the contact pushes its second geom along the normal
                a = int(side[i, 1] if side[i, 1] >= 0 else side[i, 0])
                f = load_scale * (on_second if side[i, 1] >= 0 else -on_second)
                loads[a, :3] += f
                loads[a, 3:] += np.cross(d.contact.pos[i] - centre, f)
        return admissible(joints, loads, centre, STUD_CLUTCH_N)

    def _externally_loaded_clusters(self) -> set[int]:
        """Welded clusters touched this step by something outside them: the robot, a loose brick, another cluster.

        Only those have their connections judged. A cluster left alone carries gravity and the self-stress of its
        welds, which close loops (a brick on two supports, a wall in running bond) and are soft, so the solver's
        split of forces around a loop is an artefact of their softness (measured: 1-1.5x the capacity of 1-wide
        bricks in a resting wall, right after a brick was seated elsewhere on it). The structures of the tasks stand
        under their own weight; what breaks them is a push, a pull, a blow or a brick pressed on.
        """
        d = self.data
        out: set[int] = set()
        # A force applied to a brick's body (a perturbation, a test's push) loads its cluster from outside too.
        pushed = np.flatnonzero(np.abs(d.xfrc_applied[self._brick_body]).sum(axis=1) > 0)
        out.update(int(c) for c in self._brick_cluster[pushed] if c >= 0)
        if d.ncon == 0:
            return out
        geoms = d.contact.geom[: d.ncon]
        k = self._geom_brick[geoms]
        cluster = np.where(k >= 0, self._brick_cluster[np.maximum(k, 0)], -4)  # -4: any other body (an obstacle)
        cluster[self._geom_robot[geoms]] = -3
        cluster[self._geom_support[geoms]] = -2
        # A contact loads the cluster on each side from outside when the other side is the robot or another brick
        # (loose: -1, or another cluster); the table and the baseplate (-2) only carry what stands on them.
        for a, b in ((0, 1), (1, 0)):
            other = cluster[:, b]
            mask = (cluster[:, a] >= 0) & (other != cluster[:, a]) & (other != -2)
            out.update(int(c) for c in cluster[mask, a])
        return out

    def _clutch_tick(self, load_scale: float = 1.0) -> None:
        d = self.data
        t = float(d.time)
        touched = set().union(*self._pad_touches()) if self._seating else set()
        for b, since in list(self._seating.items()):
            if (self._brick_index[b] not in touched and t - since >= _PULL_IN_S) or t - since > _SEATING_MAX_S:
                del self._seating[b]
                self._rest_pending.add(b)  # let go: the structure now also carries this brick; recorded at rest
        self._break_overloaded(load_scale)
        self._seat_pressed()
        self._clear_floors()
        self._record_pending_rest()

    def _seat_pressed(self) -> None:
        """Seat every awake loose brick that is pressed onto studs hard enough within the capture region."""
        d = self.data
        if d.ncon == 0:
            return
        # Only a brick touching something other than the robot can be pressed onto studs: the bricks of this
        # step's contacts, not every brick every tick (find_seat costs ~1 ms).
        geoms = d.contact.geom[: d.ncon]
        not_robot = ~self._geom_robot[geoms].any(axis=1)
        pressed = geoms[not_robot]
        vertical: np.ndarray | None = None
        asleep = d.tree_asleep
        for k in sorted({k for k in self._geom_brick[pressed.ravel()].tolist() if k >= 0}):
            b = self._brick_ids[k]
            if asleep[self._tree[b]] >= 0 or b in self.clutch.seated or self._connected(b):
                continue
            body = self._body[b]
            if vertical is None:
                vertical = self._contact_vertical_forces()  # once a tick, for every candidate brick
            force = self._support_force(body, vertical)
            if force < self.config.seat_press_n:
                continue  # less than one connection's press: no seat can take it
            part_number, color = self._part[b]
            seat = self.clutch.find_seat(b, part_number, color, d.xpos[body], d.xmat[body].reshape(3, 3))
            if seat is None:
                continue
            if force < len(seat.supports) * self.config.seat_press_n:
                continue  # BrickSim registers each connection with its own press
            self._seat(b, seat)

    def _contact_vertical_forces(self) -> np.ndarray:
        """Per contact of this step, the vertical (world z) component of the force on geom2's body (N).

        Under an elliptic cone (the scene's) mj_contactForce only copies a contact's constraint forces and takes off
        its adhesion, so all contacts are read at once; a pyramidal cone's forces are decoded by MuJoCo one by one.
        """
        m, d = self.model, self.data
        n = d.ncon
        frames = d.contact.frame[:n]
        if int(m.opt.cone) != int(mujoco.mjtCone.mjCONE_ELLIPTIC):
            out = np.zeros(n)
            wrench = np.zeros(6)
            for i in range(n):
                mujoco.mj_contactForce(m, d, i, wrench)
                out[i] = float((frames[i].reshape(3, 3).T @ wrench[:3])[2])
            return out
        local = np.zeros((n, 3))  # along the normal and the two tangents
        if d.nefc:
            adr = d.contact.efc_address[:n]
            component = np.arange(3)
            valid = (adr[:, None] >= 0) & (component[None, :] < d.contact.dim[:n, None])
            local = np.where(valid, d.efc_force[np.where(valid, adr[:, None] + component[None, :], 0)], 0.0)
            local[:, 0] -= np.where(adr >= 0, d.contact.adhesion[:n], 0.0)
        return (frames[:, 2::3] * local).sum(axis=1)  # the frame's rows are the axes: their z components

    def _support_force(self, body: int, vertical: np.ndarray | None = None) -> float:
        """Upward force (N) on a brick from everything but the robot: how hard it is pressed onto what is below.
        `vertical`: this step's _contact_vertical_forces, when already read."""
        m, d = self.model, self.data
        if vertical is None:
            vertical = self._contact_vertical_forces()
        geoms = d.contact.geom[: d.ncon]
        bodies = m.geom_bodyid[geoms]
        rows = (bodies == body).any(axis=1) & ~self._geom_robot[geoms].any(axis=1)
        # The force on geom2's body pushes this brick up when it is geom2, and down on geom1 otherwise.
        sign = np.where(bodies[rows, 1] == body, 1.0, -1.0)
        return float((sign * vertical[rows]).sum())

    def _seat(self, brick: str, seat: Seat) -> None:
        """Clutch a pressed brick to its supports. Its welds rest at the lattice pose, sub-millimetre away at most
        in the plane (the capture region) and a stud height above at most: they pull it in as the lead-in guides
        a pressed real brick. That pull fights the stud contacts it crosses, loading every connection of the
        structure below for a few milliseconds: no connection is judged for _PULL_IN_S after a seating (the
        press itself, not a load). While the fingers still squeeze the brick, its own connections are not
        judged until the pads let go (or _SEATING_MAX_S passes)."""
        self.clutch.seat(seat.brick, ())
        for s in seat.supports:
            self._connect(brick, s)
            self.clutch.links.add(frozenset((brick, s)))
        if self.grasp_locked() == brick:
            assert self._lock_eq is not None
            self.data.eq_active[self._lock_eq] = 0
        self._lock_armed = False
        self._seating[brick] = float(self.data.time)

    def _use(self, eqs: np.ndarray, force: np.ndarray, moment: np.ndarray) -> np.ndarray:
        """Load over capacity of each connection (rows of _net_loads; above 1 it breaks).

        A brick on one support is judged on that connection (clutch.py). A brick on several supports is a rigid
        body on all their studs, as StableLego analyses it: it is pried off only by the moment on all its studs
        together, about the far edge of all of them, so each of its connections is judged on its own pull and on the
        brick's combined load. Judged one by one, the welds' moments at a brick's separate one-stud joints are mostly
        the compatibility moments of a soft, statically indeterminate weld network, not prying (measured on jarvis-v1:
        1 N pressed on the top of a house wall of 1-wide bricks loaded a one-stud joint eleven bricks below to
        1.65 x its capacity per newton, and 104 connections broke).
        """
        cap = self._capacity[eqs]
        use = utilisation(force, moment, cap)
        bricks = self._eq_brick[eqs]
        ids, counts = np.unique(bricks, return_counts=True)
        for k_brick in ids[counts > 1]:  # this runs every tick: only bricks on several supports cost more
            ks = np.flatnonzero(bricks == k_brick)
            combined = self._brick_capacity(self._brick_ids[int(k_brick)])
            if combined is None:
                continue
            total = force[ks].sum(axis=0)
            # Each row's moment is about its own engaged centre (brick origin - offset): move it to the combined one.
            lever = combined[4:7][None, :] - cap[ks, 4:7]
            about = (moment[ks] + np.cross(lever, force[ks])).sum(axis=0)
            whole = float(utilisation(total[None, :], about[None, :], combined[None, :])[0])
            pull = np.maximum(force[ks, 2], 0.0) / cap[ks, 1]
            use[ks] = np.maximum(pull, whole)
        return use

    def _brick_capacity(self, brick: str) -> np.ndarray | None:
        """The capacity row (as _capacity's) of all of a brick's engaged studs together, or None if it is not seated."""
        if brick in self._brick_caps:
            return self._brick_caps[brick]
        seat = self.clutch.seated.get(brick)
        if seat is None:
            return None
        cells = sorted({c for eq, s in self._partner.items() if self._slot_brick[eq] == brick
                        for c in self.clutch.engaged_cells(seat, s)})
        if not cells:
            return None
        pos, _ = self._lattice_pose(brick)
        cap = capacity_of(seat.cells(), cells, self._task().workspace.lattice_origin, float(pos[2]),
                          self.config.contact_point_clutch_n)
        row = np.array([cap.studs, cap.pull_n, cap.moment_x_nm, cap.moment_y_nm, *(pos - np.asarray(cap.centre)),
                        cap.half_x_m, cap.half_y_m])
        self._brick_caps[brick] = row
        return row

    def brick_load(self, brick_id: str) -> list[tuple[str, float]]:
        """(support, load as a fraction of capacity) of each connection of a brick this step (diagnostics, tests)."""
        eqs, force, moment = self._net_loads()
        use = self._use(eqs, force, moment)
        return [(self._partner[int(eq)], float(use[k])) for k, eq in enumerate(eqs)
                if self._slot_brick.get(int(eq)) == brick_id and int(eq) in self._partner]

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
            if not self.grip_closed:
                d.eq_active[eq] = 0
            return
        if not self._lock_armed or not self.grip_closed:
            return
        if float(np.abs(d.qvel[self._finger_dadr]).max()) > _LOCK_FINGER_SPEED_M_S:
            return
        held = self.held_brick()
        if held is None:
            return
        self._lock_armed = False
        body = self._body[held]
        m.eq_obj2id[eq] = body
        m.eq_data[eq] = _weld_data(d.xpos[self._hand], d.xquat[self._hand], d.xpos[body],
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
        return float(np.linalg.norm(total)) / capacity

    def grasp_locked(self) -> str | None:
        """The brick held rigidly by the grasp lock, if any (diagnostics and tests)."""
        eq = self._lock_eq
        if eq is None or not self.data.eq_active[eq]:
            return None
        return self._brick_of_body[int(self.model.eq_obj2id[eq])]

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
            rest_pending=frozenset(self._rest_pending),
            overloaded=frozenset(self._overloaded),
            lock_armed=self._lock_armed,
            collision=self._collision,
            reflex_n=self.reflex_n,
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
        self._rest_pending = set(snapshot.rest_pending)
        self._overloaded = set(snapshot.overloaded)
        self._lock_armed = snapshot.lock_armed
        self._collision = snapshot.collision
        self.reflex_n = snapshot.reflex_n
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

    # --- perturbations ---------------------------------------------------------------------------
    def _require_brick(self, brick_id: str, what: str) -> None:
        if brick_id not in self._body:
            raise BackendError(f"{what}: unknown brick {brick_id!r}; bricks: {', '.join(self._brick_ids)}")

    def _wake_all(self) -> None:
        _wake(self.model, self.data, mujoco.mj_forward)

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


__all__ = ["MujocoBackend", "MujocoSnapshot", "u"]
