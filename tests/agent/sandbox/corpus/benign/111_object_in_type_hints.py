# ruff: noqa
from typing import Dict, List


def summarise(bricks: List[object]) -> Dict[str, object]:
    counts: Dict[str, object] = {}
    for b in bricks:
        counts[b.color] = counts.get(b.color, 0) + 1
    return counts


print(summarise(observe()))
