# ruff: noqa
# attack: busy infinite loop
# expect: timeout
while True:
    pass
