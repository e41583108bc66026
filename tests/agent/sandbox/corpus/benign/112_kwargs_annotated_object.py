# ruff: noqa
def log_step(name: str, **extra: object) -> None:
    print(name, sorted(extra))


bricks = observe()
log_step("observed", count=len(bricks), first=bricks[0].id)
