# ruff: noqa
# attack: get_type_hints reached through the typing namespace instead of a from-import
# expect: error
# layer: restricted_builtins
import typing
def f(x: "().__class__.__base__"):
    pass
print(typing.get_type_hints(f))
