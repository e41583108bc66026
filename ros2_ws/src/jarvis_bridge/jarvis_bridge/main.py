"""`ros2 run jarvis_bridge bridge [--backend mujoco|isaac] [--namespace /jarvis] [--planner cartesian|ompl]`."""

import sys


def main() -> None:
    """Run the bridge of the installed jarvis package."""
    try:
        from skills.ros.bridge import main as bridge_main
    except ImportError as exc:  # the jarvis package lives in the image's venv (docker/Dockerfile.ros)
        sys.exit(f"jarvis_bridge: the jarvis Python package is not importable ({exc}); pip install it")
    bridge_main(sys.argv[1:])
