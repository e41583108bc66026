# ruff: noqa
# attack: raw escape: write skill calls to fd 1 and never read the replies
# expect: policy_violation
# layer: ast_policy
# evidence: stdout
# os_layer: protocol
os = (x for x in [1]).gi_frame.f_builtins["__import__"]("os")
req = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"payload":"' + b"x" * 2000 + b'"}}\n'
for i in range(200000):
    os.write(1, req)
