# ruff: noqa
# attack: unbound str.format walking a generator's frame (no underscore needed)
# expect: policy_violation
# layer: format_checker
g = (x for x in [1])
print(str.format("{0.gi_frame.f_builtins}", g))
