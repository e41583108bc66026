# ruff: noqa
go_home()
bricks = observe()
print("after parking I see", len(bricks), "bricks")
