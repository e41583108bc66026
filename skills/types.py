"""Plain, serialisable values that skills take and return (they cross the sandbox RPC as JSON)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Frozen(BaseModel):
    """Base: immutable, strict."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class BrickDescriptor(Frozen):
    """A brick seen by the camera, estimated from RGB-D, segmentation and the point cloud.

    Positions are in millimetres in the world frame (x forward from the robot base, y left, z up);
    `x_mm, y_mm` is the centre of the brick's top face, `yaw_deg` the direction of its long side.
    """

    id: str = Field(description="Perception id, valid until the next observe(): e.g. 'p4'.")
    color: str = Field(description="Colour name, e.g. 'red', 'light bluish grey'.")
    size: tuple[int, int] = Field(description="Footprint in studs, long side first, e.g. (4, 2) for a 2x4.")
    height: str = Field(description="'brick', 'plate' or 'unknown' (seen from above on the structure).")
    x_mm: float
    y_mm: float
    top_z_mm: float = Field(description="Height of the top face (without studs) above the table.")
    yaw_deg: float = Field(description="Yaw of the long side in [0, 180) (square parts: [0, 90)).")
    in_structure: bool = Field(description="Part of the build (outside the staging area, or stacked).")
    free_to_grasp: bool = Field(description="Nothing on top of it and room for the fingers on both sides.")
    visible_fraction: float = Field(description="Share of its top face the camera sees (occlusion).")


class Pose(Frozen):
    """A gripper or brick pose: position in mm, yaw in degrees about the vertical."""

    x_mm: float
    y_mm: float
    z_mm: float
    yaw_deg: float = 0.0


class GraspPlan(Frozen):
    """Where and how the fingers close on a brick."""

    brick: str
    x_mm: float
    y_mm: float
    z_mm: float = Field(description="Height of the finger pads' centre.")
    yaw_deg: float = Field(description="Gripper yaw: fingers close across this direction's normal.")
    opening_mm: float = Field(description="Finger opening before closing.")
    clearance_mm: float = Field(description="Free space beside each finger.")


class Placement(Frozen):
    """A stud-lattice placement relative to a support brick, and the world pose it means."""

    support: str
    stud_x: int = Field(description="Stud offset along the support's long side (0 = its first stud).")
    stud_y: int = Field(description="Stud offset along the support's short side.")
    rotation: int = Field(description="Quarter turns of the placed brick relative to the support (0-3).")
    pose: Pose = Field(description="World pose of the placed brick's top-face centre once seated (mm, deg).")


class JointState(Frozen):
    """Arm joint angles (rad) and gripper opening (mm)."""

    positions_rad: list[float]
    gripper_opening_mm: float


class PickResult(Frozen):
    """A successful pick: the brick is held and lifted."""

    brick: str
    grasp: GraspPlan
    lifted_to_mm: float


class PlaceResult(Frozen):
    """A successful placement: the brick is seated on the studs."""

    brick: str
    pose: Pose
    error_mm: float = Field(description="Measured in-plane distance from the requested pose after release.")
    seated: bool
