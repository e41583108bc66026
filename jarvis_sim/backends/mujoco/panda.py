"""A Franka Emika Panda with its parallel gripper, built as an MjSpec from Franka's published data.

Kinematics: the joint origins and axes of Franka's URDF (franka_description), which encode the
modified-DH table of the Franka documentation (d1 0.333, d3 0.316, a4 0.0825, a5 -0.0825, d5 0.384,
a7 0.088, flange d 0.107; hand rotated -45 deg about the flange axis, fingers 0.0584 m below it).
Joint limits, torque limits and link masses/inertias are Franka's published values (inertias from the
identified dynamic model, Gaz et al. 2019, diagonal part). Collision and visual shapes are capsules and
boxes sized to the real links, so nothing is downloaded. When MENAGERIE_ROOT points at a local MuJoCo
Menagerie checkout, `panda_spec(source="menagerie")` loads franka_emika_panda/panda.xml instead.

Frames: the tool-centre-point site `tcp` sits on the hand axis 0.1034 m below the flange hand frame,
between the finger pads, 10 mm above the finger tips; its z axis points out of the hand (down in a
top-down grasp) and its y axis is the finger travel direction.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import mujoco
import numpy as np

from jarvis_sim.gripper import GRIPPER_MAX_OPENING_M

JOINT_NAMES = tuple(f"panda/joint{i}" for i in range(1, 8))
ACTUATOR_NAMES = tuple(f"panda/act{i}" for i in range(1, 8))
GRIPPER_ACTUATOR = "panda/gripper"
GRIPPER_TENDON = "panda/finger_split"
FINGER_JOINTS = ("panda/finger_left", "panda/finger_right")
FINGER_PADS = ("panda/pad_left", "panda/pad_right")
TCP_SITE = "panda/tcp"
HAND_BODY = "panda/hand"

HOME_Q = np.array([0.0, -0.785398, 0.0, -2.356194, 0.0, 1.570796, 0.785398])
Q_LOWER = np.array([-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973])
Q_UPPER = np.array([2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973])
TORQUE_LIMIT = np.array([87.0, 87.0, 87.0, 87.0, 12.0, 12.0, 12.0])
KP = np.array([4500.0, 4500.0, 3500.0, 3500.0, 2000.0, 2000.0, 2000.0])
KV_RATIO = 0.1  # derivative gain as a fraction of kp: well damped with armature 0.1
FINGER_MAX_M = GRIPPER_MAX_OPENING_M / 2  # each finger travels 0-40 mm: opening 0-80 mm (jarvis_sim.gripper)
TCP_FROM_HAND_M = 0.1034
TIP_BELOW_TCP_M = 0.010
DEFAULT_GRIP_FORCE_N = 5.0
PAD_HALF_WIDTH_M = 0.0035  # LEGO fingertips: 7 mm wide pads
# The finger pads' friction. Not from a source: no measured coefficient of a Franka fingertip (or of LEGO-handling
# fingertips) on ABS was found (issue 28). The one published figure, the static coefficient BrickSim's Franka demos
# give the hand's pads (github.com/intelligent-control-lab/BrickSim at 49f255a, demos/demo_assembly.py and
# demo_inhand.py: static_friction=2.5, dynamic 2.0), is a simulator's setting, not a measurement, and with it the
# oracle no longer builds jarvis-mini (v7-00013-tower/005 scored 88.3: the pads sliding up a seated brick in a narrow
# slot carry it with them), so it is not taken. A pad holds a brick at this, the larger of the two geoms'
# coefficients (bricks.ABS_ON_ABS_FRICTION is 0.2).
PAD_FRICTION = 1.5

# (name, parent-frame position, parent-frame rpy) of joints 1..7: Franka's URDF.
_JOINT_ORIGINS: tuple[tuple[tuple[float, float, float], tuple[float, float, float]], ...] = (
    ((0.0, 0.0, 0.333), (0.0, 0.0, 0.0)),
    ((0.0, 0.0, 0.0), (-math.pi / 2, 0.0, 0.0)),
    ((0.0, -0.316, 0.0), (math.pi / 2, 0.0, 0.0)),
    ((0.0825, 0.0, 0.0), (math.pi / 2, 0.0, 0.0)),
    ((-0.0825, 0.384, 0.0), (-math.pi / 2, 0.0, 0.0)),
    ((0.0, 0.0, 0.0), (math.pi / 2, 0.0, 0.0)),
    ((0.088, 0.0, 0.0), (math.pi / 2, 0.0, 0.0)),
)

# Link masses (kg), centres of mass and diagonal inertias (kg m^2) in each link frame.
_LINK_INERTIA: tuple[tuple[float, tuple[float, float, float], tuple[float, float, float]], ...] = (
    (4.970684, (0.003875, 0.002081, -0.04762), (0.70337, 0.70661, 0.009117)),
    (0.646926, (-0.003141, -0.02872, 0.003495), (0.007962, 0.02811, 0.025995)),
    (3.228604, (0.027518, 0.039252, -0.066502), (0.037242, 0.036155, 0.01083)),
    (3.587895, (-0.05317, 0.104419, 0.027454), (0.025853, 0.019552, 0.028323)),
    (1.225946, (-0.011953, 0.041065, -0.038437), (0.035549, 0.029474, 0.008627)),
    (1.666555, (0.060149, -0.014117, -0.010517), (0.001964, 0.004354, 0.005433)),
    (0.735522, (0.010517, -0.004252, 0.061597), (0.012516, 0.010027, 0.004815)),
)

# Capsules (from, to, radius) approximating each link's housing, in the link frame.
_LINK_CAPSULES: tuple[tuple[tuple[tuple[float, float, float], tuple[float, float, float], float], ...], ...] = (
    (((0.0, 0.0, -0.19), (0.0, 0.0, -0.03), 0.06),),
    (((0.0, 0.0, -0.06), (0.0, 0.0, 0.06), 0.06), ((0.0, 0.0, 0.0), (0.0, -0.2, 0.0), 0.06)),
    (((0.0, 0.0, -0.17), (0.0, 0.0, -0.02), 0.06), ((0.0825, -0.05, 0.0), (0.0825, 0.05, 0.0), 0.055)),
    (((0.0, 0.0, -0.055), (0.0, 0.0, 0.055), 0.055), ((0.0, 0.0, 0.0), (-0.0825, 0.09, 0.0), 0.055)),
    (((0.0, 0.0, -0.25), (0.0, 0.0, -0.04), 0.05), ((0.0, 0.07, -0.2), (0.0, 0.07, -0.1), 0.03)),
    (((0.0, 0.0, -0.04), (0.0, 0.0, 0.03), 0.05), ((0.0, 0.0, 0.0), (0.088, 0.0, 0.0), 0.045)),
    (((0.0, 0.0, -0.02), (0.0, 0.0, 0.08), 0.045),),
)

ARM_RGBA = (0.92, 0.92, 0.93, 1.0)
JOINT_RGBA = (0.25, 0.25, 0.27, 1.0)
# Arm geoms collide with bricks and the table, and with each other (self-collision: bits 1 and 2); MuJoCo skips
# parent-child pairs itself; two more pairs are excluded in build_panda.
ARM_CONTYPE = 2
ARM_CONAFFINITY = 3


@dataclass(frozen=True)
class PandaNames:
    """Names in a compiled model that the backend looks up (the same for either source)."""

    joints: tuple[str, ...] = JOINT_NAMES
    actuators: tuple[str, ...] = ACTUATOR_NAMES
    gripper_actuator: str = GRIPPER_ACTUATOR
    finger_joints: tuple[str, str] = FINGER_JOINTS
    finger_pads: tuple[str, str] = FINGER_PADS
    tcp_site: str = TCP_SITE
    hand_body: str = HAND_BODY


def _rpy_quat(rpy: tuple[float, float, float]) -> list[float]:
    """Quaternion (w, x, y, z) of URDF fixed-axis roll-pitch-yaw."""
    r, p, y = rpy
    cr, sr = math.cos(r / 2), math.sin(r / 2)
    cp, sp = math.cos(p / 2), math.sin(p / 2)
    cy, sy = math.cos(y / 2), math.sin(y / 2)
    return [
        cr * cp * cy + sr * sp * sy,
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
    ]


def _capsule(body: mujoco.MjsBody, a: tuple[float, float, float], b: tuple[float, float, float], r: float,
             rgba: tuple[float, float, float, float] = ARM_RGBA) -> None:
    g = body.add_geom()
    g.type = mujoco.mjtGeom.mjGEOM_CAPSULE
    g.fromto = [*a, *b]
    g.size = [r, 0.0, 0.0]
    g.rgba = list(rgba)
    g.contype = ARM_CONTYPE
    g.conaffinity = ARM_CONAFFINITY
    g.group = 0


def _box(body: mujoco.MjsBody, name: str, half: tuple[float, float, float], pos: tuple[float, float, float],
         rgba: tuple[float, float, float, float]) -> mujoco.MjsGeom:
    g = body.add_geom()
    if name:
        g.name = name
    g.type = mujoco.mjtGeom.mjGEOM_BOX
    g.size = list(half)
    g.pos = list(pos)
    g.rgba = list(rgba)
    g.contype = ARM_CONTYPE
    g.conaffinity = ARM_CONAFFINITY
    return g


def _add_finger(hand: mujoco.MjsBody, side: Literal["left", "right"]) -> None:
    sign = 1.0 if side == "left" else -1.0
    finger = hand.add_body()
    finger.name = f"panda/finger_{side}_link"
    finger.pos = [0.0, 0.0, 0.0584]
    finger.mass = 0.015
    finger.inertia = [2.4e-6, 2.4e-6, 1.2e-6]
    finger.explicitinertial = True
    finger.gravcomp = 1.0
    j = finger.add_joint()
    j.name = f"panda/finger_{side}"
    j.type = mujoco.mjtJoint.mjJNT_SLIDE
    j.axis = [0.0, sign, 0.0]
    j.range = [0.0, FINGER_MAX_M]
    j.armature = 0.01
    j.damping = [2.0, 0.0, 0.0]
    # Upper finger (outside the grasp region) and the pad whose inner face is at the joint position. The pads
    # are LEGO fingertips, 7 mm wide (narrower than a 1x1 brick), as LEGO-handling cells mount on the Franka
    # hand: the stock 19 mm pads overhang small bricks and strike neighbours clutched beside them.
    _box(finger, "", (0.0095, 0.006, 0.012), (0.0, sign * 0.010, 0.012), JOINT_RGBA)
    pad = _box(finger, f"panda/pad_{side}", (PAD_HALF_WIDTH_M, 0.004, 0.015), (0.0, sign * 0.004, 0.040), JOINT_RGBA)
    pad.friction = [PAD_FRICTION, 0.005, 1e-4]
    pad.condim = 4
    pad.solref = [0.004, 1.0]
    pad.solimp = [0.95, 0.99, 0.0005, 0.5, 2.0]


def build_panda(parent: mujoco.MjsBody, spec: mujoco.MjSpec, base_pos: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> PandaNames:
    """Add the project's Panda (arm, hand, fingers, actuators, tcp site) under `parent`; return its names."""
    if spec.compiler.degree:
        raise ValueError("build_panda: the spec must use radians (spec.compiler.degree = False)")
    base = parent.add_body()
    base.name = "panda/link0"
    base.pos = list(base_pos)
    g = base.add_geom()
    g.type = mujoco.mjtGeom.mjGEOM_CYLINDER
    g.size = [0.085, 0.07, 0.0]
    g.pos = [0.0, 0.0, 0.07]
    g.rgba = list(ARM_RGBA)
    g.contype = ARM_CONTYPE
    g.conaffinity = ARM_CONAFFINITY

    body = base
    for k in range(7):
        child = body.add_body()
        child.name = f"panda/link{k + 1}"
        pos, rpy = _JOINT_ORIGINS[k]
        child.pos = list(pos)
        child.quat = _rpy_quat(rpy)
        mass, com, inertia = _LINK_INERTIA[k]
        child.explicitinertial = True
        child.mass = mass
        child.ipos = list(com)
        child.inertia = list(inertia)
        child.gravcomp = 1.0  # position servos sag without it (measured)
        j = child.add_joint()
        j.name = JOINT_NAMES[k]
        j.type = mujoco.mjtJoint.mjJNT_HINGE
        j.axis = [0.0, 0.0, 1.0]
        j.range = [float(Q_LOWER[k]), float(Q_UPPER[k])]
        j.armature = 0.1
        j.damping = [1.0, 0.0, 0.0]
        for a, b, r in _LINK_CAPSULES[k]:
            _capsule(child, a, b, r, JOINT_RGBA if k in (1, 3, 5) else ARM_RGBA)
        body = child

    hand = body.add_body()
    hand.name = HAND_BODY
    hand.pos = [0.0, 0.0, 0.107]
    hand.quat = _rpy_quat((0.0, 0.0, -math.pi / 4))
    hand.explicitinertial = True
    hand.mass = 0.73
    hand.ipos = [-0.01, 0.0, 0.03]
    hand.inertia = [0.001, 0.0025, 0.0017]
    hand.gravcomp = 1.0
    _box(hand, "", (0.02, 0.095, 0.028), (0.0, 0.0, 0.03), ARM_RGBA)
    _box(hand, "", (0.03, 0.03, 0.01), (0.0, 0.0, 0.005), JOINT_RGBA)
    site = hand.add_site()
    site.name = TCP_SITE
    site.pos = [0.0, 0.0, TCP_FROM_HAND_M]
    site.size = [0.003, 0.0, 0.0]
    site.rgba = [1.0, 0.2, 0.2, 0.0]
    _add_finger(hand, "left")
    _add_finger(hand, "right")

    # The base is fixed to the world, so MuJoCo's parent-child filter misses it; the wrist's capsules (links 5
    # and 7) overlap by 9 mm in folded poses near the base where the real housings clear each other (measured
    # over IK solutions across the table), which stalled the arm 2 mm short of its target.
    for first, second in (("panda/link0", "panda/link1"), ("panda/link5", "panda/link7")):
        pair = spec.add_exclude()
        pair.bodyname1 = first
        pair.bodyname2 = second

    eq = spec.add_equality()
    eq.type = mujoco.mjtEq.mjEQ_JOINT
    eq.name1 = FINGER_JOINTS[0]
    eq.name2 = FINGER_JOINTS[1]
    eq.data = [0.0, 1.0] + [0.0] * 10
    eq.solref = [0.005, 1.0]

    for k in range(7):
        act = spec.add_actuator()
        act.name = ACTUATOR_NAMES[k]
        act.target = JOINT_NAMES[k]
        act.trntype = mujoco.mjtTrn.mjTRN_JOINT
        act.gaintype = mujoco.mjtGain.mjGAIN_FIXED
        act.biastype = mujoco.mjtBias.mjBIAS_AFFINE
        act.gainprm = [float(KP[k])] + [0.0] * 9  # whole-array writes: slices of spec arrays are copies
        act.biasprm = [0.0, -float(KP[k]), -KV_RATIO * float(KP[k])] + [0.0] * 7
        act.ctrlrange = [float(Q_LOWER[k]), float(Q_UPPER[k])]
        act.ctrllimited = True
        act.forcerange = [-TORQUE_LIMIT[k], TORQUE_LIMIT[k]]
        act.forcelimited = True
    # The gripper drives the fingers' mean position through a fixed tendon: each finger gets half the force,
    # so the coupling constraint carries no squeeze. Driving one finger and coupling the other through the
    # (soft) joint equality left them 0.4 mm apart under a 2 N squeeze: a held brick sat 0.2 mm off the TCP.
    split = spec.add_tendon()
    split.name = GRIPPER_TENDON
    split.wrap_joint(FINGER_JOINTS[0], 0.5)
    split.wrap_joint(FINGER_JOINTS[1], 0.5)
    grip = spec.add_actuator()
    grip.name = GRIPPER_ACTUATOR
    grip.target = GRIPPER_TENDON
    grip.trntype = mujoco.mjtTrn.mjTRN_TENDON
    grip.gaintype = mujoco.mjtGain.mjGAIN_FIXED
    grip.biastype = mujoco.mjtBias.mjBIAS_AFFINE
    # Stiff servo saturated by forcerange: closing on a brick squeezes with the force limit.
    grip.gainprm = [2000.0] + [0.0] * 9
    grip.biasprm = [0.0, -2000.0, -40.0] + [0.0] * 7
    grip.ctrlrange = [0.0, FINGER_MAX_M]
    grip.ctrllimited = True
    # The finger coupling splits the actuator force between the two fingers: 2x the squeeze per finger.
    grip.forcerange = [-2 * DEFAULT_GRIP_FORCE_N, 2 * DEFAULT_GRIP_FORCE_N]
    grip.forcelimited = True
    return PandaNames()


def menagerie_panda_path() -> Path | None:
    """franka_emika_panda/panda.xml under MENAGERIE_ROOT, if the user has a local checkout."""
    root = os.environ.get("MENAGERIE_ROOT")
    if not root:
        return None
    path = Path(root) / "franka_emika_panda" / "panda.xml"
    return path if path.exists() else None


def arm_spec() -> mujoco.MjSpec:
    """A spec holding only the Panda on an empty world (kinematics for IK)."""
    spec = mujoco.MjSpec()
    spec.compiler.degree = False
    spec.option.timestep = 0.002
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    build_panda(spec.worldbody, spec)
    return spec


def top_down_quaternion(yaw: float) -> np.ndarray:
    """TCP orientation (w, x, y, z) pointing straight down, fingers closing along world (-sin yaw, cos yaw)."""
    # Rz(yaw) * Rx(pi): z axis down, y axis rotated by yaw.
    c, s = math.cos(yaw / 2), math.sin(yaw / 2)
    return np.array([0.0, c, s, 0.0])
