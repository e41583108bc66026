# ruff: noqa
# attack: a bound format lookup that fails half-way: its AttributeError must carry no object
# expect: ok
# layer: format_checker
# evidence: stdout
r = ping("x")
try:
    "{0.keys.nope}".format(r)
except AttributeError as e:
    print("ESCAPED" if e.obj is not None else "contained")
