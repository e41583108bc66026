"""What a foldability check finds: violated rules, the folded state with its layer order, and the verdict."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from jarvis_sim.origami import affine2d as A
from jarvis_sim.origami.fold_format import CreasePattern


@dataclass(frozen=True)
class Violation:
    """One broken rule and where: a vertex, a crease (edge index) or a set of creases."""

    rule: str
    message: str
    vertices: tuple[int, ...] = ()
    edges: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """JSON form for reports."""
        return {"rule": self.rule, "message": self.message, "vertices": list(self.vertices), "edges": list(self.edges)}


@dataclass
class FoldedState:
    """Faces of the flat-folded state: affine maps from the sheet and the solver's layer relation."""

    faces: list[tuple[int, ...]]
    face_edges: list[tuple[int, ...]]
    transforms: list[NDArray[np.float64]]  # 2x3 [A | t]
    flipped: list[bool]
    above: dict[tuple[int, int], bool] = field(default_factory=dict)  # (f, g), f < g: True when f is above g
    crease_faces: dict[int, tuple[int, int]] = field(default_factory=dict)  # crease edge -> its two faces

    def is_above(self, f: int, g: int) -> bool | None:
        """True when face f lies above face g in the folded state; None when they do not overlap."""
        if f < g:
            return self.above.get((f, g))
        v = self.above.get((g, f))
        return None if v is None else not v

    def crease_assignment(self, e: int) -> str:
        """The M/V assignment of crease e implied by the solved layer order."""
        f, g = self.crease_faces[e]
        return "V" if bool(self.is_above(g, f)) != self.flipped[f] else "M"

    def folded_polygon(self, cp: CreasePattern, f: int) -> NDArray[np.float64]:
        """Face f's polygon in the folded plane."""
        m = self.transforms[f]
        return A.apply(m, cp.vertices[list(self.faces[f])])

    def layer_rank(self) -> list[int]:
        """A global stacking rank per face (0 = bottom) consistent with the solved relation where acyclic."""
        n = len(self.faces)
        succ: dict[int, list[int]] = {i: [] for i in range(n)}
        indeg = [0] * n
        for (f, g), f_above in sorted(self.above.items()):
            lo, hi = (g, f) if f_above else (f, g)
            succ[lo].append(hi)
            indeg[hi] += 1
        rank = [0] * n
        ready = deque(sorted(i for i in range(n) if indeg[i] == 0))
        done = 0
        while done < n:
            if not ready:  # a cycle across separate overlap regions: break it at the lowest index
                ready.append(min(i for i in range(n) if indeg[i] > 0))
                indeg[ready[0]] = 0
            v = ready.popleft()
            if indeg[v] < 0:
                continue
            indeg[v] = -1
            done += 1
            for w in succ[v]:
                rank[w] = max(rank[w], rank[v] + 1)
                if indeg[w] > 0:
                    indeg[w] -= 1
                    if indeg[w] == 0:
                        ready.append(w)
        return rank


@dataclass
class Verdict:
    """The verifier's answer: foldable or not, every violation found, and the folded state when solved."""

    foldable: bool
    violations: list[Violation]
    local_ok: bool
    global_checked: bool
    state: FoldedState | None = None
    stats: dict[str, int] = field(default_factory=dict)
    decided: bool = True  # False: a limit stopped the check; `foldable` is then False and means "unknown"
    undecided_reason: str = ""
    tolerance: dict[str, Any] = field(default_factory=dict)  # the coordinate noise assumed and what it implied
    as_written: list[str] = field(default_factory=list)  # rules broken at exact tolerances, when it was widened

    @property
    def rules(self) -> list[str]:
        """Names of the violated rules, sorted and unique."""
        return sorted({v.rule for v in self.violations})

    def to_json(self) -> dict[str, Any]:
        """JSON form printed by `jarvis origami check`."""
        return {
            "foldable": self.foldable if self.decided else None,
            "decided": self.decided,
            **({"undecided_reason": self.undecided_reason} if not self.decided else {}),
            "local_ok": self.local_ok,
            "global_checked": self.global_checked,
            "violated_rules": self.rules,
            "violations": [v.to_json() for v in self.violations],
            "stats": self.stats,
            **({"tolerance": self.tolerance} if self.tolerance else {}),
            **({"violated_as_written": self.as_written} if self.as_written else {}),
        }
