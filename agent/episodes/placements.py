"""Noticing, on the simulator side, when a program ends a pick-and-place operation.

A placement is a call of a placing skill (place, place_on, place_at, put_down) made while a brick was
in the gripper, or, in the generic library, an open_gripper that let a held brick go. The watch sees
every skill call through SkillContext.on_call. For each placement it keeps the ground truth right
after the call (the evaluator's effective-action analysis scores each one against the brick it was
meant for) and, when reflecting at placement granularity, it tells the skill server to pause the
program there (the paper's reflective mode: a new view and feedback after each pick-and-place).
"""

from __future__ import annotations

from jarvis_sim.backends.base import Backend
from jarvis_sim.records import PlacementRecord, SkillCallRecord

PLACING_SKILLS = frozenset({"place", "place_on", "place_at", "put_down"})
RELEASING_SKILLS = frozenset({"open_gripper"})


class PlacementWatch:
    """Follows one program's skill calls; collects its placements and, if asked, pauses after the first."""

    def __init__(self, backend: Backend, *, pause: bool = False):
        self.backend = backend
        self.pause = pause
        self.placements: list[PlacementRecord] = []
        self._calls = 0
        self._held = backend.held_brick()  # the gripper's brick before the next call
        self._pending: str | None = None

    def on_call(self, call: SkillCallRecord) -> None:
        """SkillContext.on_call: note the call; a placement takes a ground-truth snapshot."""
        index, self._calls = self._calls, self._calls + 1
        held_before, self._held = self._held, self.backend.held_brick()
        if held_before is None:
            return
        placing = call.name in PLACING_SKILLS
        released = call.name in RELEASING_SKILLS and call.ok and self._held is None
        if not (placing or released):
            return
        self.placements.append(PlacementRecord(
            call_index=index, skill=call.name, ok=call.ok, brick_id=held_before, state=self.backend.world_state(),
        ))
        if self.pause:
            args = ", ".join(f"{k}={v!r}" for k, v in call.args.items())
            self._pending = (
                f"paused after the pick-and-place {call.name}({args}) ({'done' if call.ok else call.error_kind}); "
                "the rest of the program did not run"
            )

    def pause_reason(self) -> str | None:
        """SkillServer.pause_after: the reason to stop the program now, once per placement."""
        reason, self._pending = self._pending, None
        return reason
