# ruff: noqa
# attack: class-hierarchy walk from a tuple to os._wrap_close and os.system
# expect: policy_violation
# layer: ast_policy
for c in ().__class__.__base__.__subclasses__():
    if c.__name__ == "_wrap_close":
        c.__init__.__globals__["system"]("echo ESCAPED > {{MARKER}}")
