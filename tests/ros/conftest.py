"""ROS 2 tests: real rclpy and Fast DDS on loopback, a real bridge process with the MuJoCo backend behind it.

Every test session gets its own ROS domain (other sessions on the machine must not cross-talk) and discovery
is kept on the host. Skipped where rclpy and jarvis_interfaces are not installed (.ci/ros-setup installs them).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("rclpy", reason="ROS 2 wheels are installed by .ci/ros-setup")
pytest.importorskip("jarvis_interfaces", reason="jarvis_interfaces is built by .ci/ros-setup")

ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("ROS_DOMAIN_ID", str(100 + os.getpid() % 100))
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
os.environ.setdefault("FASTRTPS_DEFAULT_PROFILES_FILE", str(ROOT / "docker" / "fastdds.xml"))
os.environ.setdefault("MUJOCO_GL", "osmesa")
os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")


class BridgeProcess:
    """A bridge (python -m skills.ros.bridge) in a child process, with its log kept for failures."""

    def __init__(self, namespace: str, log_path: Path, *extra: str):
        self.namespace = namespace
        self.log_path = log_path
        self._log = log_path.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "skills.ros.bridge", "--backend", "mujoco", "--namespace", namespace, *extra],
            cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT, env=os.environ.copy(),
        )

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the bridge exited ({self.proc.returncode}):\n{self.log_path.read_text()}")
            if "bridge ready" in self.log_path.read_text():
                return
            time.sleep(0.1)
        raise RuntimeError(f"the bridge did not start in {timeout_s} s:\n{self.log_path.read_text()}")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


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
