"""Loading a task into the MuJoCo backend: the compiled scene, its indices, and the settled initial state."""

from __future__ import annotations

import math

import mujoco
import numpy as np

from jarvis_sim.backends.base import BackendError
from jarvis_sim.backends.mujoco.arm import QUERY_CLEARANCE_MAX_M
from jarvis_sim.backends.mujoco.bricks import FLOOR_SUFFIX
from jarvis_sim.backends.mujoco.cameras import CameraRig
from jarvis_sim.backends.mujoco.clutch import (
    ClutchGraph,
)
from jarvis_sim.backends.mujoco.core import MujocoCore, wake
from jarvis_sim.backends.mujoco.panda import (
    ARM_CONTYPE,
    DEFAULT_GRIP_FORCE_N,
    FINGER_MAX_M,
    HOME_Q,
    PandaNames,
)
from jarvis_sim.backends.mujoco.scene import (
    BASEPLATE_GEOM_PREFIX,
    GRASP_LOCK_EQ,
    baseplate_cells,
    build_scene,
    clutch_eq_name,
    clutch_slots,
)
from jarvis_sim.backends.mujoco.wrist_sensor import WristSensor
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import brick_pose_in_world
from jarvis_sim.lego.catalog import part
from jarvis_sim.lego.statics import Joint
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.variation import loose_bricks, seeded_scene


class SceneLoading(MujocoCore):
    """Load, index, reset and close (mixed into MujocoBackend)."""

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
        # Live views step() reads every tick (an MjData attribute builds a new wrapper on each read): the arm's controls
        # (the Panda's seven actuators come in a row), the BADQACC warning and the accelerations.
        d = self.data
        first = int(self._arm_act[0])
        if not np.array_equal(self._arm_act, np.arange(first, first + len(self._arm_act))):
            raise BackendError(f"the arm's actuators are not in a row in the compiled scene: {self._arm_act.tolist()}")
        self._arm_ctrl = d.ctrl[first : first + len(self._arm_act)]
        self._bad_qacc = d.warning[int(mujoco.mjtWarning.mjWARN_BADQACC)]
        self._qacc = d.qacc
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
        self._registered: dict[str, float] = {}
        self._slipping = {}
        m.dof_frictionloss[:] = 0.0
        self._brick_cluster = np.full(len(self._brick_ids), -1, dtype=np.int32)
        self._overloaded: set[int] = set()  # clutch welds over capacity in the last tick (see _break_overloaded)
        self._seating: dict[str, float] = {}
        self._lock_armed = False
        self._collision: tuple[str, str, float] | None = None
        self._reflex_hold_n: float | None = None  # least force since the last reflex stop, until it re-arms
        self._wrist = WristSensor(seed)
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
        wake(m, self._probe, mujoco.mj_forward)
        self._record_rest_loads(data=self._probe)
        d.time = 0.0

    def close(self) -> None:
        """Free renderers and the model."""
        if self._rig is not None:
            self._rig.close()
            self._rig = None
        self._model = self._data = self._probe = None
