# ruff: noqa
from typing import Dict, Tuple

Target = Tuple[int, int]
plan: Dict[str, Target] = {"p1": (0, 0), "p2": (4, 0)}
observe()
for bid, (sx, sy) in plan.items():
    pick(bid)
    place_on("p6", sx, sy)
    observe()
