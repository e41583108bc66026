# ruff: noqa
# attack: hasattr with dunder strings to probe internals (answers only True/False)
# expect: ok
# layer: restricted_builtins
print(hasattr(ping, "__globals__"), hasattr(print, "__self__"))
