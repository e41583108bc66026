"""/docs and /redoc of the real app in headless chromium: nothing is fetched from another host, and Swagger UI's
"Authorize" takes a token that "Try it out" then sends (skips like the dashboard's browser test without chromium)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from agent.server.app import create_app
from tests.agent.server.conftest import make_settings
from tests.agent.server.dashboard.test_browser import CHROMEDRIVER, CHROMIUM, _serve

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                       reason="no chromium/chromedriver (apt-get install chromium-driver)"),
]

TOKEN = "docs-browser-token-0123456789"


@pytest.fixture
def server(tmp_path: Path, quiz_plugin: None) -> Iterator[str]:
    with _serve(create_app(make_settings(tmp_path, workers=0, api_token=TOKEN), start_workers=False)) as url:
        yield url


@pytest.fixture
def browser() -> Iterator[Any]:
    """Headless chromium that logs every network request it makes."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[dev]')")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(30)
    driver.implicitly_wait(10)
    try:
        yield driver
    finally:
        driver.quit()


def _requested_hosts(driver: Any) -> set[str]:
    hosts = set()
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            if not url.startswith(("data:", "blob:")):  # made inside the page (ReDoc's worker is a blob:)
                hosts.add(urlsplit(url).netloc)
    return hosts


def test_docs_fetch_nothing_from_another_host_and_authorize_works(server: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    here = urlsplit(server).netloc
    browser.get(f"{server}/login")
    browser.add_cookie({"name": "jarvis_token", "value": TOKEN})  # the pages take the sign-in cookie

    browser.get(f"{server}/redoc")
    WebDriverWait(browser, 30).until(ec.presence_of_element_located((By.CSS_SELECTOR, "h1, .api-info")))
    browser.find_element(By.XPATH, "//*[contains(text(), 'API docs by Redocly')]")  # the footer whose logo was a CDN's
    assert _requested_hosts(browser) == {here}

    browser.get(f"{server}/docs")
    wait = WebDriverWait(browser, 30)
    wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "button.authorize"))).click()
    field = wait.until(ec.visibility_of_element_located((By.CSS_SELECTOR, ".modal-ux input")))
    field.send_keys(TOKEN)
    browser.find_element(By.CSS_SELECTOR, ".modal-ux .auth-btn-wrapper button.authorize").click()
    browser.find_element(By.CSS_SELECTOR, ".modal-ux button.btn-done").click()
    operation = browser.find_element(By.ID, "operations-health-status_v1_status_get")
    operation.find_element(By.CSS_SELECTOR, ".opblock-summary").click()
    wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "#operations-health-status_v1_status_get .try-out__btn"))).click()
    operation.find_element(By.CSS_SELECTOR, "button.execute").click()
    status = wait.until(ec.visibility_of_element_located(
        (By.CSS_SELECTOR, "#operations-health-status_v1_status_get .live-responses-table tr.response .response-col_status")))
    assert status.text.strip().startswith("200"), status.text  # without the token the REST API answers 401
    curl = operation.find_element(By.CSS_SELECTOR, ".curl-command").text
    assert f"Authorization: Bearer {TOKEN}" in curl, curl
    assert _requested_hosts(browser) == {here}
