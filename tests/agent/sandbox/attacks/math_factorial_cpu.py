# ruff: noqa
# attack: math.factorial of a huge number burning CPU
# expect: timeout|resource_limit
# layer: wall_clock_kill
import math
print(len(str(math.factorial(10 ** 8))))
