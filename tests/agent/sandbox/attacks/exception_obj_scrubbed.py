# ruff: noqa
# attack: AttributeError.obj handed to the handler is cut (no underscore needed to read it)
# expect: ok
# layer: exception_scrub
# evidence: stdout
try:
    ping.nope
except AttributeError as e:
    print("ESCAPED" if e.obj is not None else "contained")
