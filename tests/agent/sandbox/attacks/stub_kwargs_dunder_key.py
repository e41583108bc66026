# ruff: noqa
# attack: a dunder key smuggled into a skill call through **kwargs
# expect: skill_error
# layer: skill_server
ping(**{"__class__": 1})
