# ruff: noqa
rel = None
observe()
try:
    rel = where_is("p1", "p6")
except SkillError as e:
    print(e.kind)
if isinstance(rel, dict):
    print({k: int(v) for k, v in rel.items()})
