# ruff: noqa
bricks = observe()
if (n := len([b for b in bricks if b.free_to_grasp])) > 2:
    print(f"{n} graspable bricks")
