# ruff: noqa
# attack: one skill call with a 20 MB argument
# expect: resource_limit
# layer: protocol
ping("x" * (20 * 1024 * 1024))
