"""Turn a TaskSpec into an MjSpec: table, optional baseplate, initial structure, loose bricks, Panda, cameras.

Every brick is a free body: the initial structure can be knocked, pried apart and driven through like a
real one. Each brick carries a few clutch welds declared inactive (one per connection it can make: its
supports in the task's assemblies, at least two); the backend aims them at what the brick is pressed onto
and fills their relative poses at run time (see clutch.py). What keeps a large structure cheap: island
sleeping (a welded structure at rest has no contacts and no constraint rows until something touches it), and
bitmasks that keep welded bricks from colliding with each other (collision_groups.py). What a sleeping structure
still costs (measured, 150 bricks, MuJoCo 4.0): the broadphase bounds every geom of every body each step, asleep or
not (about half of mj_step; hence the baseplate on the world body), and mj_wakeEquality walks the sleeping island
once per weld (about a seventh, growing with the square of the structure).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from jarvis_sim.backends.camera_framing import camera_framing
from jarvis_sim.backends.mujoco.bricks import GROUP_VISUAL, add_brick_body, add_part_geoms
from jarvis_sim.backends.mujoco.panda import HAND_BODY, build_panda
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import brick_pose_in_world, yaw_quaternion
from jarvis_sim.lego.catalog import part
from jarvis_sim.lego.clutch_model import CONTACT_POINT_CLUTCH_N, SEAT_PRESS_N
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.variation import loose_bricks

BASEPLATE_PART = "3811"
BASEPLATE_COLOR = 2  # green
TABLE_RGBA = (0.80, 0.74, 0.64, 1.0)
# The table top's sliding friction: the static coefficient BrickSim's Franka assembly demo gives its tabletop
# (github.com/intelligent-control-lab/BrickSim, demos/demo_assembly.py at 49f255a: static_friction=1.0,
# dynamic_friction=0.8). A LEGO simulator's setting, not a measurement: no measured coefficient of ABS on a table top
# (wood, laminate) was found, and the same simulator's in-hand demo gives its tabletop 5.0. MuJoCo has one
# coefficient, the limit of its friction cone, so the static one. Bricks slide on the table at this, the larger of
# the two geoms' coefficients (bricks.py).
TABLE_FRICTION = 1.0
TOP_CAMERA = "top"
BASEPLATE_GEOM_PREFIX = "baseplate/"  # names of the baseplate's geoms (on the world body: see build_scene)
SIDE_CAMERA = "side"


class SimConfig(BaseModel):
    """Physics, control and camera settings of the MuJoCo backend (measured defaults: notes/mujoco-lego.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    timestep_s: float = Field(0.002, gt=0, le=0.002, description="Physics step; 1-2 ms stays stable.")
    control_dt_s: float = Field(0.01, gt=0, description="One control tick (controller update, clutch checks).")
    impratio: float = Field(10.0, gt=0, description="Friction-to-normal impedance ratio (no slip in grasps).")
    sleep: bool = Field(True, description="Island sleeping: bodies at rest cost nothing.")
    settle_s: float = Field(0.3, ge=0, description="Simulated time run after load/reset so loose bricks rest.")
    image_width: int = Field(640, ge=16)
    image_height: int = Field(480, ge=16)
    top_camera_height_m: float = Field(0.8, gt=0.2, description="Height of the top-down camera over the table.")
    top_camera_fovy_deg: float = Field(45.0, gt=5, lt=120)
    side_camera: bool = Field(True, description="Add an oblique view from the front.")
    finger_speed_m_s: float = Field(0.05, gt=0, description="Speed of each finger's set-point (the Franka hand "
                                    "moves its fingers at up to 0.1 m/s).")
    contact_point_clutch_n: float = Field(
        CONTACT_POINT_CLUTCH_N, gt=0,
        description="Clutch capacity per stud-tube contact point (N): StableLego's T = 100 gf (arXiv:2402.10711; "
        "3 points per stud under a 2-wide brick, 4 under a 1-wide one: jarvis_sim/lego/clutch_model.py).",
    )
    seat_press_n: float = Field(
        SEAT_PRESS_N, gt=0,
        description="Downward press per connection (N) that seats a brick within the capture region (BrickSim, "
        "arXiv:2603.16853: a connection registers with >= 1 N of press); a figure of its own, below the capacity.",
    )
    contact_reflex_n: float = Field(
        20.0, gt=0,
        description="Contact reflex: an external force on the arm, hand or held brick above this stops the "
        "motion (Franka's libfranka examples set 20 N Cartesian collision thresholds; see arm_control.py).",
    )


@dataclass(frozen=True)
class SceneLayout:
    """Where the scene's parts went: brick ids by kind, the baseplate pose, the camera targets."""

    initial_ids: tuple[str, ...]
    action_ids: tuple[str, ...]  # every loose brick: the action bricks, then the distractors
    baseplate_origin: tuple[float, float, float] | None
    workspace_center: tuple[float, float]


GRASP_LOCK_EQ = "grasp_lock"


def clutch_eq_name(brick_id: str, slot: int) -> str:
    """Name of a brick's (initially inactive) clutch weld number `slot`."""
    return f"clutch/{brick_id}/{slot}"


# The clutch welds' impedance: near-hard (0.1 N must not stretch one visibly). Their time constant is twice the
# physics step, the stiffest MuJoCo keeps stable (below it, with its safety clamp off, a 1x1 post blew up within
# 60 ms), and 0.9999 is the largest impedance MuJoCo accepts (mjMAXIMP).
CLUTCH_SOLIMP = (0.9999, 0.9999, 0.001, 0.5, 2.0)

# The clutch welds' torque scale (eq_data[10]). What is left of a weld's compliance at that impedance is its
# regulariser R = (1 - d) / d * invweight0: it scales with the bricks' inverse inertia, not with the rows' real
# weight, so a 0.38 g 1x1 post's rotation is soft (its invweight0 is 2.2e8 per kg m^2). The torque scale multiplies
# the rotational rows' residual and Jacobian but not R: their steady-state give under a moment falls as 1 / scale^2,
# while the reference dynamics (time constant, damping) and so the stability stay as they are. A 1x8 plate on a
# 1x1 post loaded to a third of its capacity droops 0.78 deg at scale 1 (2 ms step), 0.195 at 2, 0.049 at 4,
# 0.0078 at 10 (measured, tests/jarvis_sim/backends/test_clutch_weight.py; at scale 1 and a 1 ms step, 0.195).
# 2 gives at the default 2 ms step what a 1 ms step gave at scale 1, without halving the step. At 4, a hand gripping
# a seated brick a fifth of a millimetre off its centre pried the structure below harder through the stiffer joints:
# two tests that pick a seated brick back off its support failed (the pull tore the support loose too, and the
# fingers then met it).
CLUTCH_TORQUESCALE = 2.0


def clutch_solref(timestep_s: float) -> tuple[float, float]:
    """The clutch welds' (and the grasp lock's) solref at this physics step: time constant 2 steps, critically
    damped."""
    return (2.0 * timestep_s, 1.0)


def clutch_slots(task: TaskSpec) -> dict[str, int]:
    """How many clutch welds each brick carries: one per stud cell of its footprint, the most supports it can take
    (each cell over a different brick below). Sized from the bricks alone, never from the task's target: the
    physics must not know where a brick is meant to go."""
    bricks = [(b.id, b.part) for b in task.initial] + [(a.id, a.part) for a in loose_bricks(task)]
    return {bid: part(p).width * part(p).depth for bid, p in bricks}


def _camera_quat_looking_down(image_up_yaw: float) -> list[float]:
    """A MuJoCo camera (looks along its -z) pointing straight down, its image-up axis at this world yaw."""
    # Camera y (image up) = (cos a, sin a, 0); camera x (image right) = y rotated by -90 deg.
    a = image_up_yaw - math.pi / 2
    return [math.cos(a / 2), 0.0, 0.0, math.sin(a / 2)]


def _look_at_quat(eye: np.ndarray, target: np.ndarray) -> list[float]:
    """MuJoCo camera orientation looking from eye to target with world z up in the image."""
    fwd = target - eye
    fwd /= np.linalg.norm(fwd)
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    mat = np.stack([right, up, -fwd], axis=1)
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, mat.reshape(-1))
    return [float(v) for v in q]


def baseplate_cells(task: TaskSpec) -> tuple[int, int, int, int]:
    """Lattice cells (x0, y0, x1, y1; upper bounds excluded) of the 32x32 baseplate centred on the build."""
    bricks = task.target_assembly
    x0, y0, x1, y1 = bricks.footprint_bounds() if len(bricks) else (0, 0, 1, 1)
    n = part(BASEPLATE_PART).width
    cx = (x0 + x1) // 2 - n // 2
    cy = (y0 + y1) // 2 - n // 2
    return cx, cy, cx + n, cy + n


def _baseplate_origin(task: TaskSpec) -> tuple[float, float, float]:
    """World position of the baseplate's bottom-face centre."""
    x0, y0, x1, y1 = baseplate_cells(task)
    ox, oy, oz = task.workspace.lattice_origin
    p = u.STUD_PITCH_M
    return (ox + (x0 + x1) / 2 * p, oy + (y0 + y1) / 2 * p, oz - part(BASEPLATE_PART).height_m)


def build_scene(task: TaskSpec, config: SimConfig) -> tuple[mujoco.MjSpec, SceneLayout]:
    """The full MjSpec of a task's workspace, uncompiled."""
    spec = mujoco.MjSpec()
    spec.modelname = f"jarvis_{task.id}"
    spec.compiler.degree = False
    opt = spec.option
    opt.timestep = config.timestep_s
    opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    opt.impratio = config.impratio
    if config.sleep:
        opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_SLEEP)
    spec.visual.global_.offwidth = max(config.image_width, 640)
    spec.visual.global_.offheight = max(config.image_height, 480)
    spec.visual.quality.shadowsize = 0
    # Software GL draw time scales with triangles: a 4.8 mm stud needs few slices.
    spec.visual.quality.numslices = 12
    spec.visual.quality.numstacks = 1
    # Soft, low-specular lighting: a top-down camera under a spot light otherwise sees glare on the table.
    spec.visual.headlight.ambient = [0.4, 0.4, 0.4]
    spec.visual.headlight.diffuse = [0.35, 0.35, 0.35]
    spec.visual.headlight.specular = [0.05, 0.05, 0.05]
    spec.stat.extent = 1.5
    spec.stat.center = [0.4, 0.0, 0.2]

    matte = spec.add_material()
    matte.name = "matte"
    matte.specular = 0.05
    matte.shininess = 0.1
    world = spec.worldbody
    ws = task.workspace
    (tx0, ty0), (tx1, ty1) = ws.table_min, ws.table_max
    table = world.add_geom()
    table.name = "table"
    table.type = mujoco.mjtGeom.mjGEOM_BOX
    table.size = [(tx1 - tx0) / 2, (ty1 - ty0) / 2, 0.02]
    table.pos = [(tx0 + tx1) / 2, (ty0 + ty1) / 2, -0.02]
    table.rgba = list(TABLE_RGBA)
    table.material = "matte"
    table.friction = [TABLE_FRICTION, 0.005, 1e-4]
    table.condim = 3
    table.contype = 1
    table.conaffinity = 1

    light = world.add_light()
    light.name = "sun"
    light.pos = [0.45, 0.0, 1.6]
    light.dir = [0.0, 0.0, -1.0]
    light.castshadow = False
    light.diffuse = [0.4, 0.4, 0.4]
    light.specular = [0.05, 0.05, 0.05]
    light.type = mujoco.mjtLightType.mjLIGHT_DIRECTIONAL

    build_panda(world, spec)

    baseplate_origin = None
    if task.baseplate:
        baseplate_origin = _baseplate_origin(task)
        # The baseplate never moves, so its geoms belong to the world body rather than a static body of their own:
        # MuJoCo's broadphase bounds every geom of every other body each step (its 1,030 studs were a third of the
        # geoms), while the world's geoms sit in a precomputed bounding-volume tree. Same shapes, same contacts.
        geoms = add_part_geoms(world, BASEPLATE_PART, BASEPLATE_COLOR, detail="shell", set_mass=False,
                               pos=baseplate_origin)
        for k, g in enumerate(geoms):
            g.name = f"{BASEPLATE_GEOM_PREFIX}{k}"
            if g.group == GROUP_VISUAL and g.type == mujoco.mjtGeom.mjGEOM_BOX:
                # Its top is level 0, flush with the table top when lattice z is 0: lift the drawn plate a
                # hair so the two surfaces do not z-fight (collision geometry is unchanged).
                g.size = [g.size[0], g.size[1], g.size[2] + 0.00015]
                g.pos = [g.pos[0], g.pos[1], g.pos[2] + 0.00015]
                g.material = "matte"

    origin = ws.lattice_origin
    for b in task.initial:
        pos, quat = brick_pose_in_world(b, origin)
        add_brick_body(world, b.id, b.part, b.color, pos, quat, free=True, detail="shell")

    loose = loose_bricks(task)  # distractors are loose bricks like any other: same body, same clutch
    for t in loose:
        add_brick_body(world, t.id, t.part, t.color, (t.start.x, t.start.y, 0.0), yaw_quaternion(t.start.yaw),
                       free=True, detail="shell")

    for brick_id, n in clutch_slots(task).items():
        for k in range(n):
            eq = spec.add_equality()
            eq.name = clutch_eq_name(brick_id, k)
            eq.type = mujoco.mjtEq.mjEQ_WELD
            eq.objtype = mujoco.mjtObj.mjOBJ_BODY
            eq.name1 = brick_id
            eq.name2 = "world"
            eq.active = False
            eq.solref = list(clutch_solref(config.timestep_s))
            eq.solimp = list(CLUTCH_SOLIMP)

    if task.action_bricks:
        # The grasp lock (see MujocoBackend._grasp_tick): hand to whichever brick the fingers hold, set at run time.
        lock = spec.add_equality()
        lock.name = GRASP_LOCK_EQ
        lock.type = mujoco.mjtEq.mjEQ_WELD
        lock.objtype = mujoco.mjtObj.mjOBJ_BODY
        lock.name1 = HAND_BODY
        lock.name2 = task.action_bricks[0].target.id
        lock.active = False
        lock.solref = list(clutch_solref(config.timestep_s))
        lock.solimp = list(CLUTCH_SOLIMP)

    framing = camera_framing(task)
    center = framing.center
    top = world.add_camera()
    top.name = TOP_CAMERA
    top.pos = [center[0], center[1], config.top_camera_height_m]
    top.quat = _camera_quat_looking_down(0.0)  # image up = world +x (away from the robot)
    top.fovy = config.top_camera_fovy_deg
    if config.side_camera:
        side = world.add_camera()
        side.name = SIDE_CAMERA
        side.pos = [float(v) for v in framing.side_eye]
        side.quat = _look_at_quat(framing.side_eye, framing.side_target)
        side.fovy = framing.side_fovy_deg

    layout = SceneLayout(
        initial_ids=tuple(b.id for b in task.initial),
        action_ids=tuple(t.id for t in loose),
        baseplate_origin=baseplate_origin,
        workspace_center=center,
    )
    return spec, layout
