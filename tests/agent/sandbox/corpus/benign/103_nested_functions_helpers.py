# ruff: noqa
def build(steps):
    def do(step):
        bid, sx, sy = step
        pick(bid)
        res = place_on("p6", sx, sy)
        observe()
        return res.seated

    return [do(s) for s in steps]


observe()
print(build([("p4", 0, 0), ("p2", 4, 0)]))
