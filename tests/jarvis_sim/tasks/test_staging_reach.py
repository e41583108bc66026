"""Staging prefers the Panda's comfortable reach and falls back to its full reach only for crowded segments."""

from __future__ import annotations

import math
import random

from jarvis_sim.lego.assembly import make_brick
from jarvis_sim.tasks.spec import Workspace
from jarvis_sim.tasks.staging import REACH_COMFORT_M, REACH_MAX_M, stage_bricks_clear_of


def _reach(poses: list) -> float:
    return max(math.hypot(p.x, p.y) for p in poses)


def test_a_few_bricks_stay_within_comfortable_reach() -> None:
    bricks = [make_brick(f"b{i}", "3001", 4, 0, 0, 0) for i in range(5)]
    _, poses = stage_bricks_clear_of(bricks, Workspace(), -0.05, random.Random(0), "few")
    assert len(poses) == 5 and _reach(poses) <= REACH_COMFORT_M


def test_a_crowded_segment_uses_the_full_reach_instead_of_failing() -> None:
    # 39 large loose bricks (the pool's 'p0-00013-tower' case) do not fit within 0.68 m of the base.
    bricks = [make_brick(f"b{i}", "3007", 4, 0, 0, 0) for i in range(39)]
    _, poses = stage_bricks_clear_of(bricks, Workspace(), -0.05, random.Random(0), "crowded")
    assert len(poses) == 39
    assert REACH_COMFORT_M < _reach(poses) <= REACH_MAX_M
