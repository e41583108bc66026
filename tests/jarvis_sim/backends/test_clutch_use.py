"""How each connection's load is judged (clutch_loads._use), on a loaded running-bond block of real welds.

A brick on one support is judged on that connection; a brick on several is judged on each connection's own pull and
on the brick's combined load about all its engaged studs. _use judges every brick at once; the reference here
judges them one by one, as the rule reads."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from jarvis_sim.backends.mujoco.backend import MujocoBackend
from jarvis_sim.backends.mujoco.clutch import utilisation
from tests.fakes.lego_tasks import stack_task


def _one_by_one(b: MujocoBackend, eqs: np.ndarray, force: np.ndarray, moment: np.ndarray) -> np.ndarray:
    cap = b._capacity[eqs]
    use = utilisation(force, moment, cap)
    bricks = b._eq_brick[eqs]
    for k in sorted(set(bricks.tolist())):
        rows = np.flatnonzero(bricks == k)
        combined = b._brick_capacity(b._brick_ids[k])
        if len(rows) < 2 or combined is None:
            continue
        lever = combined[4:7][None, :] - cap[rows, 4:7]
        about = (moment[rows] + np.cross(lever, force[rows])).sum(axis=0)
        whole = utilisation(force[rows].sum(axis=0)[None, :], about[None, :], combined[None, :])[0]
        use[rows] = np.maximum(np.maximum(force[rows, 2], 0.0) / cap[rows, 1], whole)
    return use


@pytest.fixture(scope="module")
def block() -> Iterator[MujocoBackend]:
    b = MujocoBackend()
    b.load(stack_task(24, 1, baseplate=True))  # two courses: the upper one in running bond on two bricks each
    yield b
    b.close()


def test_bricks_on_several_supports_are_judged_as_one_body_and_each_connection_on_its_pull(block: MujocoBackend) -> None:
    b = block
    eqs = np.array(sorted(b._partner), dtype=int)
    several = [k for k in set(b._eq_brick[eqs].tolist()) if (b._eq_brick[eqs] == k).sum() > 1]
    assert several, "the running-bond block must have bricks on several supports"
    rng = np.random.default_rng(7)
    for trial in range(20):
        order = rng.permutation(len(eqs))  # rows of one brick need not be next to each other
        force = rng.normal(0.0, 3.0, (len(eqs), 3))
        moment = rng.normal(0.0, 0.02, (len(eqs), 3))
        got = b._use(eqs[order], force, moment)
        want = _one_by_one(b, eqs[order], force, moment)
        np.testing.assert_array_equal(got, want, err_msg=f"trial {trial}")


def test_a_lone_connection_is_judged_on_its_own_capacity(block: MujocoBackend) -> None:
    b = block
    eqs = np.array(sorted(b._partner), dtype=int)
    lone = eqs[:1]
    force = np.array([[0.0, 0.0, 1.0]])
    use = b._use(lone, force, np.zeros((1, 3)))
    assert use[0] == pytest.approx(1.0 / b._capacity[lone[0], 1])
