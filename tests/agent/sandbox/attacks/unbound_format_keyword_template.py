# ruff: noqa
# attack: str.format with the template smuggled as a keyword
# expect: error
# layer: format_checker
print(str.format(self="{0.__class__}"))
