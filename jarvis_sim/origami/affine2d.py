"""2-D vectors and 2x3 affine maps in element-wise IEEE-754 arithmetic, never through BLAS.

The GamiBench generator folds a sheet many times over and accepts or rejects each fold on float
thresholds, so one ulp of difference compounds into a different library. `@`, `np.dot`,
`np.linalg.norm` of a vector and `np.linalg.det` go through OpenBLAS/LAPACK, whose result depends on
the kernel it picks at start-up (OPENBLAS_CORETYPE: FMA or not, summation order); numpy's SIMD
`arctan2` depends on the CPU's dispatch target. Here every product and sum is a separate numpy
ufunc or Python float operation, each exactly rounded, in a fixed order, so the same inputs give the
same bits on every x86-64 machine and kernel.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

Vec = NDArray[np.float64]


def dot(a: Any, b: Any) -> Any:
    """Row-wise dot product over the last axis (length 2); broadcasts like numpy."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]


def norm(v: Any) -> Any:
    """Row-wise Euclidean length (sqrt is exactly rounded, unlike a BLAS dnrm2/ddot)."""
    return np.sqrt(dot(v, v))


def unit(v: Any) -> Vec:
    """v scaled to unit length."""
    v = np.asarray(v, dtype=float)
    return np.asarray(v / norm(v))


def linear(a: NDArray[np.float64], v: Any) -> Vec:
    """A 2x2 matrix times row vectors v (..., 2)."""
    (a00, a01), (a10, a11) = a[:2, :2].tolist()
    v = np.asarray(v, dtype=float)
    if v.ndim == 1:  # one point: Python floats round exactly like numpy's, without the array overhead
        x, y = v.tolist()
        return np.array([a00 * x + a01 * y, a10 * x + a11 * y])
    out = np.empty(v.shape)
    x, y = v[..., 0], v[..., 1]
    out[..., 0] = a00 * x + a01 * y
    out[..., 1] = a10 * x + a11 * y
    return out


def apply(m: NDArray[np.float64], pts: Any) -> Vec:
    """The 2x3 affine map m applied to points (..., 2)."""
    out = linear(m[:, :2], pts)
    return np.asarray(out + m[:, 2])


def matmul2(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """The 2x2 product a b."""
    return np.array([[a[i, 0] * b[0, j] + a[i, 1] * b[1, j] for j in (0, 1)] for i in (0, 1)], dtype=float)


def compose(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """a after b, for 2x3 affine maps."""
    return np.hstack([matmul2(a[:, :2], b[:, :2]), (linear(a[:, :2], b[:, 2]) + a[:, 2])[:, None]])


def det(a: NDArray[np.float64]) -> float:
    """Determinant of the 2x2 part of a (the sign says whether a map flips the sheet)."""
    return float(a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0])


def angles(d: NDArray[np.float64]) -> Vec:
    """atan2 of each row (y, x) from the C library, not numpy's per-CPU SIMD variant."""
    return np.array([math.atan2(float(y), float(x)) for x, y in np.asarray(d, dtype=float).reshape(-1, 2)],
                    dtype=float)


def fsum(values: Any) -> float:
    """Exactly rounded sum, independent of summation order."""
    return math.fsum(np.asarray(values, dtype=float).ravel().tolist())
