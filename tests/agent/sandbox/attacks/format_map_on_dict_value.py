# ruff: noqa
# attack: x.format where x is a dict with a 'format' key: only the value is called
# expect: ok
# layer: format_checker
d = {"format": len}
print(d["format"]("abc"))
