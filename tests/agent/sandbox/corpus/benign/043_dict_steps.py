# ruff: noqa
manual = [
    {"color": "red", "size": (4, 2), "stud": (0, 0)},
    {"color": "blue", "size": (2, 2), "stud": (4, 0)},
]
observe()
for step in manual:
    match_ = find_bricks(color=step["color"], size=step["size"], loose_only=True)
    if not match_:
        print("missing", step["color"])
        continue
    pick(match_[0].id)
    place_on("p6", *step["stud"])
    observe()
