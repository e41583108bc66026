# ruff: noqa
# attack: try/except* (RestrictedPython CVE-2023-37271 family)
# expect: policy_violation
# layer: ast_policy
try:
    pass
except* ValueError:
    pass
