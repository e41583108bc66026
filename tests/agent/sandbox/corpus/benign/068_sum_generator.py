# ruff: noqa
bricks = observe()
area = sum(b.size[0] * b.size[1] for b in bricks if not b.in_structure)
print("loose stud area", area)
