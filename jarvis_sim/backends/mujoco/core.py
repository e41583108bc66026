"""The state every part of the MuJoCo backend shares, and the readers of who holds and who is welded to what."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mujoco
import numpy as np

from jarvis_sim.backends.base import Backend, BackendError
from jarvis_sim.backends.mujoco.arm_control import ArmKinematics, CartesianController, JointLimiter
from jarvis_sim.backends.mujoco.cameras import CameraRig
from jarvis_sim.backends.mujoco.clutch import (
    GROUND,
    ClutchGraph,
)
from jarvis_sim.backends.mujoco.collision_groups import cluster_masks
from jarvis_sim.backends.mujoco.scene import SceneLayout, SimConfig
from jarvis_sim.backends.mujoco.wrist_sensor import WristSensor
from jarvis_sim.lego.assembly import brick_pose_in_world
from jarvis_sim.lego.statics import Joint
from jarvis_sim.tasks.spec import TaskSpec

# MjData fields of island sleeping that a snapshot must carry besides the integration state.
SLEEP_FIELDS = ("tree_asleep", "tree_awake", "body_awake", "body_awake_ind", "parent_awake_ind", "dof_awake_ind",
                "ntree_awake", "nbody_awake", "nparent_awake", "nv_awake")


def wake(m: mujoco.MjModel, d: mujoco.MjData, compute: Callable[[mujoco.MjModel, mujoco.MjData], None]) -> None:
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


class MujocoCore(Backend):
    """What every part of the MuJoCo backend shares: the loaded model and data, the brick and geom indices built at
    load (loading.py), the clutch bookkeeping (clutch_welds.py, clutch_loads.py), and the readers of who holds and
    who is welded to what. The parts are mixed into MujocoBackend (backend.py)."""

    config: SimConfig
    task: TaskSpec | None
    _generated_task: TaskSpec | None
    _model: mujoco.MjModel | None
    _data: mujoco.MjData | None
    _probe: mujoco.MjData | None
    _rig: CameraRig | None
    kin: ArmKinematics
    cart: CartesianController
    limiter: JointLimiter
    layout: SceneLayout
    # Indices (loading.py: _index_model).
    _arm_qadr: np.ndarray
    _arm_dadr: np.ndarray
    _finger_qadr: np.ndarray
    _finger_dadr: np.ndarray
    _arm_act: np.ndarray
    _arm_ctrl: np.ndarray  # live views of MjData (loading._index_model)
    _bad_qacc: mujoco.MjWarningStat
    _qacc: np.ndarray
    _grip_act: int
    _tcp: int
    _hand: int
    _pads: tuple[int, int]
    _brick_ids: list[str]
    _action: set[str]
    _part: dict[str, tuple[str, int]]
    _body: dict[str, int]
    _brick_of_body: dict[int, str]
    _brick_body: np.ndarray
    _brick_index: dict[str, int]
    _slots: dict[str, list[int]]
    _slot_brick: dict[int, str]
    _eq_brick: np.ndarray
    _is_clutch: np.ndarray
    _lock_eq: int | None
    _qadr: dict[str, int]
    _dadr: dict[str, int]
    _tree: dict[str, int]
    _geom_brick: np.ndarray
    _cgeoms: np.ndarray
    _cgeom_brick: np.ndarray
    _ground_geoms: np.ndarray
    _box_half: np.ndarray
    _floor_geom: np.ndarray
    _geom_support: np.ndarray
    _geom_robot: np.ndarray
    _geom_segment: np.ndarray
    _segment_names: dict[int, str]
    _baseplate_geom: np.ndarray
    _geom_names: list[str]
    # Clutch state (reset; saved by snapshots.py).
    clutch: ClutchGraph
    _capacity: np.ndarray
    _brick_caps: dict[str, np.ndarray]
    _rest_load: np.ndarray
    _joint_plane: dict[int, Joint]
    _settling: bool
    _rest_pending: set[str]
    _partner: dict[int, str]
    _engaged: set[str]
    _slipping: dict[str, Any]  # bricks whose connection gave, studs still in (clutch_slip.Slip)
    _registered: dict[str, float]  # pressed on while squeezed: seats when the pads let go (clutch_welds)
    _brick_cluster: np.ndarray
    _overloaded: set[int]
    _seating: dict[str, float]
    _groups_dirty: bool
    # Arm, gripper and reflex state.
    _lock_armed: bool
    _collision: tuple[str, str, float] | None
    _reflex_hold_n: float | None
    reflex_n: float
    _wrist: WristSensor  # the arm's estimated external force's bias and noise
    q_cmd: np.ndarray
    grip_closed: bool
    grip_force: float
    grip_open_width: float

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

    @property
    def control_dt(self) -> float:
        """Seconds per control tick."""
        return self.config.control_dt_s

    @property
    def sim_time_s(self) -> float:
        """Simulated seconds since load/reset."""
        return float(self.data.time)

    def _require_brick(self, brick_id: str, what: str) -> None:
        if brick_id not in self._body:
            raise BackendError(f"{what}: unknown brick {brick_id!r}; bricks: {', '.join(self._brick_ids)}")

    def _wake_all(self) -> None:
        wake(self.model, self.data, mujoco.mj_forward)

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

    def grasp_locked(self) -> str | None:
        """The brick held rigidly by the grasp lock, if any (diagnostics and tests)."""
        eq = self._lock_eq
        if eq is None or not self.data.eq_active[eq]:
            return None
        return self._brick_of_body[int(self.model.eq_obj2id[eq])]

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

    # Implemented by the other parts (declared here so each part type-checks on its own).
    def _connect(self, brick: str, support: str) -> None:
        raise NotImplementedError

    def _disconnect(self, eq: int) -> None:
        raise NotImplementedError

    def _detach(self, brick: str) -> None:
        raise NotImplementedError

    def _clutch_loads(self, data: mujoco.MjData | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _net_loads(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raise NotImplementedError

    def _record_rest_loads(self, skip_clusters: set[int] | None = None, data: mujoco.MjData | None = None) -> None:
        raise NotImplementedError

    def _break_overloaded(self, load_scale: float = 1.0) -> None:
        raise NotImplementedError

    def _record_pending_rest(self) -> None:
        raise NotImplementedError

    def _use(self, eqs: np.ndarray, force: np.ndarray, moment: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _apply_grip(self) -> None:
        raise NotImplementedError

    def _start_slip(self, brick: str, support: str, capacity: np.ndarray) -> None:
        raise NotImplementedError

    def _friction_push(self, brick: str) -> float:
        raise NotImplementedError

    def _slip_tick(self) -> None:
        raise NotImplementedError

