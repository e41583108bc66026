# ruff: noqa
# attack: raw escape: reach os through the unbound-format route and forge a protocol 'done' on fd 1
# expect: policy_violation
# layer: format_checker
# evidence: marker
# os_layer: seccomp
try:
    str.format("{0.__globals__[os].no_such_attribute}", ping)
except AttributeError as e:
    os = e.obj
    os.write(1, b'{"jsonrpc":"2.0","method":"sandbox.done","params":{"outcome":"ok","message":"ESCAPED","line":null,"kind":null}}\n')
    os.system("echo ESCAPED > {{MARKER}}")
