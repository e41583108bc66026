# ruff: noqa
# attack: an enormous integer power burning CPU
# expect: timeout|resource_limit
# layer: wall_clock_kill
x = 7 ** (10 ** 9)
