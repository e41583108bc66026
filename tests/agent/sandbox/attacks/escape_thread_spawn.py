# ruff: noqa
# attack: raw escape: start an OS thread (clone) to run past the wall clock
# expect: policy_violation
# layer: ast_policy
# evidence: stdout
# os_layer: seccomp
imp = (x for x in [1]).gi_frame.f_builtins["__import__"]
try:
    t = imp("_thread")
    t.start_new_thread(print, ("ESCAPED thread",))
    import_time = imp("time")
    import_time.sleep(0.2)
except Exception as exc:
    print("denied", type(exc).__name__)
