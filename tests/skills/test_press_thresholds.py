"""The guarded press's force thresholds stand well above the arm's force noise (the Panda datasheet's 0.035 N RMS,
jarvis_sim/backends/mujoco/wrist_sensor.py), and on real MuJoCo a descent through free air under that noise feels no
contact. (That a press still seats under it: tests/skills/test_skills_sim.py, the 2x8 on a 2x8.)"""

from __future__ import annotations

import math

import numpy as np

from jarvis_sim.backends.mujoco.backend import MujocoBackend
from jarvis_sim.backends.mujoco.wrist_sensor import FORCE_NOISE_RMS_N
from skills.context import SkillContext
from skills.motion import CONTACT_N, GIVE_DROP_FRACTION, GIVE_PEAK_N, GIVE_PULL_N, TARE_WINDOW, guarded_press
from tests.fakes.lego_tasks import stack_task

# A tared reading's noise: its own sample's and the tare's (the mean of TARE_WINDOW samples).
FELT_NOISE_N = FORCE_NOISE_RMS_N * math.sqrt(1.0 + 1.0 / TARE_WINDOW)


def test_every_press_threshold_stands_eight_noise_widths_above_the_noise() -> None:
    # At 8 standard deviations a normal reading crosses a threshold once in about 1e15 ticks.
    for name, threshold in (("contact", CONTACT_N), ("pull", GIVE_PULL_N), ("drop", GIVE_DROP_FRACTION * GIVE_PEAK_N)):
        assert threshold >= 8.0 * FELT_NOISE_N, (name, threshold, FELT_NOISE_N)


def test_a_guarded_descent_through_free_air_feels_nothing_under_the_noise() -> None:
    task = stack_task(2, 1, baseplate=True)
    backend = MujocoBackend()
    try:
        backend.load(task, seed=7)
        ctx = SkillContext(backend=backend, workspace=task.workspace)
        state = backend.robot_state()
        bottom = state.ee_position - np.array([0.0, 0.0, 0.02])  # 2 cm down, nothing below the hand that close
        contact, peak = guarded_press(ctx, bottom, state.ee_quaternion.copy(), 5.0)
        assert contact is None, f"a noisy reading faked a contact (peak {peak:.3f} N)"
        assert peak < CONTACT_N
        assert abs(float(backend.robot_state().ee_position[2]) - float(bottom[2])) < 0.001
    finally:
        backend.close()
