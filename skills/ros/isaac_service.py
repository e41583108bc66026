"""The Isaac Sim side of the GPU workstation: the ROS 2 bridge (skills/ros/bridge.py) around an IsaacBackend,
headless, in Isaac's Python (docker/compose.yaml's isaac-sim service runs `python.sh -m
skills.ros.isaac_service --headless`).

Needs, inside the Isaac Sim 6.2 container: the repository on PYTHONPATH (compose mounts it at /opt/jarvis),
Isaac's bundled rclpy (exts/isaacsim.ros2.core/jazzy, Python 3.12) and jarvis_interfaces built for that Python
(PyPI's ROS 2 wheels exist for 3.12; see docker/README.md). SimulationApp starts before any other Isaac import:
IsaacBackend's constructor does it, so nothing here imports Isaac at module level.
"""

from __future__ import annotations

import argparse

from jarvis_sim.backends.isaac.config import IsaacConfig


def main(argv: list[str] | None = None) -> None:
    """Start Kit, build the bridge around the Isaac backend and serve until shut down."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--headless", action="store_true", help="run Kit without a window")
    parser.add_argument("--namespace", default="/jarvis", help="prefix of the bridge's skills/ and sim/ interfaces")
    parser.add_argument("--planner", default="cartesian", help="default motion planner of the skills")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda:0"], help="PhysX device (welds need cpu)")
    parser.add_argument("--camera-hz", type=float, default=10.0, help="camera topic rate while subscribed")
    args, _kit_args = parser.parse_known_args(argv)
    from jarvis_sim.backends.isaac.backend import IsaacBackend

    backend = IsaacBackend(IsaacConfig(headless=args.headless, device=args.device))
    from skills.ros.bridge import serve

    serve(backend, namespace=args.namespace, planner=args.planner, camera_hz=args.camera_hz)

if __name__ == "__main__":
    main()
