"""The clutch's welds: forming a connection when a brick is pressed on, and taking it apart (clutch.py)."""

from __future__ import annotations

import mujoco
import numpy as np

from jarvis_sim.backends.base import BackendError
from jarvis_sim.backends.mujoco.clutch import (
    GROUND,
    SEAT_BELOW_M,
    STUD_LEAD_IN_M,
    Seat,
    capacity_of,
)
from jarvis_sim.backends.mujoco.core import MujocoCore
from jarvis_sim.backends.mujoco.poses import weld_data
from jarvis_sim.backends.mujoco.scene import CLUTCH_TORQUESCALE
from jarvis_sim.lego.statics import GROUND as GROUND_INDEX
from jarvis_sim.lego.statics import joint_on_cells

SEATING_MAX_S = 2.0  # a brick pressed into its seat while still squeezed: see _seat
PULL_IN_S = 0.05  # how long a freshly seated brick's welds take to draw it onto its seat: see _seat


class ClutchWelds(MujocoCore):
    """Seating pressed bricks, welding and unwelding connections, collision floors (mixed into MujocoBackend)."""

    def _connect(self, brick: str, support: str) -> None:
        """Weld a seated brick to one support at their lattice poses, with the capacity of the engaged studs."""
        m, d = self.model, self.data
        free = [eq for eq in self._slots[brick] if not d.eq_active[eq]]
        if not free:  # one weld per footprint cell (scene.clutch_slots): a support more than cells cannot happen
            raise BackendError(f"{brick}: no free clutch weld for a connection to {support}")
        eq = free[0]
        pos, quat = self._lattice_pose(brick)
        if support == GROUND:
            partner_body, p2, q2 = 0, np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0])
        else:
            partner_body = self._body[support]
            p2, q2 = self._lattice_pose(support)
        m.eq_obj2id[eq] = partner_body
        data = weld_data(pos, quat, p2, q2, m.eq_data.shape[1])
        # The anchor is the brick's bottom-face centre, so loads are read about the joint: MuJoCo holds the point
        # `anchor` of the partner (its frame) on the point relpose.pos of the brick (its frame), here its origin.
        rot2 = np.zeros(9)
        mujoco.mju_quat2Mat(rot2, q2)
        data[0:3] = rot2.reshape(3, 3).T @ (pos - p2)
        data[3:6] = 0.0
        data[10] = CLUTCH_TORQUESCALE  # stiff rotation at any brick's inertia (scene.py)
        m.eq_data[eq] = data
        d.eq_active[eq] = 1
        seat = self.clutch.seated[brick]
        cells = self.clutch.engaged_cells(seat, support)
        origin = self._task().workspace.lattice_origin
        cap = capacity_of(seat.cells(), cells, origin, float(pos[2]), self.config.contact_point_clutch_n)
        lower = GROUND_INDEX if support == GROUND else self._brick_index[support]
        # The brick's own footprint decides 3 or 4 contact points a stud; the support bears on the engaged region's
        # rim, the lever clutch_model's prying capacity uses (and Funes' joints measure), so that the whole-structure
        # check and each joint's capacity judge a connection alike.
        self._joint_plane[eq] = joint_on_cells(self._brick_index[brick], lower, cells, origin, float(pos[2]),
                                               footprint=seat.cells(), bear_on_points=False)
        self._capacity[eq] = (cap.studs, cap.pull_n, cap.moment_x_nm, cap.moment_y_nm, *(pos - np.asarray(cap.centre)),
                              cap.half_x_m, cap.half_y_m)
        self._partner[eq] = support
        self._brick_caps.pop(brick, None)
        self._rest_load[eq] = 0.0
        self._groups_dirty = True

    def _clear_floors(self) -> None:
        """Give a brick whose connection broke its floor back once no stud of another cluster is inside it."""
        if not self._engaged:
            return
        self._sync_collision_groups()  # clusters as they are after this tick's breaks and seatings
        d = self.data
        bodies = self._brick_body
        rot = d.xmat[bodies].reshape(-1, 3, 3)
        centre = d.xpos[bodies] + rot[:, :, 2] * self._box_half[:, 2:3]
        half = np.einsum("kij,kj->ki", np.abs(rot), self._box_half)
        lo, hi = centre - half, centre + half
        # One row per engaged brick (this runs every tick while one is): does any brick of another cluster reach
        # into its underside?
        engaged = sorted(self._engaged)
        ks = np.array([self._brick_index[b] for b in engaged])
        overlap = ((lo[None, :, :2] < hi[ks, None, :2] - STUD_LEAD_IN_M).all(axis=2)
                   & (hi[None, :, :2] > lo[ks, None, :2] + STUD_LEAD_IN_M).all(axis=2))
        overlap &= (lo[ks, None, 2] < hi[None, :, 2] - 1e-4) & (lo[ks, None, 2] > lo[None, :, 2])
        overlap[np.arange(len(ks)), ks] = False
        mine = self._brick_cluster[ks][:, None]
        overlap &= (mine < 0) | (self._brick_cluster[None, :] != mine)
        clear = {b for b, hit in zip(engaged, overlap.any(axis=1).tolist(), strict=True) if not hit}
        if clear:
            self._engaged -= clear
            self._groups_dirty = True

    def _disconnect(self, eq: int) -> None:
        """Break one connection; a brick left without supports leaves the lattice with what is welded onto it."""
        brick = self._slot_brick[eq]
        support = self._partner.pop(eq)
        self._brick_caps.pop(brick, None)
        self._groups_dirty = True
        # The studs of what it came off are still inside its underside: no floor until it is clear of them.
        self._engaged.add(brick)
        self.data.eq_active[eq] = 0
        # MuJoCo does not wake an island when one of its welds is switched off: a structure that fell asleep in the
        # step its connection broke would hang in the air (measured: a 1x8 cantilever carrying sixteen 2x8 bricks,
        # whose stiff welds left nothing moving when it broke).
        if self.data.tree_asleep[self._tree[brick]] >= 0:
            self._wake_all()
        self.clutch.links.discard(frozenset((brick, support)))
        if not self._connected(brick):
            self._start_slip(brick, support, self._capacity[eq])  # its studs are still in: they keep their friction
            self.clutch.unseat(self._welded_group(brick))

    def _detach(self, brick: str) -> None:
        """Break every connection of a brick to its supports (displace_brick)."""
        for eq in self._slots[brick]:
            if eq in self._partner:
                self._disconnect(eq)
        self.clutch.unseat(self._welded_group(brick))

    def _clutch_tick(self, load_scale: float = 1.0) -> None:
        d = self.data
        t = float(d.time)
        touched = set().union(*self._pad_touches()) if self._seating else set()
        for b, since in list(self._seating.items()):
            if (self._brick_index[b] not in touched and t - since >= PULL_IN_S) or t - since > SEATING_MAX_S:
                del self._seating[b]
                self._rest_pending.add(b)  # let go: the structure now also carries this brick; recorded at rest
        self._break_overloaded(load_scale)
        self._seat_pressed()
        self._slip_tick()
        self._clear_floors()
        self._record_pending_rest()

    def _seat_pressed(self) -> None:
        """Seat every awake loose brick that is pressed onto studs hard enough within the capture region (a brick
        the pads squeeze on the stud tops: once they let go)."""
        d = self.data
        if d.ncon == 0:
            return
        # Only a brick touching something other than the robot can be pressed onto studs: the bricks of this
        # step's contacts, not every brick every tick (find_seat costs ~1 ms).
        geoms = d.contact.geom[: d.ncon]
        not_robot = ~self._geom_robot[geoms].any(axis=1)
        pressed = geoms[not_robot]
        vertical: np.ndarray | None = None
        asleep = d.tree_asleep
        # The pads hold a brick off its seat while their friction could take a connection's seating press.
        holding = self.grip_closed and 2.0 * float(self.model.geom_friction[self._pads[0], 0]) * self.grip_force \
            >= self.config.seat_press_n
        squeezed: set[int] | None = None  # read once a tick, and only when needed (this runs every tick)

        def held(k: int) -> bool:
            nonlocal squeezed
            if squeezed is None:
                squeezed = set.intersection(*self._pad_touches()) if holding else set()
            return k in squeezed

        for b in [b for b in self._registered if not held(self._brick_index[b])]:
            # Let go by the pads that held it on the stud tops: it snaps in if it is still where it was pressed.
            del self._registered[b]
            body = self._body[b]
            part_number, color = self._part[b]
            seat = self.clutch.find_seat(b, part_number, color, d.xpos[body], d.xmat[body].reshape(3, 3))
            if seat is not None and b not in self.clutch.seated and not self._connected(b):
                self._seat(b, seat)
        for k in sorted({k for k in self._geom_brick[pressed.ravel()].tolist() if k >= 0}):
            b = self._brick_ids[k]
            if asleep[self._tree[b]] >= 0 or b in self.clutch.seated or self._connected(b) or b in self._registered:
                continue
            body = self._body[b]
            if vertical is None:
                vertical = self._contact_vertical_forces()  # once a tick, for every candidate brick
            force = self._support_force(body, vertical)
            if b in self._slipping:  # held up by its studs' friction: pushing it down loads that, not a contact
                force += self._friction_push(b)
            if force < self.config.seat_press_n:
                continue  # less than one connection's press: no seat can take it
            part_number, color = self._part[b]
            seat = self.clutch.find_seat(b, part_number, color, d.xpos[body], d.xmat[body].reshape(3, 3))
            if seat is None:
                continue
            if force < len(seat.supports) * self.config.seat_press_n:
                continue  # BrickSim registers each connection with its own press
            if seat.height_m > SEAT_BELOW_M and held(k):
                # Pressed past the studs' interference while the pads squeeze it: it goes where the hand takes it,
                # and snaps home when they let go. (Welded at once, the weld drew it a stud height down through the
                # squeezing pads and pulled the hand down with it: 24 N, measured on a 2x6 plate.)
                self._registered[b] = float(d.time)
                continue
            self._seat(b, seat)

    def _contact_vertical_forces(self) -> np.ndarray:
        """Per contact of this step, the vertical (world z) component of the force on geom2's body (N).

        Under an elliptic cone (the scene's) mj_contactForce only copies a contact's constraint forces and takes off
        its adhesion, so all contacts are read at once; a pyramidal cone's forces are decoded by MuJoCo one by one.
        """
        m, d = self.model, self.data
        n = d.ncon
        frames = d.contact.frame[:n]
        if int(m.opt.cone) != int(mujoco.mjtCone.mjCONE_ELLIPTIC):
            out = np.zeros(n)
            wrench = np.zeros(6)
            for i in range(n):
                mujoco.mj_contactForce(m, d, i, wrench)
                out[i] = float((frames[i].reshape(3, 3).T @ wrench[:3])[2])
            return out
        local = np.zeros((n, 3))  # along the normal and the two tangents
        if d.nefc:
            adr = d.contact.efc_address[:n]
            component = np.arange(3)
            valid = (adr[:, None] >= 0) & (component[None, :] < d.contact.dim[:n, None])
            local = np.where(valid, d.efc_force[np.where(valid, adr[:, None] + component[None, :], 0)], 0.0)
            local[:, 0] -= np.where(adr >= 0, d.contact.adhesion[:n], 0.0)
        return (frames[:, 2::3] * local).sum(axis=1)  # the frame's rows are the axes: their z components

    def _support_force(self, body: int, vertical: np.ndarray | None = None) -> float:
        """Upward force (N) on a brick from everything but the robot: how hard it is pressed onto what is below.
        `vertical`: this step's _contact_vertical_forces, when already read."""
        m, d = self.model, self.data
        if vertical is None:
            vertical = self._contact_vertical_forces()
        geoms = d.contact.geom[: d.ncon]
        bodies = m.geom_bodyid[geoms]
        rows = (bodies == body).any(axis=1) & ~self._geom_robot[geoms].any(axis=1)
        # The force on geom2's body pushes this brick up when it is geom2, and down on geom1 otherwise.
        sign = np.where(bodies[rows, 1] == body, 1.0, -1.0)
        return float((sign * vertical[rows]).sum())

    def _seat(self, brick: str, seat: Seat) -> None:
        """Clutch a pressed brick to its supports. Its welds rest at the lattice pose, sub-millimetre away at most
        in the plane (the capture region) and a stud height above at most: they pull it in as the lead-in guides
        a pressed real brick. That pull fights the stud contacts it crosses, loading every connection of the
        structure below for a few milliseconds: no connection is judged for PULL_IN_S after a seating (the
        press itself, not a load). While the fingers still squeeze the brick, its own connections are not
        judged until the pads let go (or SEATING_MAX_S passes)."""
        self.clutch.seat(seat.brick, ())
        for s in seat.supports:
            self._connect(brick, s)
            self.clutch.links.add(frozenset((brick, s)))
        if self.grasp_locked() == brick:
            assert self._lock_eq is not None
            self.data.eq_active[self._lock_eq] = 0
        self._lock_armed = False
        self._seating[brick] = float(self.data.time)
