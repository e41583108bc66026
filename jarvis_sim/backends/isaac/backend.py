"""The Backend protocol on Isaac Sim 6.2's experimental core APIs (isaacsim.core.experimental.*), headless.

What runs on Isaac: the stage (table, baseplate, bricks as rigid boxes, the Franka asset), PhysX stepping, the
joint position drives, contacts and joint forces, clutch welds as UsdPhysics fixed joints, RTX cameras (RGB,
depth to the image plane, instance segmentation). What is shared, CPU-tested code: the scene description
(scene.py), the Panda's kinematics for IK and the Cartesian controller (kinematics.py), what-if collision queries
(collision.py) and the clutch decisions (clutch.py). Isaac's Python (3.12) and an RTX GPU are required; none of
this module runs on the CI machines, so it is kept thin and covered there only by the pure parts' tests and by
the backend contract suite (`python -m pytest -m isaac tests/jarvis_sim/backends/contract` on a workstation).

Isaac quirks this code respects (docs/notes on Isaac Sim 6): SimulationApp must exist before any other Isaac
import; rigid prims and joints created while the timeline plays need CPU physics (the config's default device);
poses are wxyz, batched, and come back as warp arrays (`.numpy()`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from jarvis_sim.backends.base import Backend, BackendError, CameraFrame, RobotState
from jarvis_sim.backends.isaac import collision, kinematics
from jarvis_sim.backends.isaac.clutch import (
    GROUND,
    ClutchBook,
    engaged_studs,
    nearest_seat,
)
from jarvis_sim.backends.isaac.config import IsaacConfig
from jarvis_sim.backends.isaac.scene import ROBOT, SceneDescription, describe_scene
from jarvis_sim.backends.isaac.segmentation import segment_labels
from jarvis_sim.backends.isaac.welds import WeldedClutch
from jarvis_sim.lego.world_state import BrickState, WorldState
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.variation import seeded_scene

_APP: Any = None  # one Kit app per process: SimulationApp cannot be started twice
ARM_DOFS = list(range(7))
FINGER_DOFS = [7, 8]
FINGER_OPEN_M = 0.04  # each finger's travel; the protocol's gripper width is twice the finger position
GRASP_CONTACT_N = 0.05  # both fingers pressing a brick at least this hard: it is held


def simulation_app(config: IsaacConfig) -> Any:
    """Start Kit once (headless by default) and enable the extensions this backend uses."""
    global _APP
    if _APP is None:
        try:
            from isaacsim import SimulationApp
        except ImportError as exc:
            raise BackendError(f"the isaac backend needs Isaac Sim 6.2 ({exc}): run it with Isaac's python.sh, "
                               "e.g. the isaac-sim service of docker/compose.yaml") from exc
        _APP = SimulationApp({"headless": config.headless, "width": config.image_width,
                              "height": config.image_height})
        from isaacsim.core.experimental.utils import app as app_utils

        for ext in ("isaacsim.core.experimental.prims", "isaacsim.core.experimental.objects",
                    "isaacsim.sensors.experimental.rtx", "isaacsim.robot.experimental.manipulators.examples"):
            app_utils.enable_extension(ext)
    return _APP


@dataclass
class _Snapshot:
    task_id: str
    seed: int
    sim_time_s: float
    dof_positions: np.ndarray
    dof_velocities: np.ndarray
    dof_targets: np.ndarray
    brick_positions: np.ndarray
    brick_orientations: np.ndarray
    brick_velocities: np.ndarray
    clutch: dict[frozenset[str], int]
    ee_target: tuple[np.ndarray, np.ndarray] | None
    gripper_closed: bool


class IsaacBackend(WeldedClutch, Backend):
    """Isaac Sim 6.2 backend (see the module docstring)."""

    name = "isaac"

    def __init__(self, config: IsaacConfig | None = None, **overrides: Any):
        # Overrides are validated like any config (unknown keys and bad values are errors, named).
        self.config = IsaacConfig.model_validate({**(config or IsaacConfig()).model_dump(), **overrides})
        self._app = simulation_app(self.config)
        self.task: TaskSpec | None = None
        self._generated: TaskSpec | None = None
        self._seed = 0
        self.scene: SceneDescription | None = None
        self.clutch = ClutchBook(self.config)
        self._joints: dict[frozenset[str], str] = {}
        self._weld_poses: dict[frozenset[str], np.ndarray] = {}  # relative pose of each live weld when it formed
        self._t0 = 0.0
        self._ee_target: tuple[np.ndarray, np.ndarray] | None = None
        self._gripper_closed = False
        self._robot: Any = None
        self._bricks: Any = None
        self._fingers: Any = None
        self._sensors: dict[str, Any] = {}
        self._initial: _Snapshot | None = None

    # --- life cycle ------------------------------------------------------------------------------
    def load(self, task: TaskSpec, seed: int = 0) -> None:
        """Build the stage of the task's seeded scene, start physics and settle."""
        import isaacsim.core.experimental.utils.stage as stage_utils
        from isaacsim.core.experimental.objects import Camera, Cube, DomeLight
        from isaacsim.core.experimental.prims import GeomPrim, RigidPrim
        from isaacsim.core.experimental.utils import app as app_utils
        from isaacsim.core.simulation_manager import SimulationManager
        from isaacsim.robot.experimental.manipulators.examples.franka import Franka
        from isaacsim.sensors.experimental.rtx import CameraSensor

        self._generated = task
        scene_task = self.task = seeded_scene(task, seed)
        self._seed = seed
        self.scene = scene = describe_scene(scene_task, self.config)
        app_utils.stop()
        stage_utils.create_new_stage()
        SimulationManager.setup_simulation(dt=self.config.physics_dt, device=self.config.device)
        DomeLight("/World/Light").set_intensities([1000.0])  # soft, shadow-light: glare hides brick edges
        statics = [scene.table, *([scene.baseplate] if scene.baseplate else [])]
        for slab in statics:
            Cube(slab.prim_path, sizes=1.0, scales=[slab.size_m], positions=[slab.centre], colors=[slab.color_rgb])
        GeomPrim([s.prim_path for s in statics], apply_collision_apis=True)  # static: no rigid body API
        paths = [b.prim_path for b in scene.bricks]
        Cube(paths, sizes=1.0, scales=[b.size_m for b in scene.bricks], positions=[b.centre for b in scene.bricks],
             orientations=[b.quaternion for b in scene.bricks], colors=[b.color_rgb for b in scene.bricks])
        GeomPrim(paths, apply_collision_apis=True)
        self._bricks = RigidPrim(paths, masses=[[b.mass_kg] for b in scene.bricks],
                                 contact_filter_paths=[*paths, *[s.prim_path for s in statics]])
        self._robot = Franka(robot_path=ROBOT, create_robot=True)
        self._fingers = RigidPrim([f"{ROBOT}/panda_leftfinger", f"{ROBOT}/panda_rightfinger"],
                                  contact_filter_paths=paths)
        self._sensors = {}
        for rig in scene.cameras:
            position, orientation = rig.usd_pose
            cam = Camera(f"/World/Cameras/{rig.name}", positions=[position], orientations=[orientation])
            horizontal, vertical = rig.apertures_mm
            cam.set_focal_lengths([rig.focal_length_mm])
            cam.set_apertures([horizontal], [vertical])
            cam.set_clipping_ranges([0.01], [10.0])
            self._sensors[rig.name] = CameraSensor(f"/World/Cameras/{rig.name}", resolution=(rig.height, rig.width),
                                                   annotators=["rgb", "distance_to_image_plane",
                                                               "instance_id_segmentation"])
        self._joints, self._weld_poses = {}, {}
        app_utils.play()
        self._robot.set_dof_positions([[*kinematics.PANDA_HOME, FINGER_OPEN_M, FINGER_OPEN_M]])
        self._robot.set_dof_position_targets([[*kinematics.PANDA_HOME, FINGER_OPEN_M, FINGER_OPEN_M]])
        by_id = {b.id: b for b in scene.bricks}
        pairs = []
        for upper, lower in scene.initial_connections:
            if lower == GROUND:
                pairs.append((upper, lower, 1))
                continue
            up, low = by_id[upper], by_id[lower]
            seat_up = nearest_seat(up.part, np.array(up.position), np.array(up.quaternion),
                                   scene_task.workspace.lattice_origin, self.config)
            seat_low = nearest_seat(low.part, np.array(low.position), np.array(low.quaternion),
                                    scene_task.workspace.lattice_origin, self.config)
            studs = engaged_studs(up.part, seat_up, low.part, seat_low) if seat_up and seat_low else 1
            pairs.append((upper, lower, max(1, studs)))
        self.clutch.reset(pairs)
        for upper, lower, _ in pairs:
            self._weld(upper, lower)
        self._ee_target, self._gripper_closed = None, False
        self._t0 = SimulationManager.get_simulation_time()
        self._physics(round(0.5 / self.config.physics_dt))  # settle
        self._t0 = SimulationManager.get_simulation_time()
        self._initial = self.save_state()

    def reset(self, seed: int = 0) -> None:
        """Back to the scene of this seed (another seed's distractors need another stage: reload)."""
        if self._generated is None or self._initial is None:
            raise BackendError("no task loaded: call load(task) first")
        if seed != self._seed:
            self.load(self._generated, seed)
            return
        self.restore_state(self._initial)

    def close(self) -> None:
        """Stop the timeline (Kit itself lives as long as the process: it cannot be restarted)."""
        if self._robot is not None:
            from isaacsim.core.experimental.utils import app as app_utils

            app_utils.stop()
        self._robot = self._bricks = self._fingers = None
        self._sensors = {}

    def _loaded(self) -> SceneDescription:
        if self.scene is None or self._robot is None:
            raise BackendError("no task loaded: call load(task) first")
        return self.scene

    # --- time ------------------------------------------------------------------------------------
    @property
    def control_dt(self) -> float:
        return self.config.control_dt

    @property
    def sim_time_s(self) -> float:
        from isaacsim.core.simulation_manager import SimulationManager

        self._loaded()
        return float(SimulationManager.get_simulation_time() - self._t0)

    def step(self, n: int = 1) -> None:
        """n control ticks: the Cartesian controller, physics sub-steps, then the clutch's decisions."""
        self._loaded()
        per_tick = max(1, round(self.config.control_dt / self.config.physics_dt))
        for _ in range(max(0, n)):
            if self._ee_target is not None:
                self._track_ee()
            self._physics(per_tick)
            self._clutch_tick()

    def _physics(self, steps: int) -> None:
        from isaacsim.core.simulation_manager import SimulationManager

        SimulationManager.step(steps=steps)

    # --- robot -----------------------------------------------------------------------------------
    def _dofs(self) -> np.ndarray:
        return np.asarray(self._robot.get_dof_positions().numpy()[0], dtype=float)

    def robot_state(self) -> RobotState:
        self._loaded()
        q = self._dofs()
        qd = np.asarray(self._robot.get_dof_velocities().numpy()[0], dtype=float)
        tcp = kinematics.tcp_pose(q[:7])
        return RobotState(joint_positions=q[:7].copy(), joint_velocities=qd[:7].copy(),
                          gripper_width=float(q[7] + q[8]), ee_position=tcp[:3, 3].copy(),
                          ee_quaternion=kinematics.matrix_to_quat(tcp[:3, :3]), sim_time_s=self.sim_time_s,
                          extra={"gripper_closed": self._gripper_closed})

    def set_joint_targets(self, q: np.ndarray) -> None:
        self._loaded()
        q = np.asarray(q, dtype=float)
        if q.shape != (7,) or not np.all(np.isfinite(q)):
            raise BackendError(f"set_joint_targets needs 7 finite angles, got {q!r}")
        self._ee_target = None
        self._robot.set_dof_position_targets([np.clip(q, kinematics.PANDA_LOWER, kinematics.PANDA_UPPER)],
                                             dof_indices=ARM_DOFS)

    def set_ee_target(self, position: np.ndarray, quaternion: np.ndarray) -> None:
        self._loaded()
        p, quat = np.asarray(position, dtype=float), np.asarray(quaternion, dtype=float)
        if p.shape != (3,) or quat.shape != (4,) or not (np.all(np.isfinite(p)) and np.all(np.isfinite(quat))) \
                or np.linalg.norm(quat) < 1e-9:
            raise BackendError(f"set_ee_target needs a 3-vector and a wxyz quaternion, got {p!r}, {quat!r}")
        self._ee_target = (p, quat / np.linalg.norm(quat))

    def _track_ee(self) -> None:
        """Resolved-rate control toward the Cartesian target: a few damped least-squares steps on the Panda's
        kinematics from the measured joints, sent as the arm's position targets."""
        assert self._ee_target is not None
        q = self._dofs()[:7]
        for _ in range(3):
            q = kinematics.ik_step(q, self._ee_target[0], self._ee_target[1])
        self._robot.set_dof_position_targets([q], dof_indices=ARM_DOFS)

    def set_gripper(self, closed: bool, force_n: float | None = None, width_m: float | None = None) -> None:
        self._loaded()
        if force_n is not None and not (math.isfinite(force_n) and force_n > 0):
            raise BackendError(f"set_gripper: force must be positive, got {force_n}")
        if width_m is not None and not (math.isfinite(width_m) and 0 <= width_m <= 2 * FINGER_OPEN_M):
            raise BackendError(f"set_gripper: width must lie in [0, {2 * FINGER_OPEN_M}] m, got {width_m}")
        self._gripper_closed = closed
        # A closing finger is a position drive toward zero whose effort limit is the grip force.
        force = force_n or self.config.grip_force_n
        self._robot.set_dof_max_efforts([[force, force]], dof_indices=FINGER_DOFS)
        half = 0.0 if closed else (FINGER_OPEN_M if width_m is None else width_m / 2)
        self._robot.set_dof_position_targets([[half, half]], dof_indices=FINGER_DOFS)

    def solve_ik(self, position: np.ndarray, quaternion: np.ndarray, q0: np.ndarray | None = None) -> np.ndarray | None:
        return kinematics.solve_ik(position, quaternion, q0)

    def collisions(self, q: np.ndarray, ignore: tuple[str, ...] = (),
                   clearance_m: float = 0.0) -> list[tuple[str, str]]:
        scene = self._loaded()
        ws = self.world_state()
        boxes = [collision.box_from_pose(s.id, s.position, s.quaternion, scene.brick(s.id).size_m) for s in ws.bricks]
        if scene.baseplate is not None:
            bp = scene.baseplate
            boxes.append(collision.Box("baseplate", np.array(bp.centre), np.eye(3), np.array(bp.size_m) / 2))
        held_id = self.held_brick()
        held_box, held_in_tcp = None, None
        if held_id is not None:
            held_box = next(b for b in boxes if b.name == held_id)
            tcp = kinematics.tcp_pose(self._dofs()[:7])
            pose = np.eye(4)
            pose[:3, :3], pose[:3, 3] = held_box.rotation, held_box.centre
            held_in_tcp = np.linalg.inv(tcp) @ pose
        return collision.collisions(np.asarray(q, dtype=float), self.robot_state().gripper_width, boxes,
                                    held=held_box, held_pose_in_tcp=held_in_tcp, ignore=ignore,
                                    clearance_m=clearance_m)

    @property
    def home_q(self) -> np.ndarray:
        return kinematics.PANDA_HOME.copy()

    def joint_limits(self) -> tuple[np.ndarray, np.ndarray]:
        return kinematics.PANDA_LOWER.copy(), kinematics.PANDA_UPPER.copy()

    # --- sensing ---------------------------------------------------------------------------------
    def cameras(self) -> list[str]:
        return [rig.name for rig in self._loaded().cameras]

    def render(self, camera: str = "top", rgb: bool = True, depth: bool = True, segmentation: bool = False) -> CameraFrame:
        from isaacsim.core.experimental.utils import app as app_utils

        scene = self._loaded()
        rigs = {rig.name: rig for rig in scene.cameras}
        if camera not in rigs:
            raise BackendError(f"unknown camera {camera!r}; valid: {', '.join(rigs)}")
        app_utils.update_app(steps=2)  # RTX renders on app updates; physics is not advanced by them (paused sim)
        sensor, rig = self._sensors[camera], rigs[camera]
        rgb_img = depth_img = seg = None
        segment_ids: dict[int, str] = {}
        if rgb:
            data, _ = sensor.get_data("rgb")
            rgb_img = np.asarray(data.numpy(), dtype=np.uint8)[:, :, :3].copy()
        if depth:
            data, _ = sensor.get_data("distance_to_image_plane")
            depth_img = np.nan_to_num(np.asarray(data.numpy(), dtype=np.float32).reshape(rig.height, rig.width),
                                      posinf=0.0)
        if segmentation:
            data, info = sensor.get_data("instance_id_segmentation")
            raw = np.asarray(data.numpy()).reshape(rig.height, rig.width).astype(np.int64)
            seg, segment_ids = segment_labels(raw, info.get("idToLabels", {}), scene)
        return CameraFrame(name=camera, rgb=rgb_img, depth=depth_img, segmentation=seg, segment_ids=segment_ids,
                           intrinsics=rig.intrinsics, world_from_camera=rig.world_from_camera.copy())

    # --- ground truth ----------------------------------------------------------------------------
    def _brick_poses(self) -> tuple[np.ndarray, np.ndarray]:
        positions, orientations = self._bricks.get_world_poses()
        return np.asarray(positions.numpy(), dtype=float), np.asarray(orientations.numpy(), dtype=float)

    def world_state(self) -> WorldState:
        scene = self._loaded()
        centres, quats = self._brick_poses()
        held = self.held_brick()
        out = []
        for body, centre, quat in zip(scene.bricks, centres, quats, strict=True):
            bottom = centre - kinematics.quat_to_matrix(quat) @ np.array([0.0, 0.0, body.size_m[2] / 2])
            out.append(BrickState(id=body.id, part=body.part, color=self._color(body.id),
                                  position=tuple(float(v) for v in bottom),  # type: ignore[arg-type]
                                  quaternion=tuple(float(v) for v in quat),  # type: ignore[arg-type]
                                  held=body.id == held, connected_to=self.clutch.connected_to(body.id)))
        return WorldState(sim_time_s=self.sim_time_s, bricks=out)

    def _color(self, brick_id: str) -> int:
        assert self.task is not None
        for b in self.task.initial:
            if b.id == brick_id:
                return b.color
        for a in self.task.action_bricks:
            if a.id == brick_id:
                return a.target.color
        return next(d.color for d in self.task.distractors if d.id == brick_id)

    def held_brick(self) -> str | None:
        scene = self._loaded()
        if not self._gripper_closed:
            return None
        forces = np.asarray(self._fingers.get_contact_force_matrix(dt=self.config.physics_dt).numpy())
        both = np.linalg.norm(forces, axis=-1).min(axis=0)  # per brick: the weaker of the two fingers' contacts
        k = int(np.argmax(both))
        return scene.bricks[k].id if both[k] >= GRASP_CONTACT_N else None

    # --- state -----------------------------------------------------------------------------------
    def save_state(self) -> Any:
        self._loaded()
        assert self.task is not None
        centres, quats = self._brick_poses()
        lin, ang = self._bricks.get_velocities()
        return _Snapshot(
            task_id=self.task.id, seed=self._seed, sim_time_s=self.sim_time_s,
            dof_positions=self._dofs().copy(),
            dof_velocities=np.asarray(self._robot.get_dof_velocities().numpy()[0], dtype=float).copy(),
            dof_targets=np.asarray(self._robot.get_dof_position_targets().numpy()[0], dtype=float).copy(),
            brick_positions=centres.copy(), brick_orientations=quats.copy(),
            brick_velocities=np.concatenate([lin.numpy(), ang.numpy()], axis=1).copy(),
            clutch=self.clutch.snapshot(), ee_target=self._ee_target, gripper_closed=self._gripper_closed)

    def restore_state(self, snapshot: Any) -> None:
        from isaacsim.core.simulation_manager import SimulationManager

        self._loaded()
        assert self.task is not None
        if not isinstance(snapshot, _Snapshot) or snapshot.task_id != self.task.id or snapshot.seed != self._seed:
            raise BackendError("restore_state needs a snapshot taken by save_state on this backend and task")
        for key in self._joints:
            self._unweld(key)
        self._robot.set_dof_positions([snapshot.dof_positions])
        self._robot.set_dof_velocities([snapshot.dof_velocities])
        self._robot.set_dof_position_targets([snapshot.dof_targets])
        self._bricks.set_world_poses(snapshot.brick_positions, snapshot.brick_orientations)
        self._bricks.set_velocities(snapshot.brick_velocities[:, :3], snapshot.brick_velocities[:, 3:])
        self.clutch.studs = dict(snapshot.clutch)
        for key in snapshot.clutch:
            a, b = sorted(key)
            upper, lower = (a, b) if b == GROUND else (b, a) if a == GROUND else (a, b)
            self._weld(upper, lower)
        self._ee_target, self._gripper_closed = snapshot.ee_target, snapshot.gripper_closed
        self._t0 = SimulationManager.get_simulation_time() - snapshot.sim_time_s

    # --- perturbations ---------------------------------------------------------------------------
    def _brick_index(self, brick_id: str, what: str) -> int:
        scene = self._loaded()
        for i, b in enumerate(scene.bricks):
            if b.id == brick_id:
                return i
        raise BackendError(f"{what}: unknown brick {brick_id!r}")

    def displace_brick(self, brick_id: str, offset_m: tuple[float, float]) -> None:
        i = self._brick_index(brick_id, "displace_brick")
        for key in self.clutch.detach(brick_id):
            self._unweld(frozenset(key))
        centres, quats = self._brick_poses()
        centres[i, :2] += np.asarray(offset_m, dtype=float)
        self._bricks.set_world_poses(centres[i:i + 1], quats[i:i + 1], indices=[i])
        self._bricks.set_velocities(np.zeros((1, 3)), np.zeros((1, 3)), indices=[i])

    def drop_held(self) -> None:
        self._loaded()
        self.set_gripper(False)

    def knock(self, brick_id: str, impulse_n_s: float) -> None:
        i = self._brick_index(brick_id, "knock")
        if not math.isfinite(impulse_n_s):
            raise BackendError(f"knock: the impulse must be finite, got {impulse_n_s}")
        lin, ang = self._bricks.get_velocities(indices=[i])
        scene = self._loaded()
        lin = np.asarray(lin.numpy(), dtype=float)
        lin[0, 0] += impulse_n_s / scene.bricks[i].mass_kg  # along world x, like the MuJoCo backend
        self._bricks.set_velocities(lin, np.asarray(ang.numpy(), dtype=float), indices=[i])
