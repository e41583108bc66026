"""Child-subreaper handling: bwrap's outer process exits without reaping its namespace init, so the
parent adopts such orphans (PR_SET_CHILD_SUBREAPER) and reaps them; left alone they would pile up
as zombies and count against the sandbox user's RLIMIT_NPROC.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import sys

PR_SET_CHILD_SUBREAPER = 36


def set_subreaper() -> bool:
    """Adopt orphaned descendants (bwrap leaves its namespace init behind) so they can be reaped."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def reap_orphans() -> int:
    """Reap zombie children adopted as subreaper (bwrap's namespace init); return how many."""
    me, reaped = os.getpid(), 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        head, _, tail = stat.rpartition(b")")
        comm = head.partition(b"(")[2]
        fields = tail.split()
        if len(fields) < 2 or fields[0] != b"Z" or int(fields[1]) != me:
            continue
        if comm == b"bwrap":
            with contextlib.suppress(ChildProcessError):
                os.waitpid(int(entry), os.WNOHANG)
                reaped += 1
    return reaped
