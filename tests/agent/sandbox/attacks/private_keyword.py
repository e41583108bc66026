# ruff: noqa
# attack: underscore keyword smuggled into a skill call
# expect: policy_violation
# layer: ast_policy
ping(_raw=True)
