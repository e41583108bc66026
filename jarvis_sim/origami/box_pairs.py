"""Pairs of overlapping axis-aligned boxes (and boxes holding points) through a uniform grid, not pair by pair.

Each box is bucketed into the grid cells it covers; two boxes are a candidate when they share a cell, and each pair
is reported once, from the cell at the lower-left corner of the cells both cover (no set of seen pairs). The cell
sides start at the boxes' mean width and height, so a typical box covers a cell or two along each axis whatever the
sheet's aspect, and grow while the boxes would cover more than CELLS_PER_BOX cells on average (a few long
diagonals would otherwise cover the whole grid). Pairs come in chunks of about CHUNK, with `tick` called before
each: densely packed long parallel segments still share cells pairwise, and there the caller's clock stops the work.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
from numpy.typing import NDArray

CHUNK = 1 << 17  # candidate pairs built and tested at once: bounded memory, and the clock is read between chunks
CELLS_PER_BOX = 8  # the grid coarsens until the boxes cover at most this many cells on average
_MAX_CELLS_PER_AXIS = 1 << 20  # cell keys stay small integers however thin the boxes are

Pairs = tuple[NDArray[np.intp], NDArray[np.intp]]


def overlapping_pairs(lo: NDArray[np.float64], hi: NDArray[np.float64],
                      tick: Callable[[], None] | None = None) -> Iterator[Pairs]:
    """Index arrays (i, j), i != j, of every pair of boxes [lo, hi] (each (n, 2)) that overlap or touch, each once.

    A box with a non-finite bound overlaps every box (a caller's "could reach anywhere").
    """
    lo, hi = np.asarray(lo, dtype=float).reshape(-1, 2), np.asarray(hi, dtype=float).reshape(-1, 2)
    n = len(lo)
    finite = np.isfinite(lo).all(axis=1) & np.isfinite(hi).all(axis=1)
    everyone = np.arange(n)
    for w in np.nonzero(~finite)[0].tolist():
        others = everyone[(everyone != w) & (finite | (everyone > w))]  # two unbounded boxes: once
        for start in range(0, len(others), CHUNK):
            if tick is not None:
                tick()
            j = others[start:start + CHUNK]
            yield np.full(len(j), w, dtype=np.intp), j
    ids = np.nonzero(finite)[0]
    if len(ids) > 1:
        yield from ((ids[a], ids[b]) for a, b in _grid_pairs(lo[ids], hi[ids], tick))


class _Grid:
    """Finite boxes bucketed into uniform cells: one row per (box, cell it covers), sorted by cell."""

    def __init__(self, lo: NDArray[np.float64], hi: NDArray[np.float64]) -> None:
        n = len(lo)
        self.lo, self.hi = lo, hi
        self.origin = lo.min(axis=0)
        span = hi.max(axis=0) - self.origin
        cell = np.maximum((hi - lo).mean(axis=0), span / _MAX_CELLS_PER_AXIS)
        cell = np.where(cell > 0, cell, 1.0)
        while True:
            c0, c1 = self.cell_of(lo, cell), self.cell_of(hi, cell)
            wide = c1 - c0 + 1
            covers = wide[:, 0] * wide[:, 1]
            if int(covers.sum()) <= CELLS_PER_BOX * n or (cell >= span).all():
                break
            cell = cell * 2
        self.cell, self.c0, self.c1 = cell, c0, c1
        owner = np.repeat(np.arange(n), covers)
        local = np.arange(len(owner)) - np.repeat(np.cumsum(covers) - covers, covers)
        height = wide[owner, 1]
        self.stride = int(c1[:, 1].max()) + 2
        key = (c0[owner, 0] + local // height) * self.stride + c0[owner, 1] + local % height
        order = np.argsort(key, kind="stable")
        self.key, self.owner = key[order], owner[order]

    def cell_of(self, pts: NDArray[np.float64], cell: NDArray[np.float64] | None = None) -> NDArray[np.int64]:
        """The (column, row) of the cell holding each point."""
        return np.floor((pts - self.origin) / (self.cell if cell is None else cell)).astype(np.int64)


def _chunks(counts: NDArray[np.int64], tick: Callable[[], None] | None) -> Iterator[tuple[int, int]]:
    """Row ranges [start, stop) whose counts sum to about CHUNK each, with `tick` called before each."""
    stops = np.searchsorted(np.cumsum(counts), np.arange(CHUNK, int(counts.sum()) + CHUNK, CHUNK), side="right")
    start = 0
    for stop in [*np.unique(stops).tolist(), len(counts)]:
        if stop > start:
            if tick is not None:
                tick()
            yield start, stop
            start = stop


def _expand(rows: NDArray[np.int64], firsts: NDArray[np.int64], counts: NDArray[np.int64]) -> Pairs:
    """(row, firsts[row] + k) for k < counts[row], for every row."""
    a = np.repeat(rows, counts)
    b = np.repeat(firsts, counts) + np.arange(len(a)) - np.repeat(np.cumsum(counts) - counts, counts)
    return a, b


def _grid_pairs(lo: NDArray[np.float64], hi: NDArray[np.float64], tick: Callable[[], None] | None) -> Iterator[Pairs]:
    """overlapping_pairs for finite boxes."""
    g = _Grid(lo, hi)
    rows = np.arange(len(g.key))
    later = np.searchsorted(g.key, g.key, side="right") - rows - 1  # each row pairs with the rows after it in its cell
    for start, stop in _chunks(later, tick):
        first, second = _expand(rows[start:stop], rows[start:stop] + 1, later[start:stop])
        a, b = g.owner[first], g.owner[second]
        here = g.key[first]
        # Report a pair only from the lower-left cell both boxes cover, and only when the boxes themselves meet.
        keep = ((here // g.stride == np.maximum(g.c0[a, 0], g.c0[b, 0]))
                & (here % g.stride == np.maximum(g.c0[a, 1], g.c0[b, 1]))
                & (lo[a] <= hi[b]).all(axis=1) & (lo[b] <= hi[a]).all(axis=1))
        yield a[keep], b[keep]


def boxes_at_points(lo: NDArray[np.float64], hi: NDArray[np.float64], pts: NDArray[np.float64],
                    tick: Callable[[], None] | None = None) -> Iterator[Pairs]:
    """Index arrays (box, point) of every finite box [lo, hi] that holds a point (its border included), in chunks."""
    lo, hi = np.asarray(lo, dtype=float).reshape(-1, 2), np.asarray(hi, dtype=float).reshape(-1, 2)
    pts = np.asarray(pts, dtype=float).reshape(-1, 2)
    if not len(lo) or not len(pts):
        return
    g = _Grid(lo, hi)
    c = g.cell_of(pts)
    inside = (c >= 0).all(axis=1) & (c <= g.c1.max(axis=0)).all(axis=1)
    key = np.where(inside, c[:, 0] * g.stride + c[:, 1], -1)
    firsts = np.searchsorted(g.key, key, side="left")
    counts = np.where(inside, np.searchsorted(g.key, key, side="right") - firsts, 0)
    points = np.arange(len(pts))
    for start, stop in _chunks(counts, tick):
        point, row = _expand(points[start:stop], firsts[start:stop], counts[start:stop])
        box = g.owner[row]
        keep = (lo[box] <= pts[point]).all(axis=1) & (pts[point] <= hi[box]).all(axis=1)
        yield box[keep], point[keep]
