"""Slip is not a break: a brick whose connection gave keeps its studs' friction while they are still in its tubes.

When a connection gives, the weld goes (clutch_welds._disconnect) but the studs are still inside the brick's
underside: real studs keep their friction until they are out, a stud height of travel (clutch_model.
ENGAGEMENT_TRAVEL_M). The brick, now free, is given MuJoCo dry friction on its free joint (`dof_frictionloss`, solved
by the constraint solver with the contacts, so stable at any size): the capacity of the connections it lost, for
a pull and for a pry, as long as its studs are still in at its most lifted footprint corner:
a brick the studs are still in keeps their whole friction (Coulomb friction of the interference fit; only
the last fraction of a millimetre, where the studs' rounded tops leave the tubes, is shorter). Out of the studs,
the friction is gone and the brick is loose. MuJoCo's dry friction is a soft constraint: under a steady pull below
it a 2.3 g brick creeps (measured: 0.12 mm/s per newton), so a pull held long enough draws it out. Pressed back
down with the seating press, it seats again (clutch_welds._seat_pressed counts the friction's push back as the
press it is).
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from jarvis_sim.backends.mujoco.core import MujocoCore
from jarvis_sim.backends.mujoco.scene import CLUTCH_SOLIMP, clutch_solref
from jarvis_sim.lego import clutch_model
from jarvis_sim.lego import units as u
from jarvis_sim.lego.catalog import part


@dataclass(frozen=True)
class Slip:
    """A brick that came off its supports with its studs still in: where it was seated, relative to what held it,
    and the capacity it lost (N for a pull, N m for a pry)."""

    support_body: int  # 0: the world (the baseplate)
    seat_in_support: np.ndarray  # 4x4 pose of its seat in the support's frame
    pull_n: float
    pry_nm: float


def _pose(pos: np.ndarray, mat: np.ndarray) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = mat.reshape(3, 3)
    out[:3, 3] = pos
    return out


class ClutchSlip(MujocoCore):
    """Friction of studs still in their tubes after a connection gave (mixed into MujocoBackend)."""

    def _start_slip(self, brick: str, support: str, capacity: np.ndarray) -> None:
        """Begin the slip of a brick that lost its last connection, to `support`, of this capacity row."""
        d = self.data
        body = self._body[brick]
        support_body = self._body.get(support, 0)
        seat = _pose(d.xpos[body], d.xmat[body])  # the weld held it here (the give is a few micrometres)
        frame = _pose(d.xpos[support_body], d.xmat[support_body])
        previous = self._slipping.get(brick)
        pull = float(capacity[1]) + (previous.pull_n if previous is not None else 0.0)
        pry = float(min(capacity[2], capacity[3])) + (previous.pry_nm if previous is not None else 0.0)
        self._slipping[brick] = Slip(support_body, np.linalg.inv(frame) @ seat, pull, pry)
        # The friction as stiff as the weld it stands in for (scene.py's clutch welds): at MuJoCo's default
        # impedance a 2.3 g brick under a tenth of the friction crept 0.15 mm a tick.
        dof = self._dadr[brick]
        m = self.model
        m.dof_solref[dof : dof + 6] = clutch_solref(float(m.opt.timestep))
        m.dof_solimp[dof : dof + 6] = CLUTCH_SOLIMP

    def _engaged_fraction(self, brick: str, slip: Slip) -> float:
        """1 while the studs are still in the brick's tubes at its most lifted footprint corner, else 0."""
        d = self.data
        body = self._body[brick]
        p = part(self._part[brick][0])
        seat = _pose(d.xpos[slip.support_body], d.xmat[slip.support_body]) @ slip.seat_in_support
        hx, hy = p.width * u.STUD_PITCH_M / 2, p.depth * u.STUD_PITCH_M / 2
        corners = np.array([[sx * hx, sy * hy, 0.0] for sx in (-1, 1) for sy in (-1, 1)])
        now = d.xpos[body] + corners @ d.xmat[body].reshape(3, 3).T
        there = seat[:3, 3] + corners @ seat[:3, :3].T
        rise = float(((now - there) @ seat[:3, 2]).max())
        offset = float(np.linalg.norm((now - there)[:, :2], axis=1).max())
        if offset > u.STUD_PITCH_M / 2:  # a corner half a stud off: the studs are out of its tubes
            return 0.0
        return 1.0 if rise < clutch_model.ENGAGEMENT_TRAVEL_M else 0.0

    def _slip_tick(self) -> None:
        """Set the friction of every slipping brick from how far its studs are still in; end the slips that are out
        or seated again."""
        if not self._slipping:
            return
        m = self.model
        for brick, slip in list(self._slipping.items()):
            dof = self._dadr[brick]
            f = 0.0 if (brick in self.clutch.seated or self._connected(brick)) else self._engaged_fraction(brick, slip)
            if f <= 0.0:
                del self._slipping[brick]
                m.dof_frictionloss[dof : dof + 6] = 0.0
                continue
            m.dof_frictionloss[dof : dof + 3] = slip.pull_n * f
            m.dof_frictionloss[dof + 3 : dof + 6] = slip.pry_nm * f

    def _friction_push(self, brick: str) -> float:
        """The upward force (N) the slip friction exerts on a brick this step: what presses it down, felt by the studs."""
        d = self.data
        dof = self._dadr[brick] + 2  # the free joint's world z
        rows = np.flatnonzero((d.efc_type[: d.nefc] == int(mujoco.mjtConstraint.mjCNSTR_FRICTION_DOF))
                              & (d.efc_id[: d.nefc] == dof))
        return float(d.efc_force[rows].sum()) if len(rows) else 0.0
