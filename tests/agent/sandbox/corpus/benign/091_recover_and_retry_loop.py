# ruff: noqa
def place_safely(bid, sx, sy):
    for attempt in range(2):
        try:
            pick(bid)
            return place_on("p6", sx, sy)
        except SkillError as e:
            print("retry after", e.kind)
            try:
                put_down()
            except SkillError:
                pass
            observe()
    return None


observe()
r = place_safely("p5", 0, 0)
print(r.seated if r else "gave up")
