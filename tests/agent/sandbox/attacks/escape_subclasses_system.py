# ruff: noqa
# attack: raw escape without the AST policy: class-hierarchy walk to os.system writing a host file
# expect: policy_violation
# evidence: marker
# layer: ast_policy
# os_layer: seccomp
for c in ().__class__.__base__.__subclasses__():
    if c.__name__ == "_wrap_close":
        c.__init__.__globals__["system"]("echo ESCAPED > {{MARKER}}")
        c.__init__.__globals__["open"]("{{MARKER}}", c.__init__.__globals__["O_WRONLY"] | 64)
