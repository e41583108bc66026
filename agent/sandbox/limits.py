"""Configuration of the sandbox: resource limits per program and which isolation layers to use."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SandboxLimits(BaseModel):
    """Caps on one program run; every one ends the program with outcome timeout or resource_limit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    wall_s: float = Field(default=30.0, gt=0, description="Wall-clock seconds the program may run, time inside skill calls included.")
    cpu_s: int = Field(default=30, ge=1, description="CPU seconds (RLIMIT_CPU); the hard limit is one more.")
    memory_bytes: int = Field(default=1 << 30, ge=64 << 20, description="Address space of the child (RLIMIT_AS).")
    max_open_files: int = Field(default=16, ge=4, description="RLIMIT_NOFILE of the child.")
    max_calls: int = Field(default=2000, ge=0, description="Skill calls per program.")
    max_message_bytes: int = Field(default=1 << 20, ge=1024, description="Largest JSON-RPC line either way.")
    max_argument_bytes: int = Field(default=64 * 1024, ge=1024, description="Largest skill call a program may send "
                                    "(its JSON line, arguments included); a larger one is refused with error kind "
                                    "'argument_too_large' that the program can catch, and never reaches a skill.")
    max_stdout_chars: int = Field(default=64 * 1024, ge=0, description="Characters of printed output kept.")
    max_code_bytes: int = Field(default=256 * 1024, ge=1, description="Largest program source accepted.")
    max_recursion: int = Field(default=400, ge=50, description="Python recursion limit in the child.")
    startup_s: float = Field(default=15.0, gt=0, description="Seconds a child may take from spawn to ready; a ready child then waits for its program indefinitely.")


class SandboxLayers(BaseModel):
    """Which isolation layers to request; each degrades loudly when the machine lacks it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ast_policy: bool = Field(default=True, description="Reject programs outside the AST allow-list.")
    restricted_builtins: bool = Field(default=True, description="Give programs only the safe builtins table.")
    unprivileged_uid: bool = Field(default=True, description="Run the child as `sandbox_user` when started as root.")
    bubblewrap: bool = Field(default=True, description="Run the child under bwrap: no network, minimal read-only fs.")
    seccomp: bool = Field(default=True, description="Default-deny syscall filter in the child.")
    rlimits: bool = Field(default=True, description="AS, CPU, NPROC, FSIZE, NOFILE and CORE limits in the child.")
    sandbox_user: str = Field(default="nobody", description="Account the child runs as when the parent is root.")
