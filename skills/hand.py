"""The shape of the hand as the skills plan with it: the Franka hand with LEGO fingertips, as boxes in the tool frame.

A placement or a grasp beside taller neighbours is safe only when every part of the hand clears them, not only the
finger pads: the upper finger (wider than the pad and 31 mm above the tips) and the hand's body reach over bricks
beside the target. Measured on jarvis-v1 with a pad-only check: the upper finger, opening to let a placed brick go,
struck a neighbour standing three bricks higher and broke eight connections of the structure below it.

Frame: x along the brick between the pads (the pads' width), y along the finger travel, z up from the finger tips.
The boxes match the MuJoCo model (jarvis_sim/backends/mujoco/panda.py; tests/skills/test_hand.py compares them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class HandBox:
    """One box of the hand: half its extent along x, its extent across (y) and its height range above the tips (mm).

    A finger box's `across_mm` counts outward from its pad's inner face and exists on both sides; a box of the hand's
    body (`per_finger` False) is centred on the tool axis and does not move with the fingers.
    """

    name: str
    half_along_mm: float
    across_mm: tuple[float, float]
    z_mm: tuple[float, float]
    per_finger: bool = True


HAND_BOXES: tuple[HandBox, ...] = (
    HandBox("pad", 3.5, (0.0, 8.0), (0.0, 30.0)),
    HandBox("finger", 9.5, (4.0, 16.0), (31.0, 55.0)),
    HandBox("hand", 20.0, (-95.0, 95.0), (55.4, 111.4), per_finger=False),
    HandBox("flange", 30.0, (-30.0, 30.0), (98.4, 118.4), per_finger=False),
)
PAD = HAND_BOXES[0]
ABOVE_PADS = HAND_BOXES[1:]  # what reaches over bricks beside the pads' own room


@dataclass(frozen=True)
class Obstacle:
    """Something standing beside the hand: footprint centre (x, y mm), yaw of its first half-extent (deg), half
    extents (mm), top (mm above the table)."""

    centre: tuple[float, float]
    yaw_deg: float
    half: tuple[float, float]
    top_mm: float


@dataclass(frozen=True)
class Footprint:
    """A hand box placed in the world: centre (x, y mm), yaw of its x axis (deg), half extents (mm), height range."""

    name: str
    centre: tuple[float, float]
    yaw_deg: float
    half: tuple[float, float]
    z_mm: tuple[float, float]


def hand_footprints(x_mm: float, y_mm: float, yaw: float, opening_mm: float, tips_z_mm: float,
                    boxes: tuple[HandBox, ...] = HAND_BOXES) -> list[Footprint]:
    """The world footprints of the hand's boxes with the tool at (x, y), fingers closing along (-sin yaw, cos yaw)
    and opened `opening_mm` between the pads, tips at height `tips_z_mm`."""
    travel = np.array([-math.sin(yaw), math.cos(yaw)])
    centre = np.array([x_mm, y_mm])
    out = []
    for box in boxes:
        z = (tips_z_mm + box.z_mm[0], tips_z_mm + box.z_mm[1])
        half = (box.half_along_mm, (box.across_mm[1] - box.across_mm[0]) / 2)
        mid = (box.across_mm[0] + box.across_mm[1]) / 2
        if not box.per_finger:
            c = centre + mid * travel
            out.append(Footprint(box.name, (float(c[0]), float(c[1])), math.degrees(yaw), half, z))
            continue
        for side in (-1.0, 1.0):
            c = centre + side * (opening_mm / 2 + mid) * travel
            out.append(Footprint(f"{box.name}_{'left' if side > 0 else 'right'}", (float(c[0]), float(c[1])),
                                 math.degrees(yaw), half, z))
    return out


def rects_overlap(c1: tuple[float, float], yaw1_deg: float, half1: tuple[float, float],
                  c2: tuple[float, float], yaw2_deg: float, half2: tuple[float, float]) -> bool:
    """Separating-axis test of two oriented rectangles (centre, yaw of the first half-extent, half-extents)."""
    def corners(c: tuple[float, float], yaw_deg: float, half: tuple[float, float]) -> np.ndarray:
        yaw = math.radians(yaw_deg)
        ax = np.array([math.cos(yaw), math.sin(yaw)])
        ay = np.array([-math.sin(yaw), math.cos(yaw)])
        return np.array([np.array(c) + sx * half[0] * ax + sy * half[1] * ay for sx in (-1, 1) for sy in (-1, 1)])

    a, b = corners(c1, yaw1_deg, half1), corners(c2, yaw2_deg, half2)
    for yaw in (yaw1_deg, yaw2_deg):
        for axis in (math.radians(yaw), math.radians(yaw) + math.pi / 2):
            n = np.array([math.cos(axis), math.sin(axis)])
            pa, pb = a @ n, b @ n
            if pa.max() < pb.min() or pb.max() < pa.min():
                return False
    return True


def struck(x_mm: float, y_mm: float, yaw: float, openings: tuple[float, ...], tips_z_mm: float,
           obstacles: list[Obstacle], boxes: tuple[HandBox, ...] = HAND_BOXES) -> list[int]:
    """Indices of the obstacles standing where a box of the hand would be (taller than the box's bottom, footprints
    overlapping), with the tool at (x, y) and its tips at `tips_z_mm`, at any of the finger openings (mm)."""
    hits: list[int] = []
    for opening in openings:
        for fp in hand_footprints(x_mm, y_mm, yaw, opening, tips_z_mm, boxes):
            hits.extend(k for k, o in enumerate(obstacles)
                        if k not in hits and o.top_mm > fp.z_mm[0]
                        and rects_overlap(fp.centre, fp.yaw_deg, fp.half, o.centre, o.yaw_deg, o.half))
    return hits
