# ruff: noqa
# attack: raw escape: raise the address-space limit back up
# expect: policy_violation
# layer: ast_policy
# evidence: stdout
# os_layer: rlimits
imp = (x for x in [1]).gi_frame.f_builtins["__import__"]
resource = imp("resource")
try:
    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    if soft == resource.RLIM_INFINITY:
        print("ESCAPED rlimit")
except (ValueError, OSError) as exc:
    print("denied", exc)
