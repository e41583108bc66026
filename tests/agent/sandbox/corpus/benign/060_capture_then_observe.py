# ruff: noqa
imgs = capture_images()
bricks = observe()
print(imgs["rgb"], len(bricks))
