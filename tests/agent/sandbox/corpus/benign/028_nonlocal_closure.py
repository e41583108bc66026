# ruff: noqa
def make_counter():
    count = 0

    def step():
        nonlocal count
        count += 1
        return count

    return step


tick = make_counter()
for _ in range(3):
    tick()
print(tick())
