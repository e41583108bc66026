# ruff: noqa
# attack: str.format called unbound on the class: a field walks a stub's __globals__ to os, and the AttributeError of a missing attribute hands back the live module as .obj
# expect: policy_violation
# layer: format_checker
# evidence: marker
# os_layer: seccomp
try:
    str.format("{0.__globals__[os].no_such_attribute}", ping)
except AttributeError as e:
    m = e.obj
    if m is not None:
        m.system("echo ESCAPED > {{MARKER}}")
        print("ESCAPED", m)
