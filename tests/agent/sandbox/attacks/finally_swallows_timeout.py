# ruff: noqa
# attack: try/finally loops that try to outlive the wall clock
# expect: timeout
# layer: wall_clock_kill
while True:
    try:
        while True:
            pass
    finally:
        continue
