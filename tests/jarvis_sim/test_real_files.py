"""Real LDraw and FOLD files nobody on the team wrote: each must end in an import or a clear error, never a crash.

The files are not in the repository (their licences and sizes vary): point JARVIS_REAL_LDRAW_DIR and/or
JARVIS_REAL_FOLD_DIR at folders of .ldr/.mpd and .fold files (e.g. three.js's packed OMR models, MLCad and LeoCAD
files, Origami Simulator and flat-folder patterns); each test is skipped when its variable is unset. A clear error
is exactly what the CLI reports as one (`jarvis tasks from-ldraw`: LDrawError or AssemblyError, exit 2;
`jarvis origami check`: FoldFormatError, exit 2); any other exception is a bug and fails the test with its file.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.cli.origami import check_file
from agent.cli.tasks import tasks_from_ldraw
from jarvis_sim.lego.assembly import AssemblyError
from jarvis_sim.lego.ldraw import ImportOptions, LDrawError
from jarvis_sim.origami.fold_format import FoldFormatError
from jarvis_sim.origami.foldability import CheckLimits

# The FOLD check's clock per file: short enough for a folder of files, long enough to decide the small ones.
# Undecided past it is an answer (the CLI's exit 3), not an error.
FOLD_SECONDS = float(os.environ.get("JARVIS_REAL_FOLD_SECONDS", "30"))

# The CLI's defaults, then `--unsupported substitute --unbuildable drop` (what a user tries after the first error):
# the import options and the single-arm treatment, as `jarvis tasks from-ldraw` passes them.
LDRAW_OPTIONS = {"default": (ImportOptions(), "fail"),
                 "lenient": (ImportOptions(unsupported="substitute", unbuildable="drop"), "drop")}


def _files(variable: str, suffixes: tuple[str, ...]) -> list[Path]:
    folder = os.environ.get(variable)
    if not folder:
        return []
    files = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in suffixes)
    assert files, f"{variable}={folder} holds no {'/'.join(suffixes)} file"
    return files


def _ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


LDRAW_FILES = _files("JARVIS_REAL_LDRAW_DIR", (".ldr", ".mpd"))
FOLD_FILES = _files("JARVIS_REAL_FOLD_DIR", (".fold",))


@pytest.mark.slow
@pytest.mark.skipif(not LDRAW_FILES, reason="JARVIS_REAL_LDRAW_DIR is not set")
@pytest.mark.parametrize("mode", sorted(LDRAW_OPTIONS))
@pytest.mark.parametrize("path", LDRAW_FILES, ids=_ids(LDRAW_FILES))
def test_real_ldraw_imports_or_says_why(path: Path, mode: str, tmp_path: Path) -> None:
    options, single_arm = LDRAW_OPTIONS[mode]
    try:
        summary = tasks_from_ldraw(path, tmp_path / "tasks.jsonl", 0, options, single_arm)
    except (LDrawError, AssemblyError) as e:  # what the CLI prints as "error: ..." with exit 2
        assert str(e).strip(), f"{path.name}: an error with no message"
        return
    assert summary["bricks"] > 0 and summary["tasks"] > 0, f"{path.name}: an import with no tasks: {summary}"


@pytest.mark.slow
@pytest.mark.skipif(not FOLD_FILES, reason="JARVIS_REAL_FOLD_DIR is not set")
@pytest.mark.parametrize("path", FOLD_FILES, ids=_ids(FOLD_FILES))
def test_real_fold_decides_or_says_why(path: Path) -> None:
    try:
        verdict = check_file(path, CheckLimits(time_s=FOLD_SECONDS))
    except FoldFormatError as e:  # what the CLI prints with exit 2
        assert str(e).strip(), f"{path.name}: a FoldFormatError with no message"
        return
    assert "decided" in verdict and "foldable" in verdict, f"{path.name}: verdict lacks decided/foldable: {verdict}"
