# ruff: noqa
import time

t0 = time.perf_counter()
observe()
elapsed = time.perf_counter() - t0
print("observe took", "under a second" if elapsed < 1.0 else "long")
