# ruff: noqa
# attack: call a method that is not a skill
# expect: error
system("ls")
