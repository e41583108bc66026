"""ROS 2 tests: real rclpy and Fast DDS on loopback, a real bridge process with the MuJoCo backend behind it.

Every test session gets its own ROS domain (other sessions on the machine must not cross-talk) and discovery
is kept on the host. Skipped where rclpy and jarvis_interfaces are not installed (.ci/ros-setup installs them).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.ros.bridge_process import BridgeProcess, use_private_ros_domain

pytest.importorskip("rclpy", reason="ROS 2 wheels are installed by .ci/ros-setup")
pytest.importorskip("jarvis_interfaces", reason="jarvis_interfaces is built by .ci/ros-setup")

use_private_ros_domain()


@pytest.fixture(scope="module")
def bridge(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[BridgeProcess]:
    """One bridge per test module, on a namespace of its own."""
    name = request.module.__name__.rsplit(".", 1)[-1]
    proc = BridgeProcess(f"/jarvis_{name}", tmp_path_factory.mktemp("bridge") / "bridge.log")
    try:
        proc.wait_ready()
        yield proc
    finally:
        proc.stop()
