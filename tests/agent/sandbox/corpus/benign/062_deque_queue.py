# ruff: noqa
from collections import deque

queue = deque(b.id for b in observe() if not b.in_structure)
observe()
sx = 0
while queue and sx < 4:
    bid = queue.popleft()
    pick(bid)
    place_on("p6", sx, 0)
    sx += 2
    observe()
print("left in queue:", list(queue))
