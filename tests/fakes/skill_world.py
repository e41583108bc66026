"""Every skill of the task and generic libraries, with its real signature, over a tiny scripted scene.

For sandbox tests that need programs written against the real robot API (the benign-program corpus)
but not physics: the skill server validates arguments against the real signatures and types, and
the answers are the real result types, computed from a fixed scene of loose and built bricks.
Picking and placing change which brick is held and where it lies; errors are the real skill errors.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from skills.errors import AlreadyHolding, InvalidArgument, NothingHeld, UnknownBrick
from skills.libraries import library
from skills.types import BrickDescriptor, GraspPlan, JointState, PickResult, Placement, PlaceResult, Pose

STUD_MM = 8.0
BRICK_MM = 9.6
CORNER_MM = (450.0, -60.0)  # the build area's corner in this scene


def _brick(pid: str, color: str, size: tuple[int, int], x: float, y: float, built: bool = False) -> BrickDescriptor:
    return BrickDescriptor(
        id=pid, color=color, size=size, height="brick", x_mm=x, y_mm=y, top_z_mm=BRICK_MM * (2 if built else 1),
        yaw_deg=0.0 if pid != "p3" else 90.0, in_structure=built, free_to_grasp=not built, visible_fraction=1.0,
    )


def initial_scene() -> list[BrickDescriptor]:
    """Loose bricks of a few colours and sizes in the staging area, and one built base brick."""
    return [
        _brick("p1", "red", (4, 2), 300.0, 150.0),
        _brick("p2", "blue", (2, 2), 330.0, 180.0),
        _brick("p3", "yellow", (4, 2), 360.0, 150.0),
        _brick("p4", "red", (2, 2), 300.0, 210.0),
        _brick("p5", "white", (4, 2), 390.0, 210.0),
        _brick("p6", "light bluish grey", (6, 2), CORNER_MM[0] + 24.0, CORNER_MM[1] + 8.0, built=True),
    ]


class SkillWorld:
    """The scripted scene and one callable per skill; `methods()` is what a SkillServer takes."""

    def __init__(self) -> None:
        self.scene = {b.id: b for b in initial_scene()}
        self.seen: dict[str, BrickDescriptor] = {}
        self.held: str | None = None
        self.ee = Pose(x_mm=300.0, y_mm=0.0, z_mm=400.0)
        self.gripper_mm = 80.0
        self.joints = [0.0, -0.3, 0.0, -2.2, 0.0, 1.9, 0.8]
        self.images = 0

    # --- the skills, by name -------------------------------------------------------------------
    def go_home(self) -> str:
        self.ee = Pose(x_mm=300.0, y_mm=-300.0, z_mm=400.0)
        return "parked"

    def observe(self) -> list[BrickDescriptor]:
        self.seen = {k: b for k, b in self.scene.items() if k != self.held}
        return list(self.seen.values())

    def find_bricks(self, color: str | None = None, size: tuple[int, int] | None = None, loose_only: bool = False) -> list[BrickDescriptor]:
        found = [b for b in self.seen.values() if (color is None or b.color == color) and (size is None or tuple(b.size) == tuple(size))]
        return [b for b in found if not (loose_only and b.in_structure)]

    def _known(self, brick: str) -> BrickDescriptor:
        if brick == "ground":
            return _brick("ground", "green", (32, 32), CORNER_MM[0] + 128, CORNER_MM[1] + 128, built=True)
        found = self.seen.get(brick)
        if found is None:
            known = ", ".join(sorted(self.seen)) or "none yet"
            raise UnknownBrick(f"no brick {brick!r} in the last observation (known: {known}). Call observe() to refresh ids.")
        return found

    def placement(self, support: str, brick: str, stud_x: int, stud_y: int, rotation: int = 0) -> Placement:
        base, _ = self._known(support), self._known(brick)
        pose = Pose(x_mm=base.x_mm - 16 + STUD_MM * stud_x, y_mm=base.y_mm - 8 + STUD_MM * stud_y,
                    z_mm=base.top_z_mm + BRICK_MM, yaw_deg=90.0 * (rotation % 2))
        return Placement(support=support, stud_x=stud_x, stud_y=stud_y, rotation=rotation, pose=pose)

    def where_is(self, brick: str, support: str) -> dict[str, int]:
        a, b = self._known(brick), self._known(support)
        return {"stud_x": round((a.x_mm - b.x_mm) / STUD_MM), "stud_y": round((a.y_mm - b.y_mm) / STUD_MM),
                "rotation": 0, "level": round((a.top_z_mm - BRICK_MM - b.top_z_mm) / 3.2)}

    def grasp_plan(self, brick: str) -> GraspPlan:
        b = self._known(brick)
        return GraspPlan(brick=brick, x_mm=b.x_mm, y_mm=b.y_mm, z_mm=b.top_z_mm - 4.5, yaw_deg=b.yaw_deg,
                         opening_mm=8.0 * min(b.size) + 10.0, clearance_mm=6.0)

    def pick(self, brick: str) -> PickResult:
        if self.held is not None:
            raise AlreadyHolding(f"already holding {self.held}; place or put it down first")
        plan = self.grasp_plan(brick)
        self.held = brick
        return PickResult(brick=brick, grasp=plan, lifted_to_mm=80.0)

    def _release(self, pose: Pose) -> PlaceResult:
        if self.held is None:
            raise NothingHeld("the gripper holds no brick")
        brick, self.held = self.held, None
        old = self.scene[brick]
        self.scene[brick] = old.model_copy(update={"x_mm": pose.x_mm, "y_mm": pose.y_mm, "top_z_mm": pose.z_mm, "in_structure": True})
        return PlaceResult(brick=brick, pose=pose, error_mm=0.4, seated=True)

    def place(self, pose: Pose, press_supported: bool = False) -> PlaceResult:
        return self._release(pose)  # where the press goes does not change where a brick lies in this scene

    def place_on(self, support: str, stud_x: int, stud_y: int, rotation: int = 0,
                 press_supported: bool = False) -> PlaceResult:
        if self.held is None:
            raise NothingHeld("the gripper holds no brick")
        return self._release(self.placement(support, self.held, stud_x, stud_y, rotation).pose)

    def place_at(self, stud_x: int, stud_y: int, level: int, rotation: int = 0,
                 press_supported: bool = False) -> PlaceResult:
        pose = Pose(x_mm=CORNER_MM[0] + STUD_MM * stud_x, y_mm=CORNER_MM[1] + STUD_MM * stud_y,
                    z_mm=3.2 * level + BRICK_MM, yaw_deg=90.0 * (rotation % 2))
        return self._release(pose)

    def put_down(self) -> PlaceResult:
        return self._release(Pose(x_mm=420.0, y_mm=240.0, z_mm=BRICK_MM))

    def get_joint_state(self) -> JointState:
        return JointState(positions_rad=list(self.joints), gripper_opening_mm=self.gripper_mm)

    def move_joints_to(self, positions_rad: list[float]) -> JointState:
        if len(positions_rad) != 7:
            raise InvalidArgument(f"positions_rad must be 7 finite angles in rad, got {positions_rad!r}")
        self.joints = [float(v) for v in positions_rad]
        return self.get_joint_state()

    def get_ee_pose(self) -> Pose:
        return self.ee

    def move_ee(self, x_mm: float, y_mm: float, z_mm: float, yaw_deg: float = 0.0) -> Pose:
        self.ee = Pose(x_mm=x_mm, y_mm=y_mm, z_mm=z_mm, yaw_deg=yaw_deg)
        return self.ee

    def open_gripper(self) -> float:
        self.gripper_mm = 80.0
        self.joints = [0.0, -0.3, 0.0, -2.2, 0.0, 1.9, 0.8]
        return self.gripper_mm

    def close_gripper(self) -> float:
        self.gripper_mm = 16.0 if self.held else 0.0
        return self.gripper_mm

    def press_down(self, max_descent_mm: float = 20.0, force_n: float = 10.0) -> dict[str, float]:
        # Touches the table top (or what stands on it) within the descent, like the real guarded press.
        contact = max(0.0, self.ee.z_mm - max_descent_mm)
        self.ee = self.ee.model_copy(update={"z_mm": contact})
        return {"contact_z_mm": contact, "force_n": force_n}

    def capture_images(self) -> dict[str, str]:
        self.images += 1
        return {"rgb": f"obs_{self.images:03d}_rgb.png", "depth": f"obs_{self.images:03d}_depth.png"}

    # --- binding ---------------------------------------------------------------------------------
    def methods(self) -> dict[str, Callable[..., Any]]:
        """Every skill of both libraries under its real signature, bound to this scene."""
        out: dict[str, Callable[..., Any]] = {}
        for lib in ("task", "generic"):
            for spec in library(lib):
                impl = getattr(self, spec.name)
                sig: inspect.Signature = spec.signature

                def call(*args: Any, _impl: Callable[..., Any] = impl, **kwargs: Any) -> Any:
                    return _impl(*args, **kwargs)

                call.__signature__ = sig  # type: ignore[attr-defined]
                call.__annotations__ = {p.name: p.annotation for p in sig.parameters.values()}
                call.__name__ = spec.name
                out[spec.name] = call
        return out
