# ruff: noqa
bricks = observe()
print("%d bricks, first at %.1f mm" % (len(bricks), bricks[0].x_mm))
