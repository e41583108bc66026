# ruff: noqa
import json

plan_text = '[{"brick": "p1", "stud": [0, 0]}, {"brick": "p2", "stud": [4, 0]}]'
plan = json.loads(plan_text)
observe()
for step in plan:
    pick(step["brick"])
    place_on("p6", step["stud"][0], step["stud"][1])
    observe()
print(json.dumps({"placed": [s["brick"] for s in plan]}))
