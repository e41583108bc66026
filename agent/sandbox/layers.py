"""Which isolation layers this machine can provide, found by trying them once per process.

Each layer the configuration asks for is either active or reported as degraded with the reason,
and a warning is logged: a sandbox running with fewer layers than asked for never does so quietly.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import importlib.util
import logging
import os
import pwd
import shutil
import subprocess
import sys
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from agent.sandbox.limits import SandboxLayers
from agent.sandbox.reaper import reap_orphans, set_subreaper

log = logging.getLogger(__name__)

LAYER_NAMES = (
    "ast_policy", "restricted_builtins", "separate_process", "unprivileged_uid", "bubblewrap", "seccomp",
    "rlimits", "wall_clock_kill", "subreaper",
)
# Modules the child imports before confining itself; an interpreter lacking one cannot host it.
CHILD_IMPORTS = "import ast, collections, ctypes, ctypes.util, functools, itertools, json, math, resource, string, time, types, typing"


class LayerReport(BaseModel):
    """Per layer: asked for, active, and a one-line note (why it is missing, or how it is provided)."""

    model_config = ConfigDict(extra="forbid")

    requested: dict[str, bool]
    active: dict[str, bool]
    details: dict[str, str]

    def active_names(self) -> list[str]:
        """Names of the layers in force."""
        return [name for name in LAYER_NAMES if self.active.get(name)]

    def degraded(self) -> list[str]:
        """Layers asked for but not in force."""
        return [name for name in LAYER_NAMES if self.requested.get(name) and not self.active.get(name)]


@dataclass(frozen=True)
class HostSupport:
    """How to start a child on this machine, as found by `detect`."""

    interpreter: str
    uid: int | None  # drop to this uid/gid when not None
    gid: int | None
    bwrap_argv: tuple[str, ...]  # empty when bubblewrap is not used
    drop_argv: tuple[str, ...]  # setpriv prefix that drops to uid/gid (empty: Popen drops instead)
    seccomp_libs: dict[str, str] | None  # None when seccomp is unavailable
    pyseccomp_source: str | None
    subreaper: bool
    report: LayerReport
    details: dict[str, str] = field(default_factory=dict)


def _interpreter_candidates() -> list[str]:
    names = [
        os.path.realpath(getattr(sys, "_base_executable", sys.executable)),
        os.path.realpath(sys.executable),
        f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}",
        "/usr/bin/python3",
    ]
    return list(dict.fromkeys(n for n in names if os.path.isfile(n)))


def _runs(argv: list[str], uid: int | None, gid: int | None) -> tuple[bool, str]:
    """Whether argv exits 0 within a few seconds when started the way children are started."""
    try:
        proc = subprocess.run(
            argv, capture_output=True, timeout=20, env={}, cwd="/", start_new_session=True,
            user=uid, group=gid, extra_groups=[] if uid is not None else None, check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return False, f"{type(exc).__name__}: {exc}"
    tail = (proc.stderr or proc.stdout).decode(errors="replace").strip().splitlines()
    return proc.returncode == 0, (tail[-1] if tail else f"exit status {proc.returncode}")


def _version_ok(interpreter: str, uid: int | None, gid: int | None) -> tuple[bool, str]:
    code = f"import sys; {CHILD_IMPORTS}; sys.exit(0 if sys.version_info >= (3, 11) else 1)"
    return _runs([interpreter, "-I", "-S", "-c", code], uid, gid)


def bwrap_argv(bwrap: str, interpreter: str) -> tuple[str, ...]:
    """bwrap options: every namespace unshared, only /usr (and its aliases) mounted, read-only."""
    argv = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--clearenv", "--chdir", "/",
            "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/lib", "/lib64", "/lib32", "/libx32", "/sbin"):
        if os.path.islink(top):
            argv += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            argv += ["--ro-bind", top, top]
    argv += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    prefix = os.path.dirname(os.path.dirname(interpreter))
    if not interpreter.startswith("/usr/"):
        argv += ["--ro-bind", prefix, prefix]
    return tuple(argv)


@functools.cache
def detect(layers: SandboxLayers) -> HostSupport:
    """Find out once per configuration which requested layers work here; warn about each missing one."""
    requested = {name: True for name in LAYER_NAMES}
    requested.update({k: v for k, v in layers.model_dump().items() if k in requested})
    active = dict.fromkeys(LAYER_NAMES, False)
    details: dict[str, str] = {}
    active["ast_policy"] = layers.ast_policy
    active["restricted_builtins"] = layers.restricted_builtins
    active["separate_process"] = True
    active["wall_clock_kill"] = True
    details["wall_clock_kill"] = "SIGKILL to the child's process group at the deadline"

    uid = gid = None
    if layers.unprivileged_uid:
        if os.geteuid() != 0:
            active["unprivileged_uid"] = True
            details["unprivileged_uid"] = f"parent already runs as uid {os.geteuid()}"
        else:
            try:
                account = pwd.getpwnam(layers.sandbox_user)
                uid, gid = account.pw_uid, account.pw_gid
                active["unprivileged_uid"] = True
                details["unprivileged_uid"] = f"child runs as {layers.sandbox_user} (uid {uid})"
            except KeyError:
                details["unprivileged_uid"] = f"no account {layers.sandbox_user!r}: child keeps root"

    # setpriv lets the parent spawn with vfork (Popen's user= forces a full fork of a large parent).
    setpriv = shutil.which("setpriv") if uid is not None else None
    drop: tuple[str, ...] = ()
    if setpriv is not None and uid is not None and gid is not None:
        drop = (setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups")
        ok, why = _runs([*drop, "/bin/true"], None, None)
        if not ok:
            details["setpriv"] = f"setpriv does not work here ({why}); dropping uid in Popen instead"
            drop = ()

    interpreter, why = "", "no interpreter found"
    for candidate in _interpreter_candidates():
        ok, why = _version_ok(candidate, uid, gid)
        if ok:
            interpreter = candidate
            break
        details.setdefault("interpreter_rejected", f"{candidate}: {why}")
    if not interpreter:
        raise RuntimeError(f"no Python >= 3.11 the sandbox user can run ({why}); see {__name__}")
    details["interpreter"] = interpreter

    argv: tuple[str, ...] = ()
    subreaper = False
    if layers.bubblewrap:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            details["bubblewrap"] = "bwrap not installed (Debian: apt-get install bubblewrap)"
        else:
            candidate_argv = bwrap_argv(bwrap, interpreter)
            subreaper = set_subreaper()  # before the trial run, so its namespace init comes back to us
            ok, why = _runs([*candidate_argv, interpreter, "-I", "-S", "-c", "pass"], uid, gid)
            if ok:
                argv = candidate_argv
                active["bubblewrap"] = True
                details["bubblewrap"] = "no network, new pid/ipc/uts/user namespaces, read-only /usr only"
                active["subreaper"] = subreaper
                details["subreaper"] = "parent adopts and reaps bwrap's namespace init" if subreaper else "prctl failed"
            else:
                details["bubblewrap"] = f"bwrap does not run here: {why}"
            if subreaper:
                reap_orphans()
    if not active["bubblewrap"]:
        requested["subreaper"] = False

    libs = source = None
    if layers.seccomp:
        spec = importlib.util.find_spec("pyseccomp")
        lib_c, lib_seccomp = ctypes.util.find_library("c"), ctypes.util.find_library("seccomp")
        if spec is None or spec.origin is None:
            details["seccomp"] = "PyPI package pyseccomp not installed"
        elif lib_seccomp is None or lib_c is None:
            details["seccomp"] = "libseccomp not found (Debian: apt-get install libseccomp2)"
        else:
            libs = {"c": lib_c, "seccomp": lib_seccomp}
            with open(spec.origin, encoding="utf-8") as fh:
                source = fh.read()
            active["seccomp"] = True  # confirmed per run by the child's ready message
            details["seccomp"] = "default EPERM; no exec, fork, socket, open or writes beyond the pipe"
    active["rlimits"] = layers.rlimits
    if layers.rlimits:
        details["rlimits"] = "AS, CPU, NPROC, FSIZE, NOFILE, CORE (confirmed by the child each run)"

    report = LayerReport(requested=requested, active=active, details=details)
    for name in report.degraded():
        log.warning("sandbox layer %s is NOT active: %s", name, details.get(name, "disabled"))
    return HostSupport(
        interpreter=interpreter, uid=uid, gid=gid, bwrap_argv=argv, drop_argv=drop, seccomp_libs=libs,
        pyseccomp_source=source, subreaper=subreaper, report=report, details=details,
    )
