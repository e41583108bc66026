# ruff: noqa
observe()
pick("p4")
place_on("p6", 0, 0)
observe()
rel = where_is("p4", "p6")
print(rel["stud_x"], rel["stud_y"], rel["level"])
