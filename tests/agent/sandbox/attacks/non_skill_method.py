# ruff: noqa
# attack: call a method that is not a skill
# expect: error
# layer: restricted_builtins
system("ls")
