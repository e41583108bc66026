"""The dashboard in a real browser: Debian's chromium, headless, driven by Selenium (no browser download).

Skips when selenium, chromium or chromedriver is absent here; CI installs chromium-driver (with chromium).
Screenshots of each page go to $JARVIS_SCREENSHOT_DIR (default: the test's tmp dir) to be looked at.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.dashboard.app import create_view_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                       reason="no chromium/chromedriver (apt-get install chromium-driver)"),
]


@pytest.fixture
def dashboard_url(crafted_run: Path, oracle_run: Path, pictured_run: Path) -> Iterator[str]:
    """`jarvis view` of three runs, served by uvicorn on a free loopback port."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_view_app([oracle_run, crafted_run, pictured_run]), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the dashboard server did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless chromium."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[dev]')")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(30)
    driver.implicitly_wait(5)  # a page opened by a click may still be loading when the next lookup runs
    try:
        yield driver
    finally:
        driver.quit()


def _shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("JARVIS_SCREENSHOT_DIR", tmp_path / "screenshots"))
    out.mkdir(parents=True, exist_ok=True)
    return out


def _images_loaded(driver: Any, within_s: float = 10.0) -> list[str]:
    """Sources of the page's images that did not load within the time given (an empty list: all did)."""
    deadline = time.monotonic() + within_s
    while True:
        broken: list[str] = driver.execute_script(
            "return Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src);")
        if not broken or time.monotonic() > deadline:
            return broken
        time.sleep(0.1)


def _wait_title(driver: Any, starts: str, within_s: float = 10.0) -> None:
    """Wait for the page a click opened (its <title> starts with `starts`)."""
    deadline = time.monotonic() + within_s
    while not driver.title.startswith(starts) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert driver.title.startswith(starts), f"page {driver.title!r} is not {starts!r}"


def _column(driver: Any, table_id: str, index: int) -> list[str]:
    cells: list[str] = driver.execute_script(
        f"return Array.from(document.querySelectorAll('#{table_id} tbody tr')).filter(r => !r.hidden)"
        f".map(r => r.cells[{index}].textContent.trim());")
    return cells


def test_open_a_run_sort_filter_and_step_through_an_episode(dashboard_url: str, browser: Any, tmp_path: Path,
                                                           oracle_run: Path) -> None:
    from selenium.webdriver.common.by import By

    shots = _shots(tmp_path)
    browser.get(dashboard_url + "/")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Runs"
    browser.save_screenshot(str(shots / "runs.png"))

    browser.find_element(By.LINK_TEXT, "crafted").click()
    _wait_title(browser, "crafted")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Run crafted"
    soft = browser.find_element(By.XPATH, "//table[@id='episodes']//th[text()='Soft score']")
    soft.click()
    scores = [float(v) for v in _column(browser, "episodes", 5)]
    assert scores == sorted(scores) and len(scores) == 9
    soft.click()
    assert [float(v) for v in _column(browser, "episodes", 5)] == sorted(scores, reverse=True)
    browser.find_element(By.ID, "episode-filter").send_keys("failed")
    assert _column(browser, "episodes", 1) == ["failed"]
    browser.save_screenshot(str(shots / "run_crafted_sorted_filtered.png"))

    browser.find_element(By.XPATH, "//table[@id='episodes']//tbody//tr[not(@hidden)]//a").click()
    _wait_title(browser, "lego/test/hard")
    assert browser.find_element(By.CSS_SELECTOR, ".code .line.failed").text.endswith("pick('p9')")
    label = browser.find_element(By.ID, "round-label")
    assert label.text == "round 1 of 2"
    browser.find_element(By.ID, "next-round").click()
    assert label.text == "round 2 of 2"
    assert browser.find_element(By.CSS_SELECTOR, "section.round.current").get_attribute("data-round") == "1"
    browser.save_screenshot(str(shots / "episode_failed.png"))

    browser.get(dashboard_url + "/")
    for box in browser.find_elements(By.CSS_SELECTOR, "input[name=run]")[:2]:
        box.click()
    browser.find_element(By.ID, "compare").click()
    _wait_title(browser, "Compare")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Runs side by side"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#per-task tbody tr")) == 4  # three crafted tasks + the oracle's
    browser.save_screenshot(str(shots / "compare.png"))

    browser.get(f"{dashboard_url}/runs/{oracle_run.name}")
    assert browser.find_elements(By.CSS_SELECTOR, ".plots img")
    assert _images_loaded(browser) == []
    browser.save_screenshot(str(shots / "run_oracle.png"))
    browser.find_element(By.XPATH, "//table[@id='episodes']//tbody//a").click()
    _wait_title(browser, "lego/v7-00009-stairs/000")
    assert browser.find_elements(By.CSS_SELECTOR, ".images.views img")
    assert _images_loaded(browser) == []
    assert browser.find_element(By.ID, "bricks").is_displayed()
    browser.save_screenshot(str(shots / "episode_oracle.png"))


def test_the_final_state_beside_the_target_explains_each_brick_on_hover(dashboard_url: str, browser: Any,
                                                                          tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    browser.get(f"{dashboard_url}/runs/pictured/episodes/ep-pictured")
    assert _images_loaded(browser) == []
    built = browser.find_element(By.CSS_SELECTOR, ".final-view[data-kind=final]")
    shifted = built.find_element(By.CSS_SELECTOR, 'g.brick[data-brick="a1"] polygon')
    ActionChains(browser).move_to_element(shifted).perform()
    tip = browser.find_element(By.ID, "brick-tip").text
    assert tip.startswith("target a1 (3001) <- brick a1: pose") and "plane error 4.00 mm" in tip
    # The same brick lights up in the target picture and in the bricks table.
    assert browser.find_elements(By.CSS_SELECTOR, '.final-view[data-kind=target] g.brick.hot[data-brick="a1"]')
    assert browser.find_element(By.CSS_SELECTOR, '#bricks tr[data-brick="a1"]').get_attribute("class").endswith("hot")
    browser.execute_script("document.querySelector('.legend').scrollIntoView()")
    browser.save_screenshot(str(_shots(tmp_path) / "episode_final_state.png"))
    browser.find_element(By.ID, "show-scores").click()
    assert "plain" in browser.find_element(By.CSS_SELECTOR, ".final-views").get_attribute("class")
