"""Helpers for the real-browser tests: serve `streamlit run app.py` on a free port, drive Debian's chromium."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("RNNVIZ_CHROMIUM", "/usr/bin/chromium")
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
CHART = ".rnnviz-chart"  # a chart drawn by ui/chart.js (Plotly's own element, .js-plotly-plot, is the same node)
# a chart while ui/chart.js draws into it, or one out of view that it draws once the page is idle
BUSY = f'{CHART}[aria-busy="true"], {CHART}[data-rnnviz-later]'
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync"]


def need_browser() -> None:
    """Skip on a developer machine without chromium; in CI (CI=true) a missing browser is a failure."""
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"browser tests must run in CI, but {CHROMIUM} is missing")
        pytest.skip(f"{CHROMIUM} not installed")


def free_port() -> int:
    """A free loopback port: any, or one in RNNVIZ_TEST_PORTS ("8750-8769") where a shared machine assigns a range."""
    lo, _, hi = os.environ.get("RNNVIZ_TEST_PORTS", "0-0").partition("-")
    for port in range(int(lo), int(hi or lo) + 1):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
            return s.getsockname()[1]
        except OSError:
            continue
        finally:
            s.close()
    raise RuntimeError(f"no free port in RNNVIZ_TEST_PORTS={os.environ['RNNVIZ_TEST_PORTS']}")


class Server:
    """`streamlit run app.py` on loopback, stopped on close."""

    def __init__(self):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.port", str(self.port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(self.url + "/_stcore/health", timeout=1).read() == b"ok":
                    return
            except OSError:
                time.sleep(0.2)
        self.close()
        raise RuntimeError("streamlit did not start within 60 s")

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def wait_idle(page, timeout: float = 60_000) -> None:
    """Wait until the script has finished running and the app's stylesheet is in the page (never a fixed sleep).
    Streamlit draws a style-only st.html (app.py's LAYOUT_CSS) with a component it loads on first use, so on a
    fresh page the script can be over and the page drawn a moment before that CSS applies (the clean-clone CI run
    measured a long table before its box's max-height existed)."""
    page.wait_for_selector(IDLE, timeout=timeout)
    page.wait_for_function(
        "() => document.querySelector('[data-testid=\"stApp\"]').getAttribute('data-test-script-state') "
        "=== 'notRunning' && [...document.querySelectorAll('style')].some(s => s.textContent.includes("
        "'rnnviz-layout'))", timeout=timeout)


def wait_text(page, text: str, timeout: float = 30_000) -> None:
    """Wait until the page shows `text`; failing, say what it showed instead (a timeout alone says nothing of why)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("t => document.body.innerText.includes(t)", arg=text, timeout=timeout)
    except PlaywrightTimeout:
        raise AssertionError(f"{text!r} not shown within {timeout / 1000:g} s at {page.url}; the page shows:\n"
                             + page.locator("body").inner_text()[:3000]) from None


class Browser:
    """A launched chromium whose `new_page(**options)` opens a tab in one context kept per set of options, its cookies
    and storage cleared first, so each page starts as a fresh visitor's. A fresh context per page (Playwright's own
    `Browser.new_page`) fetched and compiled Streamlit's and Plotly's scripts again every time: a third of a page load's
    wall time here (six lesson pages, 11.5 s against 8.3 s). Everything else is the browser's own (`new_context` for a
    visitor of its own, a phone voting beside another, say)."""

    def __init__(self, browser):
        self.browser, self.contexts = browser, {}

    def new_page(self, **options):
        key = repr(sorted(options.items()))
        ctx = self.contexts.get(key)
        if ctx is None:
            ctx = self.contexts[key] = self.browser.new_context(**options)
            # a page's localStorage and sessionStorage, emptied as it opens unless this context's page set them (a
            # reload's or a Back's); clear_cookies below empties the cookies (a lecturer's key to a room, say)
            ctx.add_init_script("try { if (!sessionStorage.getItem('rnnviz-test-page')) { localStorage.clear(); "
                                "sessionStorage.setItem('rnnviz-test-page', '1'); } } catch (e) {}")
        ctx.clear_cookies()
        return ctx.new_page()

    def __getattr__(self, name):
        return getattr(self.browser, name)


@contextmanager
def chromium():
    """Headless Debian chromium (a `Browser`), closed afterwards (skipped, or failed in CI, where it is missing)."""
    need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            yield Browser(b)
        finally:
            b.close()


def painted(page) -> None:
    """Wait for the page's web fonts (a late font lays every chart out again) and two animation frames."""
    page.evaluate("() => document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => "
                  "requestAnimationFrame(r))))")
    page.wait_for_function(f"() => !document.querySelector('{BUSY}')", timeout=30_000)  # no chart mid-draw
