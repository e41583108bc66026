# ruff: noqa
# attack: socket to the host's 127.0.0.1
# expect: policy_violation
# layer: ast_policy
import socket
s = socket.create_connection(("127.0.0.1", {{PORT}}))
s.sendall(b"ESCAPED")
