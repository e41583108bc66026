# ruff: noqa
# attack: time.sleep far past the wall clock
# expect: timeout
# layer: wall_clock_kill
import time
time.sleep(10 ** 6)
