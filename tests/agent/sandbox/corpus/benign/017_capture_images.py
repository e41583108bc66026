# ruff: noqa
names = capture_images()
print("rgb:", names["rgb"])
print("depth:", names["depth"])
