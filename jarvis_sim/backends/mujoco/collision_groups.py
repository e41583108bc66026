"""Collision bitmasks that keep bricks welded together from colliding with each other.

Bricks clutched together are held by their welds (clutch.py); the contacts between them carry nothing the welds
do not, yet they were most of the simulator's work: a 41-brick tower woken by one placement produced 977
contacts and 4,300 constraint rows, 34 ms per control tick. So every welded cluster (a connected component of
the clutch graph, the baseplate with everything clutched to it being one) gets its own contact bit, and its
bricks collide with everything except their own cluster. A brick whose connections break leaves its cluster
and collides with its former neighbours again; the brick geometry (hollow underside, tubes, studs) lets a
seated brick sit on its support without overlap, so the hand-over is quiet.

MuJoCo collides geoms a and b when (contype_a & conaffinity_b) or (contype_b & conaffinity_a). Bits:
- LOOSE_BIT: the table, loose bricks, everything outside a cluster (conaffinity: all bits);
- ARM_BIT: the Panda (see panda.py: its own bit, so its links also collide with each other);
- cluster bits from FIRST_CLUSTER_BIT up: cluster c has contype 1 << c and conaffinity all bits but its own.
With more multi-brick clusters than bits, the smallest extra clusters keep full collision (correct, slower).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

LOOSE_BIT = 0
ARM_BIT = 1
FIRST_CLUSTER_BIT = 2
N_BITS = 31  # contype/conaffinity are int32: bit 31 would make the mask negative
ALL_BITS = (1 << N_BITS) - 1
LOOSE_MASKS = (1 << LOOSE_BIT, ALL_BITS)


@dataclass(frozen=True)
class ClusterMasks:
    """Per-member (contype, conaffinity) and the cluster index of each member (-1: loose)."""

    masks: dict[Hashable, tuple[int, int]]
    cluster_of: dict[Hashable, int]


def clusters(members: Iterable[Hashable], links: Iterable[tuple[Hashable, Hashable]]) -> list[set[Hashable]]:
    """Connected components over the members (union-find); a link may name a member not listed (the ground)."""
    parent: dict[Hashable, Hashable] = {m: m for m in members}

    def root(x: Hashable) -> Hashable:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in links:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[ra] = rb
    groups: dict[Hashable, set[Hashable]] = {}
    for m in parent:
        groups.setdefault(root(m), set()).add(m)
    return list(groups.values())


def cluster_masks(members: Iterable[Hashable], links: Iterable[tuple[Hashable, Hashable]],
                  order: Mapping[Any, int] | None = None) -> ClusterMasks:
    """Masks for every member: a singleton is loose; a multi-member component shares a cluster bit.

    Bits go to the largest components first (ties by the smallest `order` value of a member, so the result does
    not depend on set iteration order).
    """
    rank = order or {}
    comps = [c for c in clusters(members, links) if len(c) > 1]
    comps.sort(key=lambda c: (-len(c), min(rank.get(m, 0) for m in c), min(str(m) for m in c)))
    masks: dict[Hashable, tuple[int, int]] = {}
    cluster_of: dict[Hashable, int] = {}
    for k, comp in enumerate(comps):
        bit = FIRST_CLUSTER_BIT + k
        value = (1 << bit, ALL_BITS & ~(1 << bit)) if bit < N_BITS else LOOSE_MASKS
        for m in comp:
            masks[m] = value
            cluster_of[m] = k if bit < N_BITS else -1
    for comp in clusters(members, links):
        for m in comp:
            masks.setdefault(m, LOOSE_MASKS)
            cluster_of.setdefault(m, -1)
    return ClusterMasks(masks, cluster_of)
