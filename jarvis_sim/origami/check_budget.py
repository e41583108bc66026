"""The budget of one global foldability check, and the clock that keeps it (building and solving).

A check past its budget ends *undecided* (never a guess): the memory budget refuses a layer problem before it
is built, from its clause count, and the clock stops it while it is built or solved. CaDiCaL cannot be
interrupted through pysat, so where the platform forks the solve runs in a child process killed at the deadline.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pysat.solvers import Solver

from jarvis_sim.origami.layer_cnf import BYTES_PER_CLAUSE

SAT_SOLVER = "cadical153"  # the shipped GamiBench patterns' layer orders (and so their bytes) come from it


@dataclass(frozen=True)
class CheckLimits:
    """The budget of one global check; past it the verdict is undecided, never a guess.

    The defaults decide every layer problem that fits 2 GiB (about 15 million clauses: 355 faces in one stack)
    and is built and solved within 120 s of wall clock (a 16 x 16 map fold, 256 faces in one stack, 5.8 million
    clauses: 32 s and 0.76 GB on a shared 2-core machine); a larger problem is refused before it is built, a
    slower one stopped when the clock runs out, building or solving.
    """

    time_s: float = 120.0  # wall clock for the global check: placing, overlaying, building and solving
    memory_mb: int = 2048  # the layer problem's memory; its clause limit is memory_mb / BYTES_PER_CLAUSE
    max_clauses: int | None = None  # an explicit clause limit in place of the memory budget's
    # perf_counter() at the start of the whole check: check() sets it, so the time before the global check and a
    # second pass within the file's precision spend the same time_s (each pass had its own: 10.5 s at 5 s).
    started: float | None = None

    @property
    def clause_limit(self) -> int:
        """The largest layer problem attempted, in clauses."""
        return self.max_clauses if self.max_clauses is not None else self.memory_mb * 2**20 // BYTES_PER_CLAUSE

    def budget_text(self) -> str:
        """The limit as a person reads it in an undecided verdict."""
        if self.max_clauses is not None:
            return f"clause limit {self.max_clauses:,}"
        return f"memory budget {self.memory_mb:,} MB: at most {self.clause_limit:,} clauses"


class _Undecided(Exception):
    """The check stopped at a limit; the message says which and how far it got."""


class _Clock:
    def __init__(self, limits: CheckLimits, progress: Callable[[str], None] | None) -> None:
        self.limits, self.progress = limits, progress
        self.t0 = limits.started if limits.started is not None else time.perf_counter()

    def tick(self, stage: str) -> None:
        elapsed = time.perf_counter() - self.t0
        if elapsed > self.limits.time_s:
            raise _Undecided(f"time limit of {self.limits.time_s:g} s reached while {stage}")

    def say(self, message: str) -> None:
        self.tick(message)
        if self.progress is not None:
            self.progress(f"{time.perf_counter() - self.t0:7.2f} s  {message}")

    def solve(self, solver: Solver, assumptions: list[int]) -> tuple[bool, list[int]]:
        """(satisfiable, the model or the unsatisfiable core), stopped (undecided) when the time budget runs out.

        CaDiCaL cannot be interrupted through pysat, so where the platform forks, a child process solves (sharing
        the built problem copy-on-write; this process drops its copy) and is killed at the deadline.
        """
        left = self.limits.time_s - (time.perf_counter() - self.t0)
        if left <= 0:
            self.tick("solving")
        if "fork" not in multiprocessing.get_all_start_methods():
            return _solve_here(solver, assumptions)
        ctx = multiprocessing.get_context("fork")
        receive, send = ctx.Pipe(duplex=False)
        child = ctx.Process(target=_solve_in_child, args=(solver, assumptions, send), daemon=True)
        child.start()
        send.close()
        solver.delete()  # the child has the problem; keeping this copy would only double the memory
        try:
            if not receive.poll(left):
                raise _Undecided(f"time limit of {self.limits.time_s:g} s reached while solving")
            found, lits = receive.recv()
        except EOFError:
            raise _Undecided(f"the SAT solver stopped without an answer (exit code {child.exitcode})") from None
        finally:
            if child.is_alive():
                child.kill()
            child.join()
            receive.close()
        return bool(found), list(lits)


def _solve_here(solver: Solver, assumptions: list[int]) -> tuple[bool, list[int]]:
    found = solver.solve(assumptions=assumptions)
    return bool(found), list((solver.get_model() if found else solver.get_core()) or [])


def _solve_in_child(solver: Solver, assumptions: list[int], send: Any) -> None:
    send.send(_solve_here(solver, assumptions))
    send.close()
