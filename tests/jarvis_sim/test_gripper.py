"""The hand's stroke (jarvis_sim.gripper) against its sources, and which parts fit between the fingers."""

from __future__ import annotations

import mujoco
import pytest

from jarvis_sim.backends.mujoco.panda import FINGER_JOINTS, arm_spec, menagerie_panda_path
from jarvis_sim.gripper import GRIPPER_MAX_OPENING_M, grip_span_mm, too_wide_to_pick
from jarvis_sim.lego.catalog import PARTS, Part


def test_the_mujoco_hand_opens_exactly_the_datasheet_stroke() -> None:
    # Franka Hand data sheet: 80 mm stroke, 40 mm per finger; the model's finger joints must span that.
    model = arm_spec().compile()
    for name in FINGER_JOINTS:
        lo, hi = model.jnt_range[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)]
        assert (lo, hi) == (0.0, pytest.approx(GRIPPER_MAX_OPENING_M / 2))


def test_menagerie_panda_agrees_when_a_checkout_is_at_hand() -> None:
    path = menagerie_panda_path()
    if path is None:
        pytest.skip("MENAGERIE_ROOT is not set: mujoco_menagerie's franka_emika_panda is not available here")
    model = mujoco.MjModel.from_xml_path(str(path))
    finger = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, "finger_joint1")
    assert model.jnt_range[finger][1] == pytest.approx(GRIPPER_MAX_OPENING_M / 2)


def test_every_catalog_part_fits_and_a_16x16_plate_does_not() -> None:
    assert grip_span_mm(2) == pytest.approx(15.8)
    assert [p.number for p in PARTS.values() if too_wide_to_pick(p) is not None] == []
    assert too_wide_to_pick(Part("x9", "Plate 9 x 9", "plate", 9, 9, 1)) is None  # 71.8 + 2 mm
    why = too_wide_to_pick(Part("x10", "Plate 10 x 10", "plate", 10, 10, 1))
    assert why is not None and "narrow side (10 studs, 79.8 mm) needs the fingers open 81.8 mm" in why
    assert too_wide_to_pick(Part("bp", "Baseplate 48 x 48", "baseplate", 48, 48, 0)) is None  # never picked
