# ruff: noqa
# attack: signal module to ignore the CPU limit
# expect: policy_violation
# layer: ast_policy
import signal
signal.signal(signal.SIGXCPU, signal.SIG_IGN)
while True:
    pass
