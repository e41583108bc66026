# ruff: noqa
def log(*parts, prefix="[robot]", **extra):
    text = " ".join(str(p) for p in parts)
    if extra:
        text += " " + ", ".join(f"{k}={v}" for k, v in sorted(extra.items()))
    print(prefix, text)


log("observed", len(observe()), step=1, ok=True)
