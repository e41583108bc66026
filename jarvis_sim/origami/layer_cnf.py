"""The layer-order problem as CNF, handed to the SAT solver in batches instead of held in Python lists.

Variables are 'face f above face g' for overlapping face pairs (f < g), numbered from 1 as they are met, then the
cardinality encodings' auxiliaries, then selector literals that name a constraint group (for unsatisfiable
cores). The small constraint families (crease assignments, tacos, Maekawa) are kept as lists until the last
variable is known; transitivity, which dominates (a stack of k faces gives 2 C(k, 3) clauses), is generated with
numpy and streamed. Numbering and clause order are those of the list-building version this replaced, so the
solver returns the same layer orders (and the shipped GamiBench files stay byte-identical).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence

import numpy as np
from numpy.typing import NDArray
from pysat.card import CardEnc, EncType
from pysat.solvers import Solver

BATCH = 200_000  # clauses handed to the solver at once
# Peak resident memory per clause of CaDiCaL 1.5.3 holding the problem (tests/bench/bench_foldability.py prints it;
# the solving child's peak is about the builder's): 12 x 12 map fold, 1.0 M clauses, 249 B a clause (the 70 MB
# interpreter weighs here); 16 x 16, 5.8 M clauses, 761 MB, 139 B; 20 x 20, 21.8 M clauses, 2,760 MB, 133 B. The
# list-building version this replaced took about 450 B a clause before the solver's own copy.
BYTES_PER_CLAUSE = 140
_SELECTOR_BASE = 1 << 40  # selectors are numbered past every other variable once that count is known


class LayerCnf:
    """The layer problem's variables and small clause families; `stream` hands everything to a solver."""

    def __init__(self) -> None:
        self.var: dict[tuple[int, int], int] = {}
        self.groups: dict[int, tuple[str, tuple[int, ...]]] = {}
        self.top = 0  # the last variable that is not a selector
        self.clauses: dict[str, list[list[int]]] = {}  # family -> clauses (selectors as placeholders)
        self.triples = 0  # distinct transitivity triples, once streamed

    def pair(self, f: int, g: int) -> int:
        """Literal for 'f above g'."""
        key, sign = ((f, g), 1) if f < g else ((g, f), -1)
        v = self.var.get(key)
        if v is None:
            v = self.var[key] = len(self.var) + 1
            self.top = max(self.top, v)
        return sign * v

    def group(self, rule: str, edges: tuple[int, ...]) -> int:
        """A selector literal for a named constraint group (assumed true when solving)."""
        sel = _SELECTOR_BASE + len(self.groups) + 1
        self.groups[sel] = (rule, edges)
        return sel

    def add(self, family: str, clause: list[int]) -> None:
        """Keep a clause of a small family until the problem is streamed."""
        self.clauses.setdefault(family, []).append(clause)

    def cardinality_equals(self, lits: list[int], bound: int, guard: int) -> None:
        """Exactly `bound` of `lits` true whenever `guard` is false (sequential counter)."""
        enc = CardEnc.equals(lits=lits, bound=bound, top_id=self.top, encoding=EncType.seqcounter)
        self.top = max(self.top, enc.nv)
        for c in enc.clauses:
            self.add("maekawa", [guard, *c])

    def small_count(self) -> int:
        """Clauses of the small families so far."""
        return sum(len(c) for c in self.clauses.values())

    def stream(self, solver: Solver, stacks: Sequence[tuple[int, ...]], order: Sequence[str],
               tick: Callable[[str], None]) -> tuple[int, dict[int, tuple[str, tuple[int, ...]]]]:
        """Hand every clause to `solver`: the families in `order`, transitivity where "transitivity" stands.

        Returns (clauses added, groups by their final selector number).
        """
        shift = self.top - _SELECTOR_BASE

        def ren(lit: int) -> int:
            a = abs(lit)
            return lit if a <= _SELECTOR_BASE else (1 if lit > 0 else -1) * (a + shift)

        count = 0
        for family in order:
            if family == "transitivity":
                for batch in self._transitivity(stacks, tick):
                    solver.append_formula(batch)
                    count += len(batch)
                    tick("adding transitivity clauses")
                continue
            clauses = self.clauses.get(family, [])
            for start in range(0, len(clauses), BATCH):
                solver.append_formula([[ren(x) for x in c] for c in clauses[start:start + BATCH]])
                tick(f"adding {family} clauses")
            count += len(clauses)
        return count, {sel + shift: g for sel, g in self.groups.items()}

    def _transitivity(self, stacks: Sequence[tuple[int, ...]],
                      tick: Callable[[str], None]) -> Iterable[list[list[int]]]:
        """For every three faces a < b < c sharing a stack, in sorted order, the clauses forbidding both 3-cycles."""
        codes = unique_triples(stacks, tick)
        self.triples = len(codes)
        n = 1 + max((f for s in stacks for f in s), default=0)
        # Every pair of a stack has its variable already: look them up vectorised, by f n + g.
        items = sorted((f * n + g, v) for (f, g), v in self.var.items())
        keys = np.fromiter((k for k, _ in items), dtype=np.int64, count=len(items))
        vals = np.fromiter((v for _, v in items), dtype=np.int64, count=len(items))
        for start in range(0, len(codes), BATCH // 2):
            a, rest = np.divmod(codes[start:start + BATCH // 2], n * n)
            b, c = np.divmod(rest, n)
            lits = np.stack([_lits(keys, vals, n, x, y) for x, y in ((a, b), (b, c), (c, a))], axis=1)
            yield np.stack([-lits, lits], axis=1).reshape(-1, 3).tolist()


def _lits(keys: NDArray[np.int64], vals: NDArray[np.int64], n: int, f: NDArray[np.int64],
          g: NDArray[np.int64]) -> NDArray[np.int64]:
    """Literals 'f above g' for arrays of faces, from the sorted pair keys (f n + g, f < g) and their variables."""
    lo, hi = np.minimum(f, g), np.maximum(f, g)
    v = vals[np.searchsorted(keys, lo * n + hi)]
    return np.where(f < g, v, -v)


def unique_triples(stacks: Sequence[tuple[int, ...]], tick: Callable[[str], None]) -> NDArray[np.int64]:
    """Every (a < b < c) inside one stack, encoded a n^2 + b n + c, sorted and without repeats."""
    n = 1 + max((f for s in stacks for f in s), default=0)
    parts: list[NDArray[np.int64]] = []
    for stack in stacks:
        k = len(stack)
        if k < 3:
            continue
        faces = np.asarray(sorted(stack), dtype=np.int64)
        for i in range(k - 2):
            j, m = np.triu_indices(k - i - 1, k=1)
            parts.append(faces[i] * n * n + faces[i + 1 + j] * n + faces[i + 1 + m])
        tick("listing transitivity triples")
    if not parts:
        return np.zeros(0, dtype=np.int64)
    codes = np.concatenate(parts)
    deep = sum(1 for s in stacks if len(s) >= 3)
    return codes if deep == 1 else np.unique(codes)  # one stack's triples come out sorted and distinct


def stack_sizes(stacks: Iterable[tuple[int, ...]]) -> tuple[int, int]:
    """(pairs, triples) of faces sharing a stack, counted before anything is built."""
    pairs = triples = 0
    for s in stacks:
        k = len(s)
        pairs += k * (k - 1) // 2
        triples += k * (k - 1) * (k - 2) // 6
    return pairs, triples


def cell_pairs(cell_faces: Iterable[Sequence[int]]) -> Iterable[tuple[int, int]]:
    """Every face pair sharing a cell, cell by cell (the order variables are numbered in)."""
    for fs in cell_faces:
        yield from itertools.combinations(fs, 2)
