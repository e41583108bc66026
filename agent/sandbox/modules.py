"""The reviewed modules a program may import, and exactly which of their names it gets.

Standard library only (loaded in the sandbox child). Each entry was chosen for what its objects
expose without an underscore: pure functions on numbers and iterables, containers, the clock. What
a module offers beyond these names is never bound: `import math` gives a namespace holding the
listed functions, not the module object, so `math.__loader__` and friends do not exist for it.

Left out on purpose: random (unseeded randomness breaks reproducible episodes), typing.get_type_hints
(it evaluates annotation strings with eval, outside the AST policy), copy (deepcopy rebuilds objects
through __reduce_ex__), collections.namedtuple (builds classes with exec), statistics and numpy (not
loaded in the child; a cold start would pay for them), os, sys and everything that names a file.
"""

from __future__ import annotations

REVIEWED_MODULES: dict[str, tuple[str, ...]] = {
    "math": (
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "comb", "copysign", "cos",
        "cosh", "degrees", "dist", "e", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "factorial", "floor",
        "fmod", "frexp", "fsum", "gamma", "gcd", "hypot", "inf", "isclose", "isfinite", "isinf", "isnan",
        "isqrt", "lcm", "ldexp", "lgamma", "log", "log10", "log1p", "log2", "modf", "nan", "nextafter", "perm",
        "pi", "pow", "prod", "radians", "remainder", "sin", "sinh", "sqrt", "tan", "tanh", "tau", "trunc", "ulp",
    ),
    "itertools": (
        "accumulate", "chain", "combinations", "combinations_with_replacement", "compress", "count", "cycle",
        "dropwhile", "filterfalse", "groupby", "islice", "pairwise", "permutations", "product", "repeat",
        "starmap", "takewhile", "tee", "zip_longest",
    ),
    "functools": ("reduce", "partial", "cmp_to_key"),
    "collections": ("deque", "defaultdict", "Counter", "OrderedDict"),
    "time": ("time", "perf_counter", "monotonic", "sleep"),
    "json": ("dumps", "loads"),
    "typing": (
        "Any", "Callable", "Dict", "FrozenSet", "Iterable", "Iterator", "List", "Mapping", "Optional",
        "Sequence", "Set", "Tuple", "Union",
    ),
}

# `from __future__ import annotations` is accepted and dropped: programs are always compiled with
# postponed annotations, so no annotation is ever evaluated.
FUTURE_FEATURES = frozenset({"annotations"})


def reviewed_names(module: str) -> tuple[str, ...] | None:
    """The names a program may import from `module`, or None when the module is not reviewed."""
    return REVIEWED_MODULES.get(module)
