# ruff: noqa
# attack: busy infinite loop
# expect: timeout
# layer: wall_clock_kill
while True:
    pass
