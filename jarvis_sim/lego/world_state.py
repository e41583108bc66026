"""The physical ground truth of a workspace at one instant: every brick's pose and contacts.

Backends produce it; the evaluator and explicitly named oracle agents consume it. It is plain data
(pydantic), so a stored episode can be re-scored offline without a simulator.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

WORLD_STATE_VERSION = 1


class BrickState(BaseModel):
    """One physical brick: identity, world pose (centre of the bottom face), and what holds it."""

    model_config = ConfigDict(extra="forbid")

    id: str
    part: str
    color: int
    position: tuple[float, float, float] = Field(description="World position of the bottom-face centre, m.")
    quaternion: tuple[float, float, float, float] = Field(description="Orientation (w, x, y, z).")
    held: bool = Field(False, description="The gripper is holding it.")
    connected_to: list[str] = Field(
        default_factory=list,
        description="Ids it is clutched to (welded); 'ground' for the baseplate.",
    )


class WorldState(BaseModel):
    """Ground truth of all bricks, plus the simulated time it was taken at."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = WORLD_STATE_VERSION
    sim_time_s: float = 0.0
    bricks: list[BrickState] = Field(default_factory=list)

    def by_id(self) -> dict[str, BrickState]:
        """Bricks keyed by id."""
        return {b.id: b for b in self.bricks}
