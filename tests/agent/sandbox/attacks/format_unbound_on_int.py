# ruff: noqa
# attack: format called on another class (int.format does not exist; must not reach getattr's result)
# expect: error
# layer: format_checker
print(int.format("{0.__class__}", 1))
