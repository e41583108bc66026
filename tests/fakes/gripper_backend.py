"""A stand-in backend for code that only asks what the gripper holds and what the world looks like."""

from __future__ import annotations

from jarvis_sim.lego.world_state import WorldState


class GripperBackend:
    """`held` is set by the test between calls; world_state() returns a copy stamped with a counter."""

    def __init__(self) -> None:
        self.held: str | None = None
        self.snapshots = 0

    def held_brick(self) -> str | None:
        """The brick the test says is in the gripper."""
        return self.held

    def world_state(self) -> WorldState:
        """An empty world whose sim time counts the snapshots taken."""
        self.snapshots += 1
        return WorldState(sim_time_s=float(self.snapshots), bricks=[])
