"""Errors a skill raises for the agent: each has a `kind` and a message written for the model."""

from __future__ import annotations


class SkillError(Exception):
    """Base of every agent-facing skill failure; subclasses set `kind` (e.g. "grasp_failed")."""

    kind: str = "skill_error"

    def __init__(self, message: str, *, kind: str | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind

    @property
    def message(self) -> str:
        """The agent-facing explanation."""
        return str(self.args[0]) if self.args else ""


class InvalidArgument(SkillError):
    """An argument the skill cannot use (wrong type, out of range, unknown id)."""

    kind = "invalid_argument"


class UnknownBrick(SkillError):
    """A perception id that the last observation did not produce."""

    kind = "unknown_brick"


class NotGraspable(SkillError):
    """The brick cannot be grasped: covered, part of the structure, or no room for the fingers."""

    kind = "not_graspable"


class TooWideForGripper(NotGraspable):
    """The brick's side the fingers would close across is wider than the hand opens: no grasp can hold it."""

    kind = "not_graspable"  # the wire code of not_graspable (skills.ros.status): the message says why


class GraspFailed(SkillError):
    """The fingers closed but the brick is not between them (slipped or missed)."""

    kind = "grasp_failed"


class StuckInStructure(SkillError):
    """A brick of the structure stayed clutched to its studs: the fingers slid off it while pulling."""

    kind = "stuck_in_structure"


class NothingHeld(SkillError):
    """A placement was asked for while the gripper holds nothing."""

    kind = "nothing_held"


class AlreadyHolding(SkillError):
    """A pick was asked for while the gripper already holds a brick."""

    kind = "already_holding"


class Unreachable(SkillError):
    """No arm configuration reaches the pose."""

    kind = "unreachable"


class PathBlocked(SkillError):
    """Every path to the pose would collide with the structure or a brick."""

    kind = "path_blocked"


class Collision(SkillError):
    """The contact reflex stopped the arm: the hand, an arm link or the held brick hit something hard."""

    kind = "collision"


class PlacementOccupied(SkillError):
    """The target studs are covered by another brick."""

    kind = "placement_occupied"


class PlacementFailed(SkillError):
    """The brick was released but is not seated on the target studs."""

    kind = "placement_failed"


class BudgetExceeded(SkillError):
    """The episode's skill-call or simulated-time budget is spent."""

    kind = "budget_exceeded"
