# ruff: noqa
bricks = observe()
graspable = [b for b in bricks if b.free_to_grasp and not b.in_structure]
print(bool(graspable), not graspable, len(graspable) or "none")
