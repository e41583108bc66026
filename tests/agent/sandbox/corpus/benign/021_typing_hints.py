# ruff: noqa
from typing import List, Optional


def pick_first(color: str, bricks: List) -> Optional[str]:
    for b in bricks:
        if b.color == color and not b.in_structure:
            return b.id
    return None


bricks = observe()
first = pick_first("yellow", bricks)
print("first yellow:", first)
