"""The clutch's loads: what each connection carries, and which break (clutch.py, lego/statics.py)."""

from __future__ import annotations

from dataclasses import replace

import mujoco
import numpy as np
import scipy.sparse
import scipy.sparse.linalg

from jarvis_sim.backends.mujoco.clutch import (
    GROUND,
    capacity_of,
    utilisation,
)
from jarvis_sim.backends.mujoco.clutch_welds import PULL_IN_S
from jarvis_sim.backends.mujoco.core import MujocoCore
from jarvis_sim.backends.mujoco.scene import CLUTCH_TORQUESCALE
from jarvis_sim.lego.statics import GROUND as GROUND_INDEX
from jarvis_sim.lego.statics import admissible

# No welds loaded (most ticks: a sleeping structure's welds have no rows): empty, so sharing them is safe.
_NO_EQS = np.zeros(0, dtype=int)
_NO_ROWS = np.zeros((0, 3))
ON_PLANE_M = 0.002  # a loose cluster whose bricks are this far off their stud planes is not analysed on them


class ClutchLoads(MujocoCore):
    """Connection loads, rest loads, breaking and admissibility (mixed into MujocoBackend)."""

    def _clutch_loads(self, data: mujoco.MjData | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Active clutch welds with constraint rows this step: (eq ids, external force on the brick N, external
        moment about the engaged centre N m), world frame.

        Calibrated against known wrenches: a weld's three translational rows hold minus the external force on
        its first body, its three rotational rows minus twice the external torque about the anchor over the weld's
        torque scale (scene.CLUTCH_TORQUESCALE: MuJoCo scales those rows' Jacobian by it).
        """
        d = self.data if data is None else data
        # MuJoCo lays out the equality rows first (d.ne of them): no scan of the whole constraint array. This runs
        # every tick, and while the structure sleeps its welds have no rows at all.
        ne = d.ne
        if ne == 0 or not self._partner:
            return _NO_EQS, _NO_ROWS, _NO_ROWS
        ids = d.efc_id[:ne]
        rows = np.flatnonzero(self._is_clutch[ids])
        if not len(rows):
            return _NO_EQS, _NO_ROWS, _NO_ROWS
        ids = ids[rows]
        f = d.efc_force[rows].reshape(-1, 6)
        eqs = ids[::6]
        force = -f[:, :3]
        lever = self._capacity[eqs, 4:7]
        # lever x force, written out as np.cross computes it (same products, same order), without its wrapper's cost.
        cross = np.stack([lever[:, 1] * force[:, 2] - lever[:, 2] * force[:, 1],
                          lever[:, 2] * force[:, 0] - lever[:, 0] * force[:, 2],
                          lever[:, 0] * force[:, 1] - lever[:, 1] * force[:, 0]], axis=1)
        moment = -0.5 * CLUTCH_TORQUESCALE * f[:, 3:] + cross
        return eqs, force, moment

    def _net_loads(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """_clutch_loads less each weld's load at rest (see _record_rest_loads): what actions add to a connection."""
        eqs, force, moment = self._clutch_loads()
        if not len(eqs):
            return eqs, force, moment
        rest = self._rest_load[eqs]
        return eqs, force - rest[:, :3], moment - rest[:, 3:]

    def _record_rest_loads(self, skip_clusters: set[int] | None = None, data: mujoco.MjData | None = None) -> None:
        """Take the self-stress the awake welds carry now as their rest loads: what is subtracted from their loads.

        A structure's welds carry its weight and the self-stress of their loops (a brick on two supports, a wall in
        running bond): soft welds split forces around a loop by their softness, and the split reached 1-1.5x the
        capacity of 1-wide bricks in resting structures (measured on jarvis-v1 with 0.98 N per stud: 22 connections
        of a 159-brick random stack broke while it settled). That self-stress is an artefact of the welds; the
        weight is not. The self-stress is exactly the part of the welds' wrenches that is in equilibrium with no
        load at all, the projection of their loads on the cycles of the cluster's connection graph
        (`_self_stress`); the part that carries the weight (in a tree of connections, all of it) stays in the load
        each connection is judged on.
        """
        eqs, force, moment = self._clutch_loads(data)
        if skip_clusters:
            bricks = [self._brick_index[self._slot_brick[int(e)]] for e in eqs]
            keep = ~np.isin(self._brick_cluster[bricks], list(skip_clusters))
            eqs, force, moment = eqs[keep], force[keep], moment[keep]
        self._rest_load[eqs] = self._self_stress(eqs, force, moment, self.data if data is None else data)

    def _self_stress(self, eqs: np.ndarray, force: np.ndarray, moment: np.ndarray, d: mujoco.MjData) -> np.ndarray:
        """The self-stress in these welds' loads (rows of _clutch_loads): per welded cluster, the wrenches (about one
        point) projected on the null space of the equilibrium matrix, whose columns are the welds (+1 at the upper
        brick, -1 at the lower one; the ground is fixed), i.e. on the loops of the connection graph."""
        out = np.zeros((len(eqs), 6))
        if not len(eqs):
            return out
        upper = self._eq_brick[eqs]
        lower = np.array([-1 if self._partner.get(int(e), GROUND) == GROUND else self._brick_index[self._partner[int(e)]]
                          for e in eqs])
        clusters = self._brick_cluster[upper]
        for c in np.unique(clusters):
            idx = np.flatnonzero(clusters == c)
            nodes = np.unique(np.concatenate([upper[idx], lower[idx][lower[idx] >= 0]]))
            if len(idx) < 2:
                continue
            grounded = bool((lower[idx] < 0).any())
            if len(idx) - len(nodes) + (0 if grounded else 1) <= 0:
                continue  # a tree of connections: no loops, no self-stress
            row = {int(k): r for r, k in enumerate(nodes)}
            has_lower = lower[idx] >= 0
            rows = [row[int(k)] for k in upper[idx]] + [row[int(k)] for k in lower[idx][has_lower]]
            cols = np.concatenate([np.arange(len(idx)), np.flatnonzero(has_lower)])
            vals = np.concatenate([np.ones(len(idx)), -np.ones(int(has_lower.sum()))])
            b = scipy.sparse.csr_array((vals, (rows, cols)), shape=(len(nodes), len(idx)))
            # The part of the loads in the row space of b is b.T x with (b b.T) x = b y: b b.T is the connection
            # graph's Laplacian, with the ground held fixed (sparse, solved directly: a dense pseudo-inverse of a
            # 150-brick cluster took over a second). A cluster off the ground floats: its Laplacian is singular by
            # its rigid motion, which a tiny diagonal takes out.
            lap = (b @ b.T).tocsc()
            if not grounded:
                lap = lap + 1e-9 * scipy.sparse.identity(len(nodes), format="csc")
            centres = d.xpos[self._brick_body[upper[idx]]] - self._capacity[eqs[idx], 4:7]
            arm = centres - centres.mean(axis=0)
            y = np.concatenate([force[idx], moment[idx] + np.cross(arm, force[idx])], axis=1)
            x = np.asarray(scipy.sparse.linalg.spsolve(lap, b @ y)).reshape(len(nodes), 6)
            stress = y - b.T @ x
            f, m = stress[:, :3], stress[:, 3:]
            out[idx] = np.concatenate([f, m - np.cross(arm, f)], axis=1)
        return out

    def _record_pending_rest(self) -> None:
        """Record the rest loads of clusters that took a seated brick, once nothing outside loads them (a press
        still on, or the hand still touching, would be taken for the structure's own load)."""
        if not self._rest_pending or self._seating:
            return
        self._sync_collision_groups()
        loaded = self._externally_loaded_clusters()
        if any(int(self._brick_cluster[self._brick_index[b]]) in loaded for b in self._rest_pending):
            return
        self._rest_pending.clear()
        self._record_rest_loads(skip_clusters=loaded)

    def _break_overloaded(self, load_scale: float = 1.0) -> None:
        """Break every connection loaded past its capacity (clutch.py: pull and prying moments interact linearly)."""
        t = float(self.data.time)
        if self._settling or any(t - since < PULL_IN_S for since in self._seating.values()):
            return
        eqs, force, moment = self._net_loads()
        if not len(eqs):
            return
        use = load_scale * self._use(eqs, force, moment)
        over = np.flatnonzero(use > 1.0)
        if not len(over):
            return
        # While a brick is being seated and the pads still squeeze it, its welds draw it the last fraction of a
        # millimetre against rigid pads: the fight loads its whole cluster, where a real brick's lead-in and the pads'
        # rubber absorb the centring. Its cluster is judged once the pads let go.
        seating = {int(self._brick_cluster[self._brick_index[b]]) for b in self._seating}
        prev, self._overloaded = self._overloaded, set()
        breaking: dict[int, list[int]] = {}
        for k in over:
            eq = int(eqs[k])
            if self._slot_brick[eq] in self._seating or eq not in self._partner:
                continue
            cluster = int(self._brick_cluster[self._brick_index[self._slot_brick[eq]]])
            if cluster in seating:
                continue
            # Overloaded for two ticks running (20 ms): the soft welds ring for a tick when a cluster wakes or a
            # contact starts, and a single-tick spike is that ringing, not a load.
            self._overloaded.add(eq)
            if eq in prev:
                breaking.setdefault(cluster, []).append(eq)
        # A joint over its capacity in the welds' split of the load breaks only if no other split could carry it
        # (jarvis_sim/lego/statics.py); decided for every cluster before any breaks.
        doomed = [eq for cluster, over_eqs in breaking.items() if not self._cluster_admissible(cluster, load_scale)
                  for eq in over_eqs]
        for eq in doomed:
            self._disconnect(eq)

    def _cluster_admissible(self, cluster: int, load_scale: float = 1.0) -> bool:
        """Whether a welded cluster, standing still, carries its weight and what is added to it now
        (jarvis_sim/lego/statics.py): every contact from outside it (the robot, other bricks, the table) and any
        applied force, the contacts multiplied by `load_scale` as in _break_overloaded.

        The loads come from what touches the cluster, not from its welds: the welds' split of them is what is in
        question, and their readings carry the ringing of soft constraints (measured on jarvis-v1's house: pure
        moments of 40 mN m on bricks nothing touched, while 3 N was pressed on the wall's top). The weight counts,
        as it does in each joint's load (only the welds' self-stress is subtracted: _record_rest_loads): a structure
        that cannot carry itself does not stand.
        """
        m, d = self.model, self.data
        members = np.flatnonzero(self._brick_cluster == cluster)
        local = np.full(len(self._brick_ids), -1, dtype=np.int64)
        local[members] = np.arange(len(members))
        joints = []
        for eq in self._partner:
            joint = self._joint_plane[eq]
            if local[joint.upper] < 0:
                continue
            lower = GROUND_INDEX if joint.lower == GROUND_INDEX else int(local[joint.lower])
            if joint.lower != GROUND_INDEX and lower < 0:
                return False  # clusters changed since they were grouped: no consistent structure to analyse
            joints.append(replace(joint, upper=int(local[joint.upper]), lower=lower))
        if not joints:
            return False
        bodies = self._brick_body[members]
        # The analysis is on the lattice's stud planes. A cluster welded to the baseplate stands on them (its soft welds
        # sag a millimetre or two under a press); one resting on the table, or knocked or carried off, must be on them.
        grounded = any(j.lower == GROUND_INDEX for j in joints)
        sag = np.abs(d.xpos[bodies[[j.upper for j in joints]], 2] - [j.z for j in joints]).max()
        if not grounded and sag > ON_PLANE_M:
            return False
        centre = np.mean([j.centre for j in joints], axis=0)  # moments about the cluster's middle: well conditioned
        # Its weight (MuJoCo's masses, at their centres) and what is applied to it: the structure carries both.
        loads = np.zeros((len(members), 6))
        weight = m.body_mass[bodies][:, None] * m.opt.gravity[None, :]
        loads[:, :3] = weight
        loads[:, 3:] = np.cross(d.xipos[bodies] - centre, weight)
        applied = d.xfrc_applied[bodies]
        loads[:, :3] += applied[:, :3]
        loads[:, 3:] += np.cross(d.xipos[bodies] - centre, applied[:, :3]) + applied[:, 3:]
        if d.ncon:
            k = self._geom_brick[d.contact.geom[: d.ncon]]
            side = np.where(k >= 0, local[np.maximum(k, 0)], -1)
            wrench = np.zeros(6)
            for i in np.flatnonzero((side[:, 0] >= 0) != (side[:, 1] >= 0)):  # one side in the cluster, one outside
                mujoco.mj_contactForce(m, d, int(i), wrench)
                frame = d.contact.frame[i].reshape(3, 3)
                on_second = frame.T @ wrench[:3]  # the contact pushes its second geom along the normal
                a = int(side[i, 1] if side[i, 1] >= 0 else side[i, 0])
                f = load_scale * (on_second if side[i, 1] >= 0 else -on_second)
                loads[a, :3] += f
                loads[a, 3:] += np.cross(d.contact.pos[i] - centre, f)
        return admissible(joints, loads, centre, self.config.contact_point_clutch_n)

    def _externally_loaded_clusters(self) -> set[int]:
        """Welded clusters touched this step by something outside them: the robot, a loose brick, another cluster.

        A cluster they touch is not at rest: its rest loads (the welds' self-stress) are recorded once nothing
        outside loads it (_record_pending_rest).
        """
        d = self.data
        out: set[int] = set()
        # A force applied to a brick's body (a perturbation, a test's push) loads its cluster from outside too.
        pushed = np.flatnonzero(np.abs(d.xfrc_applied[self._brick_body]).sum(axis=1) > 0)
        out.update(int(c) for c in self._brick_cluster[pushed] if c >= 0)
        if d.ncon == 0:
            return out
        geoms = d.contact.geom[: d.ncon]
        k = self._geom_brick[geoms]
        cluster = np.where(k >= 0, self._brick_cluster[np.maximum(k, 0)], -4)  # -4: any other body (an obstacle)
        cluster[self._geom_robot[geoms]] = -3
        cluster[self._geom_support[geoms]] = -2
        # A contact loads the cluster on each side from outside when the other side is the robot or another brick
        # (loose: -1, or another cluster); the table and the baseplate (-2) only carry what stands on them.
        for a, b in ((0, 1), (1, 0)):
            other = cluster[:, b]
            mask = (cluster[:, a] >= 0) & (other != cluster[:, a]) & (other != -2)
            out.update(int(c) for c in cluster[mask, a])
        return out

    def _use(self, eqs: np.ndarray, force: np.ndarray, moment: np.ndarray) -> np.ndarray:
        """Load over capacity of each connection (rows of _net_loads; above 1 it breaks).

        A brick on one support is judged on that connection (clutch.py). A brick on several supports is a rigid
        body on all their studs, as StableLego analyses it: it is pried off only by the moment on all its studs
        together, about the far edge of all of them, so each of its connections is judged on its own pull and on the
        brick's combined load. Judged one by one, the welds' moments at a brick's separate one-stud joints are mostly
        the compatibility moments of a soft, statically indeterminate weld network, not prying (measured on jarvis-v1:
        1 N pressed on the top of a house wall of 1-wide bricks loaded a one-stud joint eleven bricks below to
        1.65 x its capacity per newton, and 104 connections broke).
        """
        cap = self._capacity[eqs]
        use = utilisation(force, moment, cap)
        bricks = self._eq_brick[eqs]
        ids, counts = np.unique(bricks, return_counts=True)
        several = ids[counts > 1]
        if not len(several):
            return use
        # Every brick on several supports at once (this runs every tick while a structure is awake): its rows grouped
        # together in their order, summed row after row by reduceat as sum(axis=0) sums them brick by brick.
        combined_rows = [self._brick_capacity(self._brick_ids[int(k)]) for k in several.tolist()]
        judged = [k for k, row in zip(several.tolist(), combined_rows, strict=True) if row is not None]
        if not judged:
            return use
        combined = np.array([row for row in combined_rows if row is not None])
        ks = np.flatnonzero(np.isin(bricks, judged))
        ks = ks[np.argsort(bricks[ks], kind="stable")]
        which = np.searchsorted(np.asarray(judged), bricks[ks])  # several (hence judged) is sorted
        starts = np.flatnonzero(np.r_[True, which[1:] != which[:-1]])
        total = np.add.reduceat(force[ks], starts, axis=0)
        # Each row's moment is about its own engaged centre (brick origin - offset): move it to the combined one.
        lever = combined[which, 4:7] - cap[ks, 4:7]
        about = np.add.reduceat(moment[ks] + np.cross(lever, force[ks]), starts, axis=0)
        whole = utilisation(total, about, combined)
        pull = np.maximum(force[ks, 2], 0.0) / cap[ks, 1]
        use[ks] = np.maximum(pull, whole[which])
        return use

    def _brick_capacity(self, brick: str) -> np.ndarray | None:
        """The capacity row (as _capacity's) of all of a brick's engaged studs together, or None if it is not seated."""
        if brick in self._brick_caps:
            return self._brick_caps[brick]
        seat = self.clutch.seated.get(brick)
        if seat is None:
            return None
        cells = sorted({c for eq, s in self._partner.items() if self._slot_brick[eq] == brick
                        for c in self.clutch.engaged_cells(seat, s)})
        if not cells:
            return None
        pos, _ = self._lattice_pose(brick)
        cap = capacity_of(seat.cells(), cells, self._task().workspace.lattice_origin, float(pos[2]),
                          self.config.contact_point_clutch_n)
        row = np.array([cap.studs, cap.pull_n, cap.moment_x_nm, cap.moment_y_nm, *(pos - np.asarray(cap.centre)),
                        cap.half_x_m, cap.half_y_m])
        self._brick_caps[brick] = row
        return row

    def brick_load(self, brick_id: str) -> list[tuple[str, float]]:
        """(support, load as a fraction of capacity) of each connection of a brick this step (diagnostics, tests)."""
        eqs, force, moment = self._net_loads()
        use = self._use(eqs, force, moment)
        return [(self._partner[int(eq)], float(use[k])) for k, eq in enumerate(eqs)
                if self._slot_brick.get(int(eq)) == brick_id and int(eq) in self._partner]
