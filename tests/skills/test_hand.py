"""The hand's shape the skills plan with (skills/hand.py) is the hand the simulator moves."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from jarvis_sim.backends.mujoco.panda import FINGER_JOINTS, HAND_BODY, TCP_SITE, build_panda
from skills.hand import HAND_BOXES, Obstacle, hand_footprints, rects_overlap, struck
from skills.library.task import FINGERTIP_BELOW_TCP_MM


def _robot_boxes_in_tool_frame(opening_mm: float) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(body, lower corner, upper corner) in mm of every box geom of the hand and fingers, in the tool frame with z
    measured up from the finger tips, the fingers opened `opening_mm`."""
    spec = mujoco.MjSpec()
    spec.compiler.degree = False
    build_panda(spec.worldbody, spec)
    m = spec.compile()
    d = mujoco.MjData(m)
    for j in FINGER_JOINTS:
        d.qpos[m.joint(j).qposadr[0]] = opening_mm / 2000.0
    mujoco.mj_kinematics(m, d)
    tcp = m.site(TCP_SITE).id
    origin, rot = d.site_xpos[tcp], d.site_xmat[tcp].reshape(3, 3)
    bodies = {m.body(HAND_BODY).id} | {m.body(f"panda/finger_{s}_link").id for s in ("left", "right")}
    out = []
    for g in range(m.ngeom):
        if m.geom_bodyid[g] not in bodies or m.geom_type[g] != mujoco.mjtGeom.mjGEOM_BOX:
            continue
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * m.geom_size[g]
        world = d.geom_xpos[g] + corners @ d.geom_xmat[g].reshape(3, 3).T
        local = (world - origin) @ rot * 1000.0
        local[:, 2] = -local[:, 2] + FINGERTIP_BELOW_TCP_MM  # the tool z axis points down out of the hand
        out.append((mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, m.geom_bodyid[g]), local.min(axis=0), local.max(axis=0)))
    return out


@pytest.mark.parametrize("opening_mm", [16.0, 40.0])
def test_every_box_of_the_hand_is_one_of_the_planned_boxes(opening_mm: float) -> None:
    planned = []
    for box in HAND_BOXES:
        sides = (1.0, -1.0) if box.per_finger else (0.0,)
        for side in sides:
            if box.per_finger:
                ys = sorted(side * (opening_mm / 2 + a) for a in box.across_mm)
            else:
                ys = list(box.across_mm)
            planned.append(np.array([[-box.half_along_mm, ys[0], box.z_mm[0]], [box.half_along_mm, ys[1], box.z_mm[1]]]))
    model = _robot_boxes_in_tool_frame(opening_mm)
    assert len(model) == len(planned)
    for _, lo, hi in model:
        assert any(np.allclose(lo, p[0], atol=0.15) and np.allclose(hi, p[1], atol=0.15) for p in planned), (lo, hi)


def test_footprints_follow_the_opening_and_the_yaw() -> None:
    closed = {f.name: f for f in hand_footprints(0.0, 0.0, 0.0, 16.0, 5.0)}
    opened = {f.name: f for f in hand_footprints(0.0, 0.0, 0.0, 24.0, 5.0)}
    # Fingers close along +-y at yaw 0: the left pad moves out by half the change in opening.
    assert opened["pad_left"].centre[1] - closed["pad_left"].centre[1] == pytest.approx(4.0)
    assert closed["pad_left"].centre == pytest.approx((0.0, 12.0))
    assert closed["finger_right"].z_mm == (36.0, 60.0)
    assert closed["hand"].centre == pytest.approx((0.0, 0.0))
    turned = {f.name: f for f in hand_footprints(0.0, 0.0, math.pi / 2, 16.0, 5.0)}
    assert turned["pad_left"].centre == pytest.approx((-12.0, 0.0), abs=1e-9)
    # A 2x2 brick beside the left pad overlaps it; one a stud further out does not.
    pad = closed["pad_left"]
    assert rects_overlap(pad.centre, pad.yaw_deg, pad.half, (0.0, 20.0), 0.0, (7.7, 7.7))
    assert not rects_overlap(pad.centre, pad.yaw_deg, pad.half, (0.0, 28.5), 0.0, (7.7, 7.7))


def test_struck_names_what_stands_in_the_way_of_a_box_and_tall_enough() -> None:
    beside = Obstacle((0.0, 20.0), 0.0, (7.7, 7.7), top_mm=9.6)  # beside the left pad of a 16 mm grip, pad height
    low = Obstacle((0.0, -20.0), 0.0, (7.7, 7.7), top_mm=4.0)  # beside the right pad but below the tips
    tall = Obstacle((0.0, 22.0), 0.0, (3.7, 3.7), top_mm=60.0)  # beyond the pad, under the upper finger
    assert struck(0.0, 0.0, 0.0, (16.0,), 5.0, [beside, low, tall]) == [0, 2]
    assert struck(0.0, 0.0, 0.0, (16.0,), 5.0, [tall], boxes=HAND_BOXES[:1]) == []
