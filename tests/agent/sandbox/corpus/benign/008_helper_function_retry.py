# ruff: noqa
def pick_with_retry(brick_id, attempts=3):
    for attempt in range(attempts):
        try:
            return pick(brick_id)
        except SkillError as err:
            print(f"attempt {attempt + 1} failed: {err.kind}")
            observe()
    return None


observe()
res = pick_with_retry("p2")
if res is not None:
    place_on("p6", 4, 0)
