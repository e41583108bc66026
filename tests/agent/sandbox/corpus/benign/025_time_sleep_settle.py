# ruff: noqa
import time

observe()
pick("p2")
time.sleep(0.05)
place_on("p6", 0, 0)
time.sleep(0.05)
print(len(observe()))
