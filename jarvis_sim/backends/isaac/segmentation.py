"""Replicator's instance segmentation as the Backend protocol's: one index per brick id, 'table', 'robot'."""

from __future__ import annotations

from typing import Any

import numpy as np

from jarvis_sim.backends.isaac.scene import BRICKS, ROBOT, SceneDescription


def segment_labels(raw: np.ndarray, id_to_labels: dict[Any, Any], scene: SceneDescription) -> tuple[np.ndarray, dict[int, str]]:
    """Replicator's instance ids -> the protocol's segmentation: an index per brick id, 'table', 'robot'; -1 else.

    `id_to_labels` maps each instance id (as a string or int) to the prim path it rendered; a brick's own prim or
    any prim below it counts as the brick."""
    by_prim = scene.brick_by_prim()
    names: dict[int, str] = {}
    for key, label in id_to_labels.items():
        path = label if isinstance(label, str) else str(label.get("path", "")) if isinstance(label, dict) else ""
        name = None
        if path.startswith(f"{BRICKS}/"):
            name = by_prim.get("/".join(path.split("/")[:4]))
        elif path.startswith(ROBOT):
            name = "robot"
        elif path.startswith(scene.table.prim_path) or (scene.baseplate and path.startswith(scene.baseplate.prim_path)):
            name = "table"
        if name is not None:
            names[int(key)] = name
    ordered = sorted(set(names.values()))
    index = {name: k for k, name in enumerate(ordered)}
    out = np.full(raw.shape, -1, dtype=np.int32)
    for instance, name in names.items():
        out[raw == instance] = index[name]
    return out, {k: name for name, k in index.items()}
