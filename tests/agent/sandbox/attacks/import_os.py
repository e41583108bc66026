# ruff: noqa
# attack: import of os to run a shell
# expect: policy_violation
import os
os.system("echo ESCAPED > {{MARKER}}")
