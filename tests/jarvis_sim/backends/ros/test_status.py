"""The SkillStatus codes on the wire cover every skill error kind and agree with the .msg definition."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import skills.errors as errors
from jarvis_sim.backends.ros import status

ROOT = Path(__file__).resolve().parents[4]


def msg_constants() -> dict[str, int]:
    text = (ROOT / "ros2_ws/src/jarvis_interfaces/msg/SkillStatus.msg").read_text()
    return {m[1]: int(m[2]) for m in re.finditer(r"^uint8 ([A-Z_]+) = (\d+)", text, re.M)}


def test_every_skill_error_kind_has_its_own_code_matching_the_msg() -> None:
    kinds = {c.kind for _, c in inspect.getmembers(errors, inspect.isclass)
             if issubclass(c, errors.SkillError) and c is not errors.SkillError}
    assert kinds == set(status.CODE_BY_KIND)
    consts = msg_constants()
    for kind, code in status.CODE_BY_KIND.items():
        assert consts[kind.upper()] == code
    assert consts["OK"] == status.OK and consts["SKILL_ERROR"] == status.SKILL_ERROR
    assert consts["BRIDGE_ERROR"] == status.BRIDGE_ERROR
    assert len(set(consts.values())) == len(consts)


def test_an_unlisted_kind_travels_as_skill_error() -> None:
    assert status.code_for("a_new_kind") == status.SKILL_ERROR and status.code_for(None) == status.OK
