"""The clutch on Isaac Sim: connections as UsdPhysics fixed joints between brick prims, made when a brick is
seated and broken when the joint's force exceeds the connection's capacity (the decisions are clutch.py's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from jarvis_sim.backends.isaac import kinematics
from jarvis_sim.backends.isaac.clutch import (
    GROUND,
    ClutchBook,
    Seat,
    engaged_studs,
    nearest_seat,
    relative_pose,
    weld_broken,
)
from jarvis_sim.backends.isaac.config import IsaacConfig
from jarvis_sim.backends.isaac.scene import SceneDescription
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.tasks.spec import TaskSpec


class WeldedClutch:
    """The clutch half of the Isaac backend (jarvis_sim.backends.isaac.backend.IsaacBackend)."""

    config: IsaacConfig
    task: TaskSpec | None
    clutch: ClutchBook
    _joints: dict[frozenset[str], Any]
    _weld_poses: dict[frozenset[str], np.ndarray]
    _bricks: Any

    # the backend's own (IsaacBackend), used here
    _loaded: Callable[[], SceneDescription]
    _brick_poses: Callable[[], tuple[np.ndarray, np.ndarray]]
    world_state: Callable[[], WorldState]
    held_brick: Callable[[], str | None]

    def _weld(self, upper: str, lower: str) -> None:
        """A fixed joint holding two bricks (or a brick and the baseplate) where they are now: created on first
        use, re-posed and re-enabled after (so a brick seated again elsewhere on the same support is not pulled
        back to its old seat)."""
        import isaacsim.core.experimental.utils.stage as stage_utils
        from pxr import Gf, Sdf, UsdPhysics

        scene = self._loaded()
        key = frozenset((upper, lower))
        rel = self._relative(upper, lower)
        self._weld_poses[key] = rel
        stage = stage_utils.get_current_stage()
        if key not in self._joints:
            path = f"/World/Clutch/{scene.brick(upper).prim_path.rsplit('/', 1)[-1]}__{lower}"
            joint = UsdPhysics.FixedJoint.Define(stage, Sdf.Path(path))
            joint.CreateBody0Rel().SetTargets([Sdf.Path(scene.brick(upper).prim_path)])
            other = scene.baseplate.prim_path if lower == GROUND and scene.baseplate else scene.brick(lower).prim_path
            joint.CreateBody1Rel().SetTargets([Sdf.Path(other)])
            self._joints[key] = path
        joint = UsdPhysics.FixedJoint(stage.GetPrimAtPath(self._joints[key]))
        # The joint frame is body0's own frame; in body1's frame it sits at the upper body's present relative pose.
        quat = kinematics.matrix_to_quat(rel[:3, :3])
        joint.CreateLocalPos0Attr().Set(Gf.Vec3f(0.0, 0.0, 0.0))
        joint.CreateLocalRot0Attr().Set(Gf.Quatf(1.0, 0.0, 0.0, 0.0))
        joint.CreateLocalPos1Attr().Set(Gf.Vec3f(*(float(v) for v in rel[:3, 3])))
        joint.CreateLocalRot1Attr().Set(Gf.Quatf(*(float(v) for v in quat)))
        studs = max(1, self.clutch.studs.get(key, 1))
        joint.CreateBreakForceAttr().Set(float(self.config.clutch_n_per_stud * studs))
        joint.CreateJointEnabledAttr().Set(True)

    def _body_pose(self, name: str) -> np.ndarray:
        scene = self._loaded()
        pose = np.eye(4)
        if name == GROUND:
            assert scene.baseplate is not None
            pose[:3, 3] = scene.baseplate.centre
            return pose
        centres, quats = self._brick_poses()
        i = next(k for k, b in enumerate(scene.bricks) if b.id == name)
        pose[:3, :3], pose[:3, 3] = kinematics.quat_to_matrix(quats[i]), centres[i]
        return pose

    def _relative(self, upper: str, lower: str) -> np.ndarray:
        return relative_pose(self._body_pose(upper), self._body_pose(lower))

    def _unweld(self, key: frozenset[str]) -> None:
        import isaacsim.core.experimental.utils.stage as stage_utils

        self._weld_poses.pop(key, None)
        path = self._joints.get(key)
        if path is not None:
            stage_utils.get_current_stage().GetPrimAtPath(path).GetAttribute("physics:jointEnabled").Set(False)

    def _clutch_tick(self) -> None:
        """Seat pressed, captured bricks on what they rest on; drop joints PhysX broke under load."""

        scene = self._loaded()
        assert self.task is not None
        for key in [k for k in self.clutch.studs if k in self._weld_poses]:  # PhysX broke it past its break force
            a, b = sorted(key)
            upper, lower = (b, a) if a == GROUND else (a, b)
            if weld_broken(self._weld_poses[key], self._relative(upper, lower)):
                del self.clutch.studs[key]
                self._unweld(key)
        forces = np.asarray(self._bricks.get_contact_force_matrix(dt=self.config.physics_dt).numpy())
        ws = self.world_state()
        held = self.held_brick()
        seats: dict[str, Seat | None] = {}
        origin = self.task.workspace.lattice_origin
        for i, state in enumerate(ws.bricks):
            if state.id == held:
                continue
            # Filters: every brick, then the table and the baseplate. A support pushes up on a brick pressed onto it
            # with the press plus the brick's weight: the force on brick i from filter k, +z.
            supports = [k for k in range(forces.shape[1]) if forces[i, k, 2] > 0]
            for k in supports:
                if k == len(scene.bricks):
                    continue  # the table top: no studs
                lower = scene.bricks[k].id if k < len(scene.bricks) else GROUND
                if frozenset((state.id, lower)) in self.clutch.studs or not self.clutch.pressed(float(forces[i, k, 2])):
                    continue
                if state.id not in seats:
                    seats[state.id] = nearest_seat(state.part, np.array(state.position), np.array(state.quaternion),
                                                   origin, self.config)
                seat = seats[state.id]
                if seat is None:
                    continue
                studs = 1
                if lower != GROUND:
                    low = ws.bricks[k]
                    low_seat = nearest_seat(low.part, np.array(low.position), np.array(low.quaternion), origin,
                                            self.config)
                    studs = engaged_studs(state.part, seat, low.part, low_seat) if low_seat else 0
                if self.clutch.connect(state.id, lower, studs):
                    self._weld(state.id, lower)
