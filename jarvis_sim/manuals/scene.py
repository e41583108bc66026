"""A bricks-only MuJoCo scene for manuals: the bricks (geometry from the simulator's own brick builder),
an optional baseplate and table, lights and materials of a style, rendered offscreen.

No robot and no physics: bricks are static bodies at their lattice poses, and a step's view is made by
hiding the bricks not yet placed (MuJoCo skips geoms whose alpha is 0, in colour and in segmentation).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from jarvis_sim.manuals.gl import require_offscreen_gl

require_offscreen_gl()

import mujoco  # noqa: E402  (MUJOCO_GL must be set first)

from jarvis_sim.backends.mujoco.bricks import add_brick_body, part_rgba  # noqa: E402
from jarvis_sim.lego import units as u  # noqa: E402
from jarvis_sim.lego.assembly import LatticeBrick, brick_pose_in_world  # noqa: E402
from jarvis_sim.lego.catalog import part  # noqa: E402
from jarvis_sim.manuals.framing import ViewPoint, box_corners  # noqa: E402
from jarvis_sim.manuals.styles import ManualStyle  # noqa: E402

BASEPLATE_PART = "3811"
BASEPLATE_COLOR = 2  # green, the classic baseplate
TABLE_HALF_SIZE_M = 0.64
GRID_SQUARE_M = 4 * u.STUD_PITCH_M  # one checker square = 4 x 4 studs
GRID_TILE_M = 2 * GRID_SQUARE_M  # the checker pattern repeats every two squares
BACKGROUND = -1


@dataclass(frozen=True)
class SceneBrick:
    """A brick placed in the world: id, part, LDraw colour, bottom-face centre (m) and quaternion (wxyz)."""

    id: str
    part: str
    color: int
    position: tuple[float, float, float]
    quaternion: tuple[float, float, float, float]

    @classmethod
    def from_lattice(cls, brick: LatticeBrick, origin_m: Sequence[float]) -> SceneBrick:
        """The world placement of a lattice brick, given the world position of lattice point (0, 0, 0)."""
        pos, quat = brick_pose_in_world(brick, origin_m)
        return cls(brick.id, brick.part, brick.color, pos, quat)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """World axis-aligned bounds (lo, hi), studs included."""
        sx, sy, h = part(self.part).size_m
        yaw = 2 * math.atan2(self.quaternion[3], self.quaternion[0])
        c, s = abs(math.cos(yaw)), abs(math.sin(yaw))
        hx, hy = (c * sx + s * sy) / 2, (s * sx + c * sy) / 2
        x, y, z = self.position
        return np.array([x - hx, y - hy, z]), np.array([x + hx, y + hy, z + h + u.STUD_HEIGHT_M])


def bricks_corners(bricks: Iterable[SceneBrick]) -> np.ndarray:
    """The corners (8 per brick, studs included) of the bricks' bounding boxes, (N, 3) metres."""
    boxes = [box_corners(*b.bounds()) for b in bricks]
    if not boxes:
        raise ValueError("no bricks to frame")
    return np.concatenate(boxes)


@dataclass
class Frame:
    """One render: RGB (H, W, 3) uint8, depth (H, W) m or None, and per-pixel segment index or None."""

    rgb: np.ndarray | None
    depth: np.ndarray | None
    segments: np.ndarray | None  # int32 index into BrickScene.segment_names, BACKGROUND (-1) elsewhere


@cache
def wood_texture(size: int = 512) -> bytes:
    """A procedural light-oak table texture (RGB bytes, size x size), the same on every call."""
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size
    # Growth rings: stretched sine bands along x, wobbling with low-frequency noise.
    wobble = sum(
        a * np.sin(2 * np.pi * (f * y + rng.uniform())) for a, f in ((0.04, 1.0), (0.02, 3.0), (0.01, 7.0))
    )
    rings = 0.5 + 0.5 * np.sin(2 * np.pi * (18.0 * (y + wobble) + 0.6 * np.sin(2 * np.pi * x)))
    streaks = rng.normal(0.0, 1.0, size=(size, 1)).astype(np.float32) * np.ones((1, size), np.float32)
    grain = 0.75 * rings + 0.15 * np.tanh(streaks) + 0.1 * rng.uniform(size=(size, size))
    light, dark = np.array([196, 152, 104], np.float32), np.array([150, 104, 62], np.float32)
    img = dark + (light - dark) * np.clip(grain, 0.0, 1.0)[..., None]
    return np.clip(img, 0, 255).astype(np.uint8).tobytes()


class BrickScene:
    """Static bricks (and an optional baseplate and table) in a style's lighting, with one offscreen renderer."""

    def __init__(
        self,
        bricks: Sequence[SceneBrick],
        style: ManualStyle,
        size: tuple[int, int],
        *,
        view: ViewPoint,
        baseplate_origin: Sequence[float] | None = None,
        table: bool = True,
        grid_origin: Sequence[float] = (0.0, 0.0, 0.0),
    ):
        self.grid_origin = tuple(grid_origin)
        self.bricks = tuple(bricks)
        self.style = style
        self.size = size
        self.view = view
        spec = self._build_spec(baseplate_origin, table)
        self.model = spec.compile()
        self.data = mujoco.MjData(self.model)
        mujoco.mj_forward(self.model, self.data)
        self.segment_names: list[str] = [b.id for b in self.bricks]
        index = {b.id: k for k, b in enumerate(self.bricks)}
        geom_segment = np.full(self.model.ngeom, BACKGROUND, dtype=np.int32)
        for g in range(self.model.ngeom):
            body = self.model.body(int(self.model.geom_bodyid[g])).name
            if body.startswith("brick/"):
                geom_segment[g] = index[body.removeprefix("brick/")]
            elif body == "baseplate":
                geom_segment[g] = self._named_segment("baseplate")
            elif self.model.geom(g).name == "table":
                geom_segment[g] = self._named_segment("table")
        self._geom_segment = geom_segment
        self._base_alpha = self.model.geom_rgba[:, 3].copy()
        self._renderer: mujoco.Renderer | None = None

    def _named_segment(self, name: str) -> int:
        if name not in self.segment_names:
            self.segment_names.append(name)
        return self.segment_names.index(name)

    # --- model ------------------------------------------------------------------------------------
    def _build_spec(self, baseplate_origin: Sequence[float] | None, table: bool) -> mujoco.MjSpec:
        st = self.style
        spec = mujoco.MjSpec()
        spec.modelname = "jarvis_manual"
        w, h = self.size
        spec.visual.global_.offwidth = max(w, 64)
        spec.visual.global_.offheight = max(h, 64)
        spec.visual.global_.fovy = self.view.fovy_deg
        spec.visual.quality.shadowsize = st.lighting.shadow_map_size
        spec.visual.quality.offsamples = 4
        spec.visual.quality.numslices = 48  # round studs: fewer facets, so no false creases on their sides
        spec.visual.headlight.ambient = [st.lighting.headlight_ambient] * 3
        spec.visual.headlight.diffuse = [st.lighting.headlight_diffuse] * 3
        spec.visual.headlight.specular = [0.1 * st.lighting.key_specular] * 3
        # Clip planes relative to the scene extent: tight enough for precise depth on a 10 cm structure.
        spec.stat.extent = max(self.view.distance * 2, 0.2)
        spec.visual.map.znear = 0.02
        spec.visual.map.zfar = 10.0
        spec.visual.map.haze = 0.0

        sky = spec.add_texture()
        sky.name = "sky"
        sky.type = mujoco.mjtTexture.mjTEXTURE_SKYBOX
        sky.builtin = mujoco.mjtBuiltin.mjBUILTIN_GRADIENT
        sky.rgb1 = [c / 255 for c in st.background_top]
        sky.rgb2 = [c / 255 for c in st.background_bottom]
        sky.width, sky.height = 256, 1536

        plastic = spec.add_material()
        plastic.name = "plastic"
        plastic.specular = st.plastic.specular
        plastic.shininess = st.plastic.shininess
        plastic.reflectance = st.plastic.reflectance

        self._add_lights(spec)
        if table and st.table != "none":
            self._add_table(spec)
        if baseplate_origin is not None:
            bp = part(BASEPLATE_PART)
            ox, oy, oz = baseplate_origin
            # The baseplate's studs sit at lattice level 0; its cells (0..31, 0..31) start at the origin.
            body = add_brick_body(
                spec.worldbody,
                "baseplate",
                BASEPLATE_PART,
                BASEPLATE_COLOR,
                (ox + bp.width * u.STUD_PITCH_M / 2, oy + bp.depth * u.STUD_PITCH_M / 2, oz - bp.height_m),
                (1.0, 0.0, 0.0, 0.0),
                free=False,
                detail="body",
                collide=False,
            )
            for g in body.geoms:
                g.material = "plastic"
        for b in self.bricks:
            body = add_brick_body(
                spec.worldbody, f"brick/{b.id}", b.part, b.color, b.position, b.quaternion,
                free=False, detail="body", collide=False,
            )
            for g in body.geoms:
                g.material = "plastic"
                g.rgba = list(part_rgba(b.color))
        return spec

    def _add_lights(self, spec: mujoco.MjSpec) -> None:
        lit = self.style.lighting
        forward, right, _ = self.view.basis()
        target = np.asarray(self.view.lookat)
        # Key light above the viewer's left shoulder, so the top, front and side faces get distinct shades.
        pos = target - forward * self.view.distance * 0.6 - right * self.view.distance * 0.5
        pos[2] = target[2] + self.view.distance * 1.2
        key = spec.worldbody.add_light()
        key.name = "key"
        key.type = mujoco.mjtLightType.mjLIGHT_SPOT if lit.shadows else mujoco.mjtLightType.mjLIGHT_DIRECTIONAL
        key.pos = list(pos)
        key.dir = list((target - pos) / np.linalg.norm(target - pos))
        key.diffuse = [lit.key_diffuse] * 3
        key.specular = [lit.key_specular] * 3
        key.ambient = [0.0] * 3
        key.castshadow = lit.shadows
        key.cutoff = 50.0
        key.exponent = 1.0
        if lit.shadows:
            spec.visual.map.shadowclip = 1.0
            spec.visual.map.shadowscale = 0.6

    def _add_table(self, spec: mujoco.MjSpec) -> None:
        mat = spec.add_material()
        mat.name = "table"
        if self.style.table == "wood":
            tex = spec.add_texture()
            tex.name = "wood"
            tex.type = mujoco.mjtTexture.mjTEXTURE_2D
            tex.width = tex.height = 512
            tex.nchannel = 3
            tex.data = wood_texture(512)
            mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "wood"
            mat.texrepeat = [3.0, 3.0]
            mat.specular = 0.25
            mat.shininess = 0.3
        else:
            tex = spec.add_texture()
            tex.name = "grid"
            tex.type = mujoco.mjtTexture.mjTEXTURE_2D
            tex.builtin = mujoco.mjtBuiltin.mjBUILTIN_CHECKER  # 2 x 2 squares per texture tile
            tex.width = tex.height = 64
            tex.rgb1 = [c / 255 for c in self.style.grid_rgb[0]]
            tex.rgb2 = [c / 255 for c in self.style.grid_rgb[1]]
            mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "grid"
            mat.texuniform = True
            # With texuniform, one unit of texrepeat spans one checker square (measured): 4 studs a square.
            mat.texrepeat = [1.0 / GRID_SQUARE_M, 1.0 / GRID_SQUARE_M]
            mat.specular = 0.0
            mat.shininess = 0.0
        g = spec.worldbody.add_geom()
        g.name = "table"
        g.type = mujoco.mjtGeom.mjGEOM_BOX
        # Centre the table on a whole number of tiles from the lattice origin, so the squares line up with
        # the stud lattice (each square is 4 x 4 studs).
        gx, gy, _ = self.grid_origin
        cx = gx + round((self.view.lookat[0] - gx) / GRID_TILE_M) * GRID_TILE_M
        cy = gy + round((self.view.lookat[1] - gy) / GRID_TILE_M) * GRID_TILE_M
        g.size = [TABLE_HALF_SIZE_M, TABLE_HALF_SIZE_M, 0.01]
        # A hair below z = 0 so the undersides of bricks on the table never z-fight with it.
        g.pos = [cx, cy, -0.01 - 2e-5]
        g.material = "table"
        g.contype = 0
        g.conaffinity = 0

    # --- rendering --------------------------------------------------------------------------------
    def show_only(self, brick_ids: Iterable[str] | None) -> None:
        """Show only these bricks (None: all); baseplate and table stay visible."""
        alpha = self._base_alpha.copy()
        if brick_ids is not None:
            keep = {self.segment_names.index(i) for i in brick_ids}
            hide = np.array([s not in keep and 0 <= s < len(self.bricks) for s in self._geom_segment])
            alpha[hide] = 0.0
        self.model.geom_rgba[:, 3] = alpha

    def _camera(self, view: ViewPoint) -> mujoco.MjvCamera:
        cam = mujoco.MjvCamera()
        cam.type = mujoco.mjtCamera.mjCAMERA_FREE
        cam.lookat[:] = view.lookat
        cam.distance = view.distance
        cam.azimuth = view.azimuth_deg
        cam.elevation = view.elevation_deg
        self.model.vis.global_.fovy = view.fovy_deg
        return cam

    def render(
        self, view: ViewPoint | None = None, *, rgb: bool = True, depth: bool = False, segments: bool = False
    ) -> Frame:
        """Render colour, depth (m along the optical axis) and/or the segment index map."""
        if self._renderer is None:
            self._renderer = mujoco.Renderer(self.model, self.size[1], self.size[0])
        r = self._renderer
        cam = self._camera(view or self.view)
        r.update_scene(self.data, cam)
        out_rgb = out_depth = out_seg = None
        if rgb:
            out_rgb = r.render().copy()
        if depth:
            r.enable_depth_rendering()
            out_depth = r.render().copy()
            r.disable_depth_rendering()
        if segments:
            r.enable_segmentation_rendering()
            seg = r.render()
            r.disable_segmentation_rendering()
            is_geom = (seg[..., 1] == int(mujoco.mjtObj.mjOBJ_GEOM)) & (seg[..., 0] >= 0)
            out_seg = np.full(seg.shape[:2], BACKGROUND, dtype=np.int32)
            out_seg[is_geom] = self._geom_segment[seg[..., 0][is_geom]]
        return Frame(out_rgb, out_depth, out_seg)

    def close(self) -> None:
        """Free the GL context (OSMesa complains at exit about renderers left open)."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    def __enter__(self) -> BrickScene:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
