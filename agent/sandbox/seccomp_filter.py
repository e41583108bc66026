"""The child's seccomp filter: deny by default (EPERM), allow what a running interpreter needs.

No exec, fork, clone, socket, open or kill; writes only to the protocol fds 1 and 2, reads only from
fd 0, and no executable memory. Must be installed after every module the child needs is imported:
with openat denied, a later import fails.
"""

from __future__ import annotations

import errno
from typing import Any

# Memory, signals the interpreter handles itself, time, and exit. Nothing that names a path.
ALWAYS_ALLOWED: tuple[str, ...] = (
    "brk", "munmap", "mremap", "madvise", "futex", "rt_sigreturn", "rt_sigprocmask",
    "rt_sigaction", "sigaltstack", "exit", "exit_group", "clock_gettime", "clock_getres",
    "gettimeofday", "getrandom", "getpid", "gettid", "sched_yield", "fstat", "newfstatat", "lseek",
    "getrusage", "restart_syscall",
    "clock_nanosleep", "nanosleep",  # time.sleep() of the reviewed `time` module: waits, touches nothing
)

PROT_EXEC = 0x4


def install(seccomp: Any) -> int:
    """Load the filter through the pyseccomp module `seccomp`; return how many rules were added."""
    flt = seccomp.SyscallFilter(defaction=seccomp.ERRNO(errno.EPERM))
    added = 0

    def allow(name: str, *args: Any) -> None:
        nonlocal added
        try:
            flt.add_rule(seccomp.ALLOW, name, *args)
        except (OSError, ValueError, RuntimeError):
            return  # a syscall this architecture does not have
        added += 1

    for name in ALWAYS_ALLOWED:
        allow(name)
    allow("read", seccomp.Arg(0, seccomp.EQ, 0))
    allow("write", seccomp.Arg(0, seccomp.EQ, 1))
    allow("write", seccomp.Arg(0, seccomp.EQ, 2))
    allow("mmap", seccomp.Arg(2, seccomp.MASKED_EQ, PROT_EXEC, 0))
    allow("mprotect", seccomp.Arg(2, seccomp.MASKED_EQ, PROT_EXEC, 0))
    flt.load()
    return added
