"""A real bridge (python -m skills.ros.bridge) in a child process, and the ROS environment tests run it in.

Kept apart from conftest.py (which skips the whole folder without rclpy) so that test modules elsewhere, such as
the backend contract suite, can start a bridge for their own ROS-marked cases.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def use_private_ros_domain() -> None:
    """Give this test session its own ROS domain on the host (other sessions on the machine must not cross-talk),
    and the Fast DDS profile large images need; values already set win."""
    os.environ.setdefault("ROS_DOMAIN_ID", str(100 + os.getpid() % 100))
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    os.environ.setdefault("FASTRTPS_DEFAULT_PROFILES_FILE", str(ROOT / "docker" / "fastdds.xml"))
    os.environ.setdefault("MUJOCO_GL", "osmesa")
    os.environ.setdefault("PYOPENGL_PLATFORM", "osmesa")


class BridgeProcess:
    """A bridge in a child process, with its log kept for failures."""

    def __init__(self, namespace: str, log_path: Path, *extra: str, backend: str = "mujoco"):
        self.namespace = namespace
        self.log_path = log_path
        self._log = log_path.open("w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "skills.ros.bridge", "--backend", backend, "--namespace", namespace, *extra],
            cwd=ROOT, stdout=self._log, stderr=subprocess.STDOUT, env=os.environ.copy(),
        )

    def wait_ready(self, timeout_s: float = 60.0) -> None:
        """Block until the bridge logs that it serves; raise with its log if it exits or hangs."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the bridge exited ({self.proc.returncode}):\n{self.log_path.read_text()}")
            if "bridge ready" in self.log_path.read_text():
                return
            time.sleep(0.1)
        raise RuntimeError(f"the bridge did not start in {timeout_s} s:\n{self.log_path.read_text()}")

    def stop(self) -> None:
        """Terminate the bridge (kill it after 10 s) and close its log."""
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._log.close()
