"""The wheel carries everything a researcher needs: built here, installed into a fresh venv outside the checkout,
it runs the main job and a benchmark from another folder.

The fresh venv borrows the lock's third-party packages from the environment running the tests (a .pth line
to its site-packages; site-packages named that way do not run their own .pth files, so the checkout's editable
install stays invisible): no download beyond the build backend, and `pip check` proves the wheel's declared
dependencies are what the lock installs. The project itself comes only from the wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Top-level folders whose files the wheel must carry, and where they land in it.
SHIPPED = {"jarvis_sim": "jarvis_sim", "skills": "skills", "agent": "agent", "evaluator": "evaluator",
           "assets": "jarvis_sim/assets", "tests/bench": "agent/cli/benchmarks"}


def _source_files() -> list[str]:
    """Files of the working tree as git sees them (tracked, or new and not ignored)."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return [f for f in out.splitlines() if (ROOT / f).is_file()]


def _copy_tree(files: list[str], dest: Path) -> None:
    # A copy, so the build cannot pick up stale files from the checkout's build/ folder nor leave its own there.
    for rel in files:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)


def _setuptools_reads_spdx() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 77


def _build_wheel(src: Path, dist: Path) -> Path:
    cmd = [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(src)]
    if _setuptools_reads_spdx():  # otherwise build fetches setuptools>=77 into an isolated environment
        cmd.insert(4, "--no-isolation")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"wheel build failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    (wheel,) = dist.glob("jarvis-*.whl")
    return wheel


def _fresh_venv(venv: Path, wheel: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    purelib = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    lock_env = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (Path(purelib) / "jarvis-lock-packages.pth").write_text("\n".join(lock_env) + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True)
    return py


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 900) -> str:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(args)} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.mark.slow
@pytest.mark.render
def test_wheel_installed_elsewhere_runs_the_main_job_and_a_benchmark(tmp_path: Path) -> None:
    files = _source_files()
    src = tmp_path / "src"
    _copy_tree(files, src)
    wheel = _build_wheel(src, tmp_path / "dist")

    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    missing = []
    for rel in files:
        for folder, inside in SHIPPED.items():
            if rel.startswith(folder + "/") and "__pycache__" not in rel:
                shipped = inside + rel[len(folder):]
                if shipped not in names:
                    missing.append(rel)
    assert not missing, f"the wheel lacks {len(missing)} source files, e.g. {missing[:10]}"
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    with zipfile.ZipFile(wheel) as zf:
        assert "License-Expression: Apache-2.0" in zf.read(meta).decode()

    py = _fresh_venv(tmp_path / "venv", wheel)
    jarvis = str(py.parent / "jarvis")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # a fresh user: none of the test session's settings (tests/agent/server/test_fuzz.py sets JARVIS_PLUGINS to a
    # module of the checkout's tests, which an install elsewhere cannot import)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "JARVIS_ASSETS", "VIRTUAL_ENV", "JARVIS_PLUGINS")}
    env["JARVIS_CACHE_DIR"] = str(tmp_path / "cache")
    env.setdefault("MUJOCO_GL", "osmesa")
    env.setdefault("PYOPENGL_PLATFORM", "osmesa")

    where = _run([str(py), "-c", "import jarvis_sim.paths as p; print(p.__file__); print(p.assets_dir())"],
                 elsewhere, env).split()
    venv = str(tmp_path / "venv")
    assert all(w.startswith(venv) for w in where), f"the installed package is not the one imported: {where}"
    _run([str(py), "-m", "pip", "check"], elsewhere, env)
    # The server's migrations, dashboard templates and docs bundles ship too: the app builds its database and pages.
    _run([str(py), "-c", "from fastapi.testclient import TestClient; from agent.server.app import create_app; "
          "from agent.server.settings import ServerSettings; "
          "c = TestClient(create_app(ServerSettings.model_validate({'data_dir': 'srv', 'workers': 0}), "
          "start_workers=False)); assert c.get('/healthz').status_code == 200; "
          "assert c.get('/').status_code == 200; assert c.get('/redoc').status_code == 200"], elsewhere, env)

    suites = [json.loads(line) for line in _run([jarvis, "suites", "--family", "lego", "--json"], elsewhere, env).splitlines()]
    assert {s["name"]: s["available"] for s in suites}["jarvis-v1"] is True
    shown = json.loads(_run([jarvis, "tasks", "show", "lego/v7-00020-stairs/001"], elsewhere, env))
    assert shown["id"] == "lego/v7-00020-stairs/001"

    bench = [json.loads(line) for line in _run([jarvis, "bench", "tasks", "--assemblies", "4", "--workers", "1"],
                                               elsewhere, env).splitlines() if line.startswith("{")]
    assert {b["name"] for b in bench} >= {"pool_build_time", "pool_tasks"}

    _run([jarvis, "run", "--suite", "jarvis-mini", "--agent", "oracle", "--out", "runs/mini"], elsewhere, env)
    run = elsewhere / "runs" / "mini"
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    assert (run / "report.md").is_file()
    assert (summary["n_episodes"], summary["n_failed"]) == (6, 0), summary
    assert summary["soft_score"]["mean"] > 50, summary["soft_score"]
