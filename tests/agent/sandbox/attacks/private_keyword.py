# ruff: noqa
# attack: underscore keyword smuggled into a skill call
# expect: policy_violation
ping(_raw=True)
