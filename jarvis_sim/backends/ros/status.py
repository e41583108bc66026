"""Typed skill outcomes on the wire: the skill error kinds of skills/errors.py as jarvis_interfaces/SkillStatus codes.

Pure (no ROS import): the bridge and the service side share the table, and unit tests check it covers every kind.
"""

from __future__ import annotations

# The constants of jarvis_interfaces/msg/SkillStatus.msg, by error kind.
OK = 0
SKILL_ERROR = 12  # a SkillError whose kind has no code of its own: the kind string travels beside it
BRIDGE_ERROR = 13  # not a skill failure (no task loaded, unknown skill, simulator failure)

CODE_BY_KIND: dict[str, int] = {
    "invalid_argument": 1,
    "unknown_brick": 2,
    "not_graspable": 3,
    "grasp_failed": 4,
    "nothing_held": 5,
    "already_holding": 6,
    "unreachable": 7,
    "path_blocked": 8,
    "placement_occupied": 9,
    "placement_failed": 10,
    "budget_exceeded": 11,
    "stuck_in_structure": 14,  # after 12 and 13, which were taken first
    "collision": 15,
}


def code_for(kind: str | None) -> int:
    """The status code of a skill error kind (OK for None)."""
    if kind is None:
        return OK
    return CODE_BY_KIND.get(kind, SKILL_ERROR)
