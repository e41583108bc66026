"""The built-in skills; importing this package registers them (both libraries)."""

from skills.library import common, generic, task  # noqa: F401
