# ruff: noqa
# attack: str.format_map called unbound with a mapping holding a stub; AttributeError.obj returns sys
# expect: policy_violation
# layer: format_checker
# evidence: stdout
try:
    str.format_map("{p.__globals__[sys].no_such_attribute}", {"p": ping})
except AttributeError as e:
    print("ESCAPED" if e.obj is not None else "contained", e.obj)
