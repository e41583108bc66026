"""`jarvis bench NAME`: run the benchmark tests/bench/bench_NAME.py, which prints one JSON object a figure."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import typer

REPO_ROOT = Path(__file__).resolve().parents[2]
# A wheel carries tests/bench as agent/cli/benchmarks (pyproject.toml); a checkout runs them in place.
_INSTALLED = Path(__file__).resolve().parent / "benchmarks"
BENCH_DIR = _INSTALLED if _INSTALLED.is_dir() else REPO_ROOT / "tests" / "bench"


def available() -> list[str]:
    """Benchmark names found in tests/bench/ (or the installed copy)."""
    return sorted(p.stem.removeprefix("bench_") for p in BENCH_DIR.glob("bench_*.py"))


def run_bench(name: str, args: list[str]) -> None:
    """Run one benchmark script in this process with its own argv."""
    script = BENCH_DIR / f"bench_{name}.py"
    if not script.exists():
        raise typer.BadParameter(f"unknown benchmark {name!r}; available: {', '.join(available()) or 'none'}")
    # Benchmarks share the tests' fakes (`from tests...`): the console script, unlike `python -m`, does not put
    # the working directory on sys.path, so the repository root goes there with the benchmarks' own folder.
    added = [str(BENCH_DIR), str(REPO_ROOT)]
    sys.path[:0] = added
    old_argv = sys.argv
    sys.argv = [str(script), *args]
    try:
        runpy.run_path(str(script), run_name="__main__")
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] != "tests":
            raise
        # Some benchmarks share the test suite's fakes, which only a checkout has.
        raise typer.BadParameter(
            f"benchmark {name!r} uses the repository's test helpers ({e.name}); run it from a checkout of the "
            "repository (the installed package carries the benchmarks, not the test suite)") from e
    finally:
        sys.argv = old_argv
        for path in added:
            sys.path.remove(path)


def register(app: typer.Typer) -> None:
    """Add the `bench` command."""

    @app.command(
        "bench",
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        help="Run a benchmark from tests/bench (prints one JSON object per figure).",
    )
    def bench(ctx: typer.Context, name: str = typer.Argument(..., help="Benchmark name, e.g. tasks, sim")) -> None:
        run_bench(name, list(ctx.args))
