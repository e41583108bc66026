"""`jarvis view --export DIR`: a static copy of a run that opens from disk and references only its own files."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agent.cli.main import app

_LINK = re.compile(r'(?:href|src|action)="([^"]*)"')


def _export(run: Path, out: Path) -> dict[str, Any]:
    import json

    r = CliRunner().invoke(app, ["view", str(run), "--export", str(out)])
    assert r.exit_code == 0, r.output
    return dict(json.loads(r.stdout))


def _check_links(out: Path) -> int:
    """Every link of every page is relative and names a file of the copy (or '#'); returns links checked."""
    n = 0
    for page in [out / "index.html", *sorted((out / "episodes").glob("*.html"))]:
        for url in _LINK.findall(page.read_text(encoding="utf-8")):
            if url == "#" or url.startswith("#"):
                continue
            assert not url.startswith(("/", "http:", "https:", "//")), (page.name, url)
            target = (page.parent / url.split("#", 1)[0].split("?", 1)[0]).resolve()
            assert target.is_relative_to(out.resolve()) and target.is_file(), (page.name, url)
            n += 1
    return n


def test_an_export_holds_every_page_and_links_only_its_own_files(crafted_run: Path, pictured_run: Path,
                                                                  tmp_path: Path) -> None:
    out = tmp_path / "static-crafted"
    summary = _export(crafted_run, out)
    assert summary["episodes"] == 9 and (out / "index.html").is_file() and (out / "static" / "dashboard.css").is_file()
    assert len(list((out / "episodes").glob("*.html"))) == 9
    index = (out / "index.html").read_text()
    assert 'href="episodes/ep-failing.html"' in index and "/runs/" not in index and "data-progress" not in index
    assert _check_links(out) > 9
    pictured = tmp_path / "static-pictured"
    assert _export(pictured_run, pictured)["files"] > 0  # the end pictures came along
    page = (pictured / "episodes" / "ep-pictured.html").read_text()
    assert 'src="../files/' in page and _check_links(pictured) > 0


def test_export_refuses_a_folder_with_files_and_several_runs(crafted_run: Path, tmp_path: Path) -> None:
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    r = CliRunner().invoke(app, ["view", str(crafted_run), "--export", str(busy)])
    assert r.exit_code == 2 and "is not empty" in r.stderr and (busy / "keep.txt").read_text() == "mine"
    r = CliRunner().invoke(app, ["view", str(crafted_run), str(crafted_run), "--export", str(tmp_path / "x")])
    assert r.exit_code == 2 and "exactly one RUN_DIR" in r.stderr


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None, reason="no chromium/chromedriver")
def test_the_export_opens_from_disk_in_a_browser(pictured_run: Path, tmp_path: Path) -> None:
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    out = tmp_path / "static"
    _export(pictured_run, out)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    try:
        driver.get((out / "index.html").as_uri())
        assert driver.title.startswith("pictured")
        # The stylesheet applied from disk: the header is laid out by dashboard.css, not the browser default.
        assert driver.execute_script("return document.styleSheets.length") >= 1
        driver.find_element(By.CSS_SELECTOR, 'a[href="episodes/ep-pictured.html"]').click()
        broken = driver.execute_script(
            "return [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
        assert driver.current_url.endswith("episodes/ep-pictured.html") and broken == [], broken
    finally:
        driver.quit()
