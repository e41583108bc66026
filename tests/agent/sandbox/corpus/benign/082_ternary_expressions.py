# ruff: noqa
bricks = observe()
label = "many" if len(bricks) > 3 else "few"
print(label, "bricks;", "holding" if False else "empty gripper")
