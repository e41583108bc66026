"""Shared pieces for the sandbox tests: the attack corpus, demo skills, and host-side escape evidence."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from agent.sandbox import SandboxLimits
from skills.errors import SkillError

ATTACK_DIR = Path(__file__).parent / "attacks"

# Short limits so timeouts and floods end quickly; memory low enough for bombs to hit it at once.
TEST_LIMITS = SandboxLimits(
    wall_s=1.5, cpu_s=5, memory_bytes=256 << 20, max_calls=200, max_message_bytes=64 * 1024,
    max_stdout_chars=10_000,
)


class DemoFailure(SkillError):
    """A skill failure the corpus provokes on purpose."""

    kind = "demo_failure"


def ping(payload: str = "") -> dict[str, object]:
    """Echo the payload back with its length."""
    return {"payload": payload, "length": len(payload)}


def fail() -> None:
    """Always fails with a skill error."""
    raise DemoFailure("this skill always fails")


METHODS: dict[str, Callable[..., object]] = {"ping": ping, "fail": fail}


# The layer expected to stop an attack with every layer on (`# layer:`), and for raw escapes the OS
# layer that must still contain it with the Python layer switched off (`# os_layer:`).
PYTHON_LAYERS = frozenset({"ast_policy", "restricted_builtins", "format_checker", "exception_scrub"})
RUNTIME_LAYERS = frozenset({"skill_server", "protocol", "stdout_cap", "recursion_limit", "wall_clock_kill"})
OS_LAYERS = frozenset({"seccomp", "bubblewrap", "unprivileged_uid", "rlimits", "protocol"})


@dataclass(frozen=True)
class Attack:
    """One corpus program: what it tries, the outcome it must get, what an escape would leave behind."""

    name: str
    description: str
    expect: frozenset[str]
    evidence: str | None
    template: str
    layer: str = ""
    os_layer: str | None = None


def load_attacks() -> list[Attack]:
    """Every program in attacks/, parsed from its header comments."""
    out = []
    for path in sorted(ATTACK_DIR.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        headers = {}
        for line in text.splitlines():
            if not line.startswith("# "):
                break
            key, _, value = line[2:].partition(":")
            headers[key.strip()] = value.strip()
        for key in ("expect", "layer"):
            if key not in headers:
                raise ValueError(f"{path}: missing '# {key}:' header")
        if headers["layer"] not in PYTHON_LAYERS | RUNTIME_LAYERS | OS_LAYERS:
            raise ValueError(f"{path}: unknown layer {headers['layer']!r}")
        if headers.get("os_layer", "protocol") not in OS_LAYERS:
            raise ValueError(f"{path}: unknown os_layer {headers['os_layer']!r}")
        out.append(
            Attack(
                name=path.stem, description=headers.get("attack", ""),
                expect=frozenset(headers["expect"].split("|")), evidence=headers.get("evidence"), template=text,
                layer=headers["layer"], os_layer=headers.get("os_layer"),
            )
        )
    return out


@dataclass
class HostProbe:
    """Things on the host an escaped program would touch: a file path, a secret, a port, a process."""

    marker: Path
    secret_path: Path
    secret: str
    port: int
    victim: subprocess.Popen[bytes]
    connections: list[bytes] = field(default_factory=list)

    def render(self, template: str) -> str:
        """Fill an attack's placeholders with this probe's targets."""
        return (
            template.replace("{{MARKER}}", str(self.marker)).replace("{{SECRET}}", str(self.secret_path))
            .replace("{{PORT}}", str(self.port)).replace("{{VICTIM}}", str(self.victim.pid))
            .replace("{{PARENT}}", str(os.getpid()))
        )

    def evidence(self, stdout: str, host_only: bool = False) -> list[str]:
        """What escaped: empty when the host is untouched (`host_only`: ignore the program's own claim)."""
        found = []
        if self.marker.exists():
            found.append(f"host file {self.marker} was created")
        if self.secret in stdout:
            found.append("root-only secret was read")
        if self.connections:
            found.append(f"loopback server got {self.connections!r}")
        if self.victim.poll() is not None:
            found.append("host process was killed")
        if "ESCAPED" in stdout and not host_only:
            found.append("program reported an escape on stdout")
        if "PATH=" in stdout or "HOME=" in stdout:
            found.append("parent's environment was read")
        return found

    def clear(self) -> None:
        """Remove evidence (used by the positive control)."""
        self.marker.unlink(missing_ok=True)
        self.connections.clear()


@contextmanager
def host_probe() -> Iterator[HostProbe]:
    """Set up escape targets on the host for the duration of a test module."""
    token = secrets.token_hex(8)
    marker = Path(f"/tmp/jarvis_sandbox_marker_{token}")
    secret_path = Path(f"/tmp/jarvis_sandbox_secret_{token}")
    secret = f"SECRET-{token}"
    secret_path.write_text(secret)
    secret_path.chmod(0o600)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    victim = subprocess.Popen(["sleep", "600"])
    probe = HostProbe(marker, secret_path, secret, server.getsockname()[1], victim)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1)
                try:
                    probe.connections.append(conn.recv(100) or b"(connected)")
                except OSError:
                    probe.connections.append(b"(connected)")

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield probe
    finally:
        stop.set()
        thread.join(timeout=2)
        server.close()
        victim.kill()
        victim.wait()
        marker.unlink(missing_ok=True)
        secret_path.unlink(missing_ok=True)
