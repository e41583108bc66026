"""The arm's estimated external force carries a Panda's bias and noise (wrist_sensor.py): seeded, within their
sources, kept through save / restore; on real MuJoCo an untouched arm reads bias plus noise of the datasheet's RMS."""

from __future__ import annotations

import numpy as np
import pytest

from jarvis_sim.backends.mujoco import wrist_sensor
from jarvis_sim.backends.mujoco.backend import MujocoBackend
from tests.fakes.lego_tasks import stack_task

# Franka Emika, Panda datasheet (https://download.franka.de/Datasheet-EN.pdf), "Force/torque sensing":
# "Force noise (RMS) 0.035 N".
PANDA_DATASHEET_FORCE_NOISE_RMS_N = 0.035


def test_the_bias_is_seeded_and_within_its_source() -> None:
    assert pytest.approx(2.06) == wrist_sensor.BIAS_MAX_N  # libfranka issue #112's largest component
    a, b, c = wrist_sensor.wrist_bias(0), wrist_sensor.wrist_bias(0), wrist_sensor.wrist_bias(1)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert (np.abs(np.stack([wrist_sensor.wrist_bias(s) for s in range(50)])) <= 2.06).all()


def test_the_noise_is_the_datasheet_figure_and_seeded() -> None:
    assert wrist_sensor.FORCE_NOISE_RMS_N == PANDA_DATASHEET_FORCE_NOISE_RMS_N
    a, b, c = wrist_sensor.WristSensor(5), wrist_sensor.WristSensor(5), wrist_sensor.WristSensor(6)
    draws = {}
    for name, sensor in (("a", a), ("b", b), ("c", c)):
        samples = []
        for _ in range(20):
            sensor.sample()
            samples.append(sensor.read(np.zeros(3)))
        draws[name] = np.stack(samples)
    assert np.array_equal(draws["a"], draws["b"]) and not np.array_equal(draws["a"], draws["c"])
    copied = a.copy()  # a snapshot's copy replays the stream from where it was
    a.sample()
    copied.sample()
    assert np.array_equal(a.read(np.zeros(3)), copied.read(np.zeros(3)))


def test_untouched_the_arm_reads_its_bias_and_the_datasheets_noise_on_mujoco() -> None:
    """2000 control ticks of an arm at rest with nothing touching it: each axis reads the seed's bias on average and
    scatters about it with the datasheet's 0.035 N RMS; the same seed replays the same readings, and a snapshot
    replays them from where it was taken."""
    task = stack_task(2, 1, baseplate=True)
    b = MujocoBackend()
    try:
        b.load(task, seed=3)
        n = 2000
        readings = np.empty((n, 3))
        for k in range(n):
            b.step(1)
            force, part_name, obstacle = b.tool_contact_force()
            assert part_name is None and obstacle is None
            readings[k] = force
        bias = wrist_sensor.wrist_bias(3)
        # The mean of n samples sits within 4 standard errors of the bias; the spread within 10% of the figure (the
        # sample standard deviation of 2000 normal draws scatters by 1.6%).
        standard_error = PANDA_DATASHEET_FORCE_NOISE_RMS_N / np.sqrt(n)
        assert np.all(np.abs(readings.mean(axis=0) - bias) < 4 * standard_error)
        std = readings.std(axis=0, ddof=1)
        assert np.all(np.abs(std / PANDA_DATASHEET_FORCE_NOISE_RMS_N - 1.0) < 0.1), std
        # Successive ticks are independent samples (white noise), the same tick reads one sample however often.
        centred = readings - readings.mean(axis=0)
        lag1 = (centred[1:] * centred[:-1]).mean(axis=0) / centred.var(axis=0)
        assert np.all(np.abs(lag1) < 0.1), lag1
        assert np.array_equal(b.tool_contact_force()[0], b.tool_contact_force()[0])

        b.load(task, seed=3)
        b.step(10)
        assert np.array_equal(b.tool_contact_force()[0], readings[9])  # the same seed reads the same noise
        snap = b.save_state()
        b.step(5)
        after = b.tool_contact_force()[0].copy()
        b.load(task, seed=4)
        assert not np.allclose(b.tool_contact_force()[0], readings[0])
        b.load(task, seed=3)
        b.restore_state(snap)
        assert np.array_equal(b.tool_contact_force()[0], readings[9])
        b.step(5)
        assert np.array_equal(b.tool_contact_force()[0], after)
    finally:
        b.close()
