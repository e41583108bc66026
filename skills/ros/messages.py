"""sensor_msgs built from the simulator's arrays, stamped with simulated (or wall) time."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def stamp(msg_time: Any, t: float) -> None:
    sec = math.floor(t)
    msg_time.sec, msg_time.nanosec = int(sec), int((t - sec) * 1e9)


def image_message(image_cls: type, array: np.ndarray, encoding: str, frame_id: str, t: float) -> Any:
    """A sensor_msgs/Image of a (H, W[, C]) array; `tobytes()` (not the array) keeps the copy to ~0.3 ms."""
    msg = image_cls()
    stamp(msg.header.stamp, t)
    msg.header.frame_id = frame_id
    msg.height, msg.width = int(array.shape[0]), int(array.shape[1])
    msg.encoding = encoding
    msg.is_bigendian = 0
    msg.step = int(array.strides[0]) if array.flags.c_contiguous else int(array.shape[1] * array.itemsize *
                                                                           (array.shape[2] if array.ndim == 3 else 1))
    msg.data = np.ascontiguousarray(array).tobytes()
    return msg
