"""The Isaac backend module imports without Isaac Sim, refuses clearly where Isaac is missing, and maps the
renderer's instance ids onto the protocol's segmentation."""

from __future__ import annotations

import importlib
import sys

import numpy as np
import pytest

from jarvis_sim.backends.base import BackendError
from jarvis_sim.backends.isaac.config import IsaacConfig
from jarvis_sim.backends.isaac.scene import ROBOT, describe_scene
from jarvis_sim.backends.isaac.segmentation import segment_labels
from jarvis_sim.backends.registry import make_backend
from jarvis_sim.tasks.spec import TaskSpec


def test_importing_the_backend_starts_nothing() -> None:
    importlib.import_module("jarvis_sim.backends.isaac.backend")
    importlib.import_module("skills.ros.isaac_service")
    assert not any(name == "isaacsim" or name.startswith(("isaacsim.", "omni.")) for name in sys.modules)


@pytest.mark.skipif(importlib.util.find_spec("isaacsim") is not None, reason="Isaac Sim is installed here")
def test_without_isaac_the_backend_names_what_to_run() -> None:
    with pytest.raises(BackendError, match=r"isaac backend needs Isaac Sim 6\.2 .*python\.sh"):
        make_backend("isaac")


def test_instance_ids_map_to_bricks_table_and_robot(task: TaskSpec) -> None:
    scene = describe_scene(task, IsaacConfig())
    first, second = scene.bricks[0], scene.bricks[1]
    raw = np.array([[0, 1, 2], [3, 4, 9]])
    labels = {"0": "BACKGROUND", "1": f"{first.prim_path}", "2": f"{second.prim_path}/Looks/mesh",
              "3": scene.table.prim_path, "4": f"{ROBOT}/panda_hand/geometry"}
    seg, ids = segment_labels(raw, labels, scene)
    assert seg.dtype == np.int32 and seg[0, 0] == -1 and seg[1, 2] == -1  # unknown ids are background
    assert {ids[int(seg[0, 1])], ids[int(seg[0, 2])], ids[int(seg[1, 0])], ids[int(seg[1, 1])]} == {
        first.id, second.id, "table", "robot"}
