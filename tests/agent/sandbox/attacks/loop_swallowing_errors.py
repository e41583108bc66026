# ruff: noqa
# attack: infinite loop that swallows every exception
# expect: timeout
# layer: wall_clock_kill
while True:
    try:
        x = [0] * 10
    except:
        pass
