# ruff: noqa
def centre(bricks):
    xs = [b.x_mm for b in bricks]
    ys = [b.y_mm for b in bricks]
    return sum(xs) / len(xs), sum(ys) / len(ys)


cx, cy = centre(observe())
print(f"centre at {cx:.1f}, {cy:.1f}")
