"""What the sandbox child starts from: the modules it builds from stdin, the bootstrap that builds them inside
`python -I -S`, and their bytecode, compiled once per interpreter by that interpreter."""

from __future__ import annotations

import functools
import importlib
import inspect
import subprocess

# Sources the child needs, in dependency order; the child builds them as modules from stdin.
CHILD_MODULES = (
    "agent.sandbox.modules",
    "agent.sandbox.policy",
    "agent.sandbox.protocol",
    "agent.sandbox.builtins_table",
    "agent.sandbox.seccomp_filter",
    "agent.sandbox.child",
)

# Runs in `python -I -S -c`: read one JSON line (module sources and configuration), build the
# modules in memory, hand over to child.main with whatever bytes followed that line.
BOOTSTRAP = r"""
import binascii, json, marshal, os, sys, types
buf = b""
while b"\n" not in buf:
    chunk = os.read(0, 1 << 20)
    if not chunk:
        os._exit(3)
    buf += chunk
line, _, rest = buf.partition(b"\n")
boot = json.loads(line)
config = boot["config"]
for name, code in marshal.loads(binascii.a2b_base64(boot["modules"])):
    if name == "pyseccomp":
        config["pyseccomp_code"] = code
        continue
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    parent, _, leaf = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], leaf, mod)
    if code is None:
        mod.__path__ = []
    else:
        exec(code, mod.__dict__)
sys.modules["agent.sandbox.child"].main(config, rest)
"""

# Compiles module sources with the child's own interpreter, so the marshalled code always matches it.
COMPILER = r"""
import binascii, json, marshal, sys
sources = json.loads(sys.stdin.buffer.read())
codes = [(n, None if s is None else compile(s, n.replace(".", "/") + ".py", "exec")) for n, s in sources]
sys.stdout.buffer.write(binascii.b2a_base64(marshal.dumps(codes), newline=False))
"""


def module_sources(pyseccomp_source: str | None) -> list[tuple[str, str | None]]:
    """(module name, source) of everything the child builds, its empty parent packages first."""
    # the child's empty parent packages (named, not imported: the child builds only the modules below)
    package = __name__.rpartition(".")[0]
    out: list[tuple[str, str | None]] = [(package.partition(".")[0], None), (package, None)]
    for name in CHILD_MODULES:
        out.append((name, inspect.getsource(importlib.import_module(name))))
    if pyseccomp_source is not None:
        out.append(("pyseccomp", pyseccomp_source))
    return out


@functools.cache
def compiled_child(interpreter: str, uid: int | None, gid: int | None, sources_json: str) -> str:
    """Base64 marshal of the child modules, compiled once per interpreter by that interpreter."""
    proc = subprocess.run(
        [interpreter, "-I", "-S", "-c", COMPILER], input=sources_json.encode(), capture_output=True, env={},
        cwd="/", user=uid, group=gid, extra_groups=[] if uid is not None else None, timeout=60, check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"compiling the sandbox child with {interpreter} failed: {proc.stderr.decode()[-2000:]}")
    return proc.stdout.decode("ascii")
