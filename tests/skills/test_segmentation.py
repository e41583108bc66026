"""Bricks segmented from RGB-D without instance ids (skills.segmentation) on synthetic top-camera frames."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from jarvis_sim.tasks.spec import Workspace
from skills.perception import detect
from skills.segmentation import palette_labels, rgbd_segments
from skills.sensor import SensorModel
from skills.types import BrickDescriptor
from tests.fakes.box_camera import Box, render_boxes

WS = Workspace()
RED, BLUE, YELLOW = (201, 26, 9), (0, 85, 191), (242, 205, 55)
LOOSE = [Box("a", (4, 2), 0.40, 0.25, math.radians(30), rgb=RED), Box("b", (2, 2), 0.50, 0.30, 0.2, rgb=BLUE),
         Box("c", (2, 1), 0.45, 0.36, math.radians(75), rgb=YELLOW)]


def without_ids(boxes: list[Box], sensor: SensorModel | None = None, seed: int = 0) -> list[BrickDescriptor]:
    """Descriptors from a frame stripped of its instance masks (optionally through the sensor), by x then y."""
    frame = render_boxes(boxes)
    frame = sensor.apply(frame, np.random.default_rng(seed)) if sensor else dataclasses.replace(
        frame, segmentation=None, segment_ids={})
    return sorted((d for d, _ in detect(frame, WS)), key=lambda d: (d.x_mm, d.y_mm))


@pytest.mark.parametrize("sensor", [None, SensorModel()], ids=["exact", "noisy"])
def test_loose_bricks_are_found_with_size_colour_and_pose_without_instance_ids(sensor: SensorModel | None) -> None:
    found = without_ids(LOOSE, sensor)
    assert len(found) == 3
    for box, d in zip(sorted(LOOSE, key=lambda b: (b.x, b.y)), found, strict=True):
        assert d.size == (max(box.studs), min(box.studs))
        assert math.hypot(d.x_mm - box.x * 1000, d.y_mm - box.y * 1000) < (1.0 if sensor is None else 2.5)
        assert not d.in_structure
        assert d.color in {"red", "blue", "yellow"} and d.color == {RED: "red", BLUE: "blue", YELLOW: "yellow"}[box.rgb]


def test_touching_bricks_of_different_colours_are_two_and_of_one_colour_one() -> None:
    left = Box("l", (2, 2), 0.45, 0.25, 0.0, rgb=RED)
    right_blue = Box("r", (2, 2), 0.45, 0.266, 0.0, rgb=BLUE)
    right_red = dataclasses.replace(right_blue, rgb=RED)
    assert sorted(d.color for d in without_ids([left, right_blue])) == ["blue", "red"]
    (merged,) = without_ids([left, right_red])  # the 0.2 mm gap is a seventh of a pixel: one red 4x2
    assert merged.size == (4, 2)


def test_a_brick_on_a_same_coloured_brick_is_a_face_of_its_own() -> None:
    base = Box("s0", (4, 2), 0.432, -0.184, 0.0, rgb=RED)
    on_top = Box("s1", (4, 2), 0.448, -0.184, 0.0, bottom=base.top, rgb=RED)
    tops = sorted(round(d.top_z_mm) for d in without_ids([base, on_top]))
    assert tops == [10, 19]


def test_the_table_and_noise_alone_give_no_segments() -> None:
    frame = SensorModel().apply(render_boxes([]), np.random.default_rng(3))
    assert rgbd_segments(frame) == []


def test_palette_labels_match_the_catalog_colours() -> None:
    from jarvis_sim.lego.colors import COLORS

    rgb = np.array([c.rgb for c in COLORS.values()])
    names = [list(COLORS.values())[k].name for k in palette_labels(rgb)]
    assert names == [c.name for c in COLORS.values()]
