"""Collision-aware Cartesian motion of the tool centre point, behind an interface that MoveIt (through
ROS 2) or cuMotion can replace.

The built-in planner checks a straight Cartesian segment: inverse kinematics at waypoints 1 cm apart,
each configuration tested against the scene (arm and held brick), then streams interpolated targets
to the backend's Cartesian controller with a smooth velocity profile and waits until the arm settles.
Tool convention (jarvis_sim.backends.base): TCP z axis out of the hand, y axis along finger travel.

Every move watches the backend's contact reflex: when the arm, hand or held brick meets more than the
reflex threshold, the backend stops the arm and the move raises `Collision` naming what was hit (what was
knocked stays knocked). `guarded_press` is the one move meant to touch: it descends until the tool feels
contact, then presses with a bounded force until the part gives, the reflex raised above that bound meanwhile.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from jarvis_sim.provenance import PlannerInfo, package_version
from jarvis_sim.quaternions import half_turn, slerp
from skills.errors import Collision, PathBlocked, Unreachable

if TYPE_CHECKING:
    from skills.context import SkillContext

WAYPOINT_SPACING_M = 0.01
SETTLE_TOLERANCE_M = 0.00015
SETTLE_MAX_S = 1.5


def top_down_quaternion(yaw: float) -> np.ndarray:
    """TCP orientation (w, x, y, z) pointing down with the fingers closing along world (-sin yaw, cos yaw)."""
    c, s = math.cos(yaw / 2), math.sin(yaw / 2)
    return np.array([0.0, c, s, 0.0])


def _smooth(t: float) -> float:
    return t * t * (3 - 2 * t)


def raise_on_collision(ctx: SkillContext) -> None:
    """Raise Collision when the backend's contact reflex stopped the arm since the last check."""
    event = ctx.backend.collision_event()
    if event is None:
        return
    part, obstacle, force = event
    p = ctx.backend.robot_state().ee_position
    raise Collision(
        f"the contact reflex stopped the arm: {part} hit {obstacle} with {force:.0f} N near "
        f"({p[0] * 1000:.0f}, {p[1] * 1000:.0f}, {p[2] * 1000:.0f}) mm. What was hit may have moved: observe() "
        "again, and travel above the structure (not through it)."
    )


def step_watching(ctx: SkillContext, n: int = 1) -> None:
    """Step the backend n ticks, raising Collision as soon as the contact reflex fires."""
    for _ in range(n):
        ctx.backend.step(1)
        raise_on_collision(ctx)


PRESS_MAX_N = 40.0  # the press bound a skill may ask for (the Franka hand's fingers hold 70 N together)
# The force estimate's noise is 0.035 N RMS a reading (the Panda datasheet; jarvis_sim's wrist_sensor.py): every
# threshold below stands at least 8 of those above it, so a noisy reading neither fakes a contact nor a give
# (tests/skills/test_press_thresholds.py).
CONTACT_N = 0.3  # a guarded descent has touched when the tool feels this much upward force (a 1x1 seats at 1 N)
TARE_WINDOW = 10  # the tare is the mean of the descent's first this many readings (noise / sqrt(10))
GIVE_PULL_N = 1.0  # a seated part pulling the tool down this hard has snapped in
PRESS_STEP_M = 0.00002  # the press deepens its target this much per tick (the arm's stiffness turns it into force)
PRESS_DEPTH_MAX_M = 0.003  # nor deeper than this below the first contact
GIVE_PEAK_N = 1.5  # a give counts once the press has built up this much (a one-stud seat takes 1 N)
GIVE_DROP_FRACTION = 0.25  # ... and the force falls below this share of its peak
GIVE_DEPTH_M = 0.0012  # or the tool has gone this far down since contact (studs are 1.7 mm tall)
ARRIVED_M = 0.0001  # a guarded descent ends untouched once the tool is this close to its lowest point
# While pressing, the arm's joint stiffness lets the tool drift sideways under the vertical load (measured: 0.5 mm
# along x under a 2x6 brick's 12 N press, which carries its corners out of the 0.5 mm stud lead-in). The press
# servoes the tool back over its target: each tick the aim moves by this share of the drift, at most this far.
LATERAL_GAIN = 0.2
LATERAL_MAX_M = 0.002
# ... and yields to the sideways force it feels, a little, as an arm in Cartesian impedance does for an insertion:
# the point it servoes to moves along that force, this far per newton each tick but at most this far a tick, and
# never more than this far from the target (well inside the 0.5 mm lead-in). Under a press the top of a wall hanging
# from one stud shifts sideways, and a tool held rigidly over the target drags it back by the friction on its studs:
# in jarvis-v1 v7-00210-wall/047, 0.06 N at 60 mm broke the wall's one-stud joint at 1.9 N, before the 1x2 on top
# took its 1.96 N seating press (which statics admits). Yielding 0.1 mm, it seats and nothing breaks
# (test_skills_sim). Unbounded, the yield chased the lead-in's own centring forces (2-5 N) off the studs.
LATERAL_YIELD_M_PER_N = 0.0005
LATERAL_YIELD_STEP_M = 0.000005
LATERAL_YIELD_MAX_M = 0.00015


def guarded_press(ctx: SkillContext, bottom: np.ndarray, quaternion: np.ndarray, press_n: float,
                  speed: float = 0.005, hold_s: float = 0.05,
                  on_give: Callable[[], None] | None = None) -> tuple[float | None, float]:
    """Descend straight down toward `bottom` until contact, then press with up to `press_n` newtons, stopping
    early when what is pressed gives way (a brick seating: the force falls off, or the tool sinks a stud height).

    Returns (TCP height at first contact, or None when nothing was touched down to `bottom`; the largest
    upward force felt). The reflex threshold is raised above the press bound while pressing, then restored.
    `on_give` is called the moment the press gives, before the hold (place() eases its squeeze there).
    """
    if not (0 < press_n <= PRESS_MAX_N and math.isfinite(press_n)):
        raise ValueError(f"guarded_press: press force must lie in (0, {PRESS_MAX_N}] N, got {press_n!r}")
    backend = ctx.backend
    dt = backend.control_dt
    start = backend.robot_state().ee_position.copy()
    target = start.copy()
    contact_z: float | None = None
    peak = 0.0
    waited = 0
    aim = np.array([float(bottom[0]), float(bottom[1])])  # the commanded x, y: the target plus the drift correction
    give = np.zeros(2)  # how far the tool has yielded to what it feels (see LATERAL_YIELD_M_PER_N)
    # The arm's force estimate is biased (a Panda's reads a few newtons with nothing touching) and noisy: it is
    # tared at the top of the descent, before anything touches the tool, by the mean of its first TARE_WINDOW
    # readings (one a tick, each with its own noise), as a force controller averages its zero.
    untouched: deque[np.ndarray] = deque(maxlen=TARE_WINDOW)
    tare = np.asarray(backend.tool_contact_force()[0], dtype=float)
    backend.set_contact_reflex(PRESS_MAX_N + 10.0)
    try:
        while True:
            reading = np.asarray(backend.tool_contact_force()[0], dtype=float)
            felt = reading - tare  # from what the tool touches
            force = float(felt[2])
            tool = backend.robot_state().ee_position  # one read a tick: nothing moves until the next step
            peak = max(peak, force)
            if contact_z is None and force >= CONTACT_N:
                contact_z = float(tool[2])
                target[2] = contact_z  # from where the tool is: its command runs ahead of it
            elif contact_z is None:
                if len(untouched) < TARE_WINDOW:  # then frozen: a tare that kept following the readings down would
                    untouched.append(reading)  # absorb a contact that builds up slowly (pads rubbing a neighbour)
                    tare = np.mean(untouched, axis=0)
                if target[2] <= bottom[2]:
                    if float(tool[2]) <= float(bottom[2]) + ARRIVED_M:
                        break  # the arm (which lags its target) got there without touching anything
                    waited += 1
                    if waited * dt > SETTLE_MAX_S:
                        break
                else:
                    target[2] = max(float(bottom[2]), target[2] - speed * dt)
            elif contact_z is not None:
                pressed = force >= press_n or target[2] <= contact_z - PRESS_DEPTH_MAX_M
                # A part that seats gives way under the press: the force falls off at once (studs slid into tubes).
                # Pressing on would push the pads down the seated brick and the fingertips onto whatever is beside it.
                # (In the simulator the seated part's clutch pulls it down out of the pads: the force turns negative.)
                sunk = float(tool[2]) < contact_z - GIVE_DEPTH_M
                gave = force < -GIVE_PULL_N or sunk or (peak >= GIVE_PEAK_N and force < GIVE_DROP_FRACTION * peak)
                if pressed or gave:
                    if gave:
                        target = tool.copy()
                        backend.set_ee_target(np.array([aim[0], aim[1], target[2]]), quaternion)
                        if on_give is not None:
                            on_give()
                    step_watching(ctx, max(1, round(hold_s / dt)))
                    peak = max(peak, float(backend.tool_contact_force()[0][2] - tare[2]))
                    break
                target[2] -= PRESS_STEP_M
                step = np.clip(LATERAL_YIELD_M_PER_N * felt[:2], -LATERAL_YIELD_STEP_M, LATERAL_YIELD_STEP_M)
                give = np.clip(give + step, -LATERAL_YIELD_MAX_M, LATERAL_YIELD_MAX_M)
                drift = bottom[:2] + give - tool[:2]
                aim = np.clip(aim + LATERAL_GAIN * drift, bottom[:2] - LATERAL_MAX_M, bottom[:2] + LATERAL_MAX_M)
            backend.set_ee_target(np.array([aim[0], aim[1], target[2]]), quaternion)
            step_watching(ctx, 1)
    finally:
        backend.set_contact_reflex(None)
    # Stop pushing: hold where the tool is now.
    backend.set_ee_target(backend.robot_state().ee_position.copy(), quaternion)
    backend.step(1)
    return contact_z, peak


class MotionPlanner(ABC):
    """Moves the tool centre point to a pose without hitting the scene."""

    @abstractmethod
    def move_to(
        self,
        ctx: SkillContext,
        position: np.ndarray,
        quaternion: np.ndarray,
        speed: float = 0.2,
        check_collisions: bool = True,
        ignore: tuple[str, ...] = (),
    ) -> None:
        """Move, or raise Unreachable / PathBlocked before moving at all."""

    @abstractmethod
    def describe(self) -> PlannerInfo:
        """Name, version and settings, recorded in every episode that moved with this planner."""


class CartesianPlanner(MotionPlanner):
    """Straight-line Cartesian segments checked by IK and collision queries (see the module docstring)."""

    def describe(self) -> PlannerInfo:
        """The built-in planner: its waypoint spacing and settle criterion."""
        return PlannerInfo(name="cartesian", version=package_version("jarvis"),
                           settings={"waypoint_spacing_m": WAYPOINT_SPACING_M, "settle_tolerance_m": SETTLE_TOLERANCE_M,
                                     "settle_max_s": SETTLE_MAX_S})

    def plan(
        self, ctx: SkillContext, position: np.ndarray, quaternion: np.ndarray, check_collisions: bool, ignore: tuple[str, ...]
    ) -> list[np.ndarray]:
        """Joint configurations along the segment; raises before any motion when one fails."""
        backend = ctx.backend
        state = backend.robot_state()
        p0, q_rot0 = state.ee_position.copy(), state.ee_quaternion.copy()
        n = max(1, math.ceil(float(np.linalg.norm(position - p0)) / WAYPOINT_SPACING_M))
        q = state.joint_positions.copy()
        path = []
        for i in range(1, n + 1):
            t = i / n
            p = p0 + t * (position - p0)
            rot = slerp(q_rot0, quaternion, t)
            sol = backend.solve_ik(p, rot, q)
            if sol is None:  # a far seed can stall the solver: retry from the home configuration
                sol = backend.solve_ik(p, rot, np.asarray(backend.home_q, dtype=float))
            if sol is None:
                raise Unreachable(
                    f"the arm cannot reach ({p[0] * 1000:.0f}, {p[1] * 1000:.0f}, {p[2] * 1000:.0f}) mm with the gripper "
                    "pointing down; choose a target closer to the robot base or lower."
                )
            if check_collisions:
                hits = backend.collisions(sol, ignore=ignore)
                if hits:
                    a, b = hits[0]
                    raise PathBlocked(
                        f"moving there would make {a} hit {b} near ({p[0] * 1000:.0f}, {p[1] * 1000:.0f}, "
                        f"{p[2] * 1000:.0f}) mm; approach from higher up or pick another target."
                    )
            path.append(sol)
            q = sol
        return path

    def move_to(
        self,
        ctx: SkillContext,
        position: np.ndarray,
        quaternion: np.ndarray,
        speed: float = 0.2,
        check_collisions: bool = True,
        ignore: tuple[str, ...] = (),
    ) -> None:
        """Plan, then stream targets to the controller and wait for it to settle."""
        position = np.asarray(position, dtype=float)
        quaternion = np.asarray(quaternion, dtype=float)
        try:
            self.plan(ctx, position, quaternion, check_collisions, ignore)
        except Unreachable:
            # The parallel gripper (and every brick it holds) is symmetric under a half turn about the tool
            # axis: the turned tool pose often keeps joint 7 inside its limits.
            quaternion = half_turn(quaternion)
            self.plan(ctx, position, quaternion, check_collisions, ignore)
        backend = ctx.backend
        state = backend.robot_state()
        p0, r0 = state.ee_position.copy(), state.ee_quaternion.copy()
        dist = float(np.linalg.norm(position - p0))
        rot_angle = 2 * math.acos(min(1.0, abs(float(np.dot(r0, quaternion)))))
        duration = max(dist / max(speed, 1e-3), rot_angle / 1.5, 0.05)
        steps = max(1, math.ceil(duration / backend.control_dt))
        for k in range(1, steps + 1):
            t = _smooth(k / steps)
            backend.set_ee_target(p0 + t * (position - p0), slerp(r0, quaternion, t))
            step_watching(ctx, 1)
        settle_steps = math.ceil(SETTLE_MAX_S / backend.control_dt)
        for _ in range(settle_steps):
            if float(np.linalg.norm(backend.robot_state().ee_position - position)) < SETTLE_TOLERANCE_M:
                break
            step_watching(ctx, 1)


PARK_SWING_RAD = -1.3  # joint 1 turned this far from home swings the arm out of the top camera's view


def park_configuration(home_q: np.ndarray) -> np.ndarray:
    """The arm's parked configuration: home, swung sideways (to -y) so the top camera sees the table."""
    q = np.asarray(home_q, dtype=float).copy()
    q[0] += PARK_SWING_RAD
    return q


def move_joints(ctx: SkillContext, q_target: np.ndarray, speed_rad_s: float = 1.0, tolerance: float = 0.01) -> None:
    """Joint-space move with linear interpolation, then wait until every joint is within tolerance."""
    backend = ctx.backend
    q0 = backend.robot_state().joint_positions.copy()
    q_target = np.asarray(q_target, dtype=float)
    span = float(np.max(np.abs(q_target - q0)))
    steps = max(1, math.ceil(span / speed_rad_s / backend.control_dt))
    for k in range(1, steps + 1):
        backend.set_joint_targets(q0 + _smooth(k / steps) * (q_target - q0))
        step_watching(ctx, 1)
    for _ in range(math.ceil(SETTLE_MAX_S / backend.control_dt)):
        if float(np.max(np.abs(backend.robot_state().joint_positions - q_target))) < tolerance:
            break
        step_watching(ctx, 1)


def leave_park(ctx: SkillContext, tolerance_rad: float = 0.3) -> None:
    """From the parked configuration, swing back to home in joint space (a Cartesian line from the side of
    the table passes too close to the robot base to be followed)."""
    home = np.asarray(ctx.backend.home_q, dtype=float)
    q = ctx.backend.robot_state().joint_positions
    if float(np.max(np.abs(q - park_configuration(home)))) < tolerance_rad:
        move_joints(ctx, home)
