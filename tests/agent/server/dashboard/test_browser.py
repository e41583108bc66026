"""The dashboard in a real browser: Debian's chromium, headless, driven by Selenium (no browser download).

Skips when selenium, chromium or chromedriver is absent here; CI installs chromium-driver (with chromium).
Screenshots of each page go to $JARVIS_SCREENSHOT_DIR (default: the test's tmp dir) to be looked at.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.server.dashboard.app import create_view_app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                       reason="no chromium/chromedriver (apt-get install chromium-driver)"),
]


@contextlib.contextmanager
def _serve(app: Any) -> Iterator[str]:
    """Serve an ASGI app with uvicorn on a free loopback port (its lifespan runs: a server's workers start)."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the dashboard server did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(15)


@pytest.fixture
def dashboard_url(crafted_run: Path, oracle_run: Path, pictured_run: Path) -> Iterator[str]:
    """`jarvis view` of three runs, served by uvicorn on a free loopback port."""
    with _serve(create_view_app([oracle_run, crafted_run, pictured_run])) as url:
        yield url


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


def _full_page_shot(driver: Any, path: Path) -> None:
    """A screenshot of the whole page (the window grown to the page's height, then put back)."""
    size = driver.get_window_size()
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    driver.set_window_size(size["width"], min(max(height, size["height"]), 4000))
    driver.save_screenshot(str(path))
    driver.set_window_size(size["width"], size["height"])


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
    for name in ("crafted", "pictured"):
        browser.find_element(By.CSS_SELECTOR, f"input[name=run][value={name}]").click()
    browser.find_element(By.ID, "compare").click()
    _wait_title(browser, "Compare")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Runs side by side"
    assert len(browser.find_elements(By.CSS_SELECTOR, "#per-task tbody tr")) == 3  # the crafted run's three tasks
    # Neither run reflected: the reflection curves' figure goes, the difficulty and failed-action plots load.
    _wait_for(lambda: len(browser.find_elements(By.CSS_SELECTOR, ".plots img")) == 2)
    assert _images_loaded(browser) == []
    _full_page_shot(browser, shots / "compare.png")
    (link,) = browser.find_elements(By.CSS_SELECTOR, "a.side-link")  # lego/test/medium is in both runs
    link.click()
    _wait_title(browser, "Compare lego/test/medium")
    sides = browser.find_elements(By.CSS_SELECTOR, "section.side")
    assert [s.get_attribute("data-run") for s in sides] == ["crafted", "pictured"]
    assert _images_loaded(browser) == []
    _full_page_shot(browser, shots / "compare_task.png")

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


TOKEN_A, TOKEN_B = "browser-test-token-a-5b1e07", "browser-test-token-b-93c4aa"


def _sign_in(driver: Any, base: str, token: str) -> None:
    from selenium.webdriver.common.by import By

    driver.delete_all_cookies()
    driver.get(base + "/")  # not signed in: sent to the sign-in page
    _wait_title(driver, "Sign in")
    driver.find_element(By.NAME, "token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "form button, form input[type=submit]").click()
    _wait_title(driver, "Runs")


def test_a_running_run_advances_in_place_can_be_cancelled_and_is_hidden_from_another_token(
        tmp_path: Path, browser: Any, quiz_plugin: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    from agent.server.app import create_app
    from tests.agent.server.conftest import make_settings

    monkeypatch.setenv("JARVIS_TEST_SLEEP_S", "1.0")  # each episode takes a second: progress can be watched
    shots = _shots(tmp_path)
    app = create_app(make_settings(tmp_path, api_token=f"{TOKEN_A},{TOKEN_B}"))
    with _serve(app) as base:
        api = httpx.Client(base_url=base, headers={"Authorization": f"Bearer {TOKEN_A}"}, timeout=30)
        made = api.post("/v1/runs", json={"task_ids": [f"quiz/{k}" for k in range(4)], "agent": {"name": "sleepy"}})
        assert made.status_code == 202, made.text
        run_id = made.json()["id"]
        _sign_in(browser, base, TOKEN_A)
        browser.get(f"{base}/runs/{run_id}")
        browser.execute_script("window.notReloaded = true;")  # gone if the page reloads
        finished = browser.find_element(By.CSS_SELECTOR, "#progress .p-finished")
        seen = [int(finished.text)]
        deadline = time.monotonic() + 60
        while browser.execute_script("return window.notReloaded === true;") and time.monotonic() < deadline:
            try:
                now = int(finished.text)
            except StaleElementReferenceException:
                break  # the page reloaded between the check and the read: the end-of-run reload
            if now != seen[-1]:
                seen.append(now)
                if len(seen) == 2:
                    browser.save_screenshot(str(shots / "run_live.png"))
            time.sleep(0.1)
        # The counts moved up in place (no reload) while episodes finished, then the page reloaded once at the end
        # (the poll that sees the last one reloads at once, so the loop may not catch the final count in place).
        assert seen == sorted(seen) and len(seen) >= 2 and seen[-1] > seen[0], seen
        _wait_for(lambda: browser.find_element(By.CSS_SELECTOR, "#progress .p-finished").text == "4")
        assert browser.find_element(By.CSS_SELECTOR, "#progress .p-mean").text.startswith("100.0")
        assert not browser.find_elements(By.ID, "cancel-run")  # nothing left to cancel

        long = api.post("/v1/runs", json={"task_ids": [f"quiz/{k}" for k in range(10, 30)],
                                          "agent": {"name": "sleepy"}}).json()["id"]
        browser.get(f"{base}/runs/{long}")
        browser.find_element(By.CSS_SELECTOR, "details.cancel summary").click()
        browser.find_element(By.ID, "cancel-run").click()
        _wait_title(browser, long)
        _wait_for(lambda: int(browser.find_element(By.CSS_SELECTOR, "#progress .p-finished").text) == 20)
        cancelled = int(browser.find_element(By.CSS_SELECTOR, "#progress .p-cancelled").text)
        assert cancelled >= 10  # a few may have finished before the click
        assert api.get(f"/v1/runs/{long}").json()["counts"].get("cancelled", 0) == cancelled
        browser.save_screenshot(str(shots / "run_cancelled.png"))

        _sign_in(browser, base, TOKEN_B)
        assert not browser.find_elements(By.CSS_SELECTOR, f'a[href="/runs/{run_id}"]')
        assert "No runs yet" in browser.find_element(By.TAG_NAME, "main").text
        browser.get(f"{base}/runs/{run_id}")
        assert f"no run '{run_id}'" in browser.find_element(By.TAG_NAME, "body").text
        api.close()


def _wait_for(condition: Any, within_s: float = 20.0) -> None:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except Exception:  # the element was replaced by a reload: look again
            pass
        time.sleep(0.1)
    raise AssertionError("condition not met in time")


def test_browse_suites_tasks_and_a_manual_in_two_styles(dashboard_url: str, browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    shots = _shots(tmp_path)
    browser.get(dashboard_url + "/")
    browser.find_element(By.LINK_TEXT, "tasks").click()
    _wait_title(browser, "Tasks")
    browser.save_screenshot(str(shots / "tasks.png"))
    browser.find_element(By.LINK_TEXT, "jarvis-mini").click()
    _wait_title(browser, "jarvis-mini")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#suite-tasks tbody tr")) == 6
    browser.find_element(By.CSS_SELECTOR, "#suite-tasks tbody a").click()
    _wait_title(browser, "lego/")
    assert _images_loaded(browser, within_s=90) == []  # the manual renders on first request
    assert browser.find_element(By.ID, "observation").get_property("naturalWidth") > 0
    browser.find_element(By.LINK_TEXT, "shaded").click()
    _wait_title(browser, "lego/")
    assert "style=shaded" in browser.current_url
    pages = browser.find_elements(By.CSS_SELECTOR, ".manual-pages img")
    assert pages and all("/manual/shaded/" in p.get_attribute("src") for p in pages)
    assert _images_loaded(browser, within_s=90) == []
    browser.save_screenshot(str(shots / "task_shaded.png"))
