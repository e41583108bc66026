# ruff: noqa
# attack: infinite loop that swallows every exception
# expect: timeout
while True:
    try:
        x = [0] * 10
    except:
        pass
