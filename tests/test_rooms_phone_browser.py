"""A class on one plain `streamlit run app.py` (in-process rooms, the phone page served from a thread on the next
port), in real browsers: the projector at 1024x768 opens a room and asks; a phone at 390x844 joins by the link, is
pushed the question, taps, changes its answer, is pushed the reveal; the projector shows the question, bars and the
way back to the lesson on one screen. Screenshots of each stage go to RNNVIZ_SHOTS when it is set."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rnnviz.processes import free_ports, wait_healthy
from tests.browser import chromium, wait_idle

ROOT = Path(__file__).resolve().parents[1]
SHOTS = os.environ.get("RNNVIZ_SHOTS")


def shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


@pytest.mark.slow
def test_a_phone_on_the_thin_page_is_pushed_the_question_and_the_reveal(tmp_path):
    port = free_ports("127.0.0.1", 8710, 2)[0]
    while free_ports("127.0.0.1", port + 1, 1)[0] != port + 1:
        port = free_ports("127.0.0.1", port + 2, 1)[0]
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                             "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats",
                             "false", "--server.fileWatcherType", "none"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc)
        with chromium() as browser:
            lec = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
            lec.goto(f"http://127.0.0.1:{port}/class_room?classroom=1")
            wait_idle(lec)
            shot(lec, "1-class-page")
            lec.get_by_role("button", name="Open a room").click()
            link = lec.get_by_text("Join at").first
            link.wait_for()
            url = link.inner_text().split("`")[-1].removeprefix("Join at").strip()
            assert url.startswith(f"http://127.0.0.1:{port + 1}/room/")
            wait_idle(lec)
            shot(lec, "2-room-open")
            phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True).new_page()
            phone.goto(url)
            phone.get_by_text("first question appears here").wait_for()
            lec.get_by_role("button", name="Ask the class").click()
            t0 = time.monotonic()
            phone.locator("#prompt").wait_for(state="visible")
            assert time.monotonic() - t0 < 3  # pushed to the phone (the lecturer's own rerun included)
            box = phone.locator("#value")
            if box.is_visible():  # the Class page's default question is a number
                box.fill("0.1")
                phone.get_by_role("button", name="Vote").click()
                phone.get_by_text("Your answer is in: 0.1").wait_for()
                box.fill("0.2")  # changed before the reveal
                phone.get_by_role("button", name="Vote").click()
                phone.get_by_text("Your answer is in: 0.2").wait_for()
            shot(phone, "3-phone-voted")
            wait_idle(lec)
            lec.get_by_text("1 of 1", exact=True).wait_for(timeout=15_000)
            shot(lec, "4-projector-open")
            phone.reload()  # the same voter after a reload: its answer, not the question again
            phone.get_by_text("Your answer is in: 0.2").wait_for()
            lec.get_by_role("button", name="Reveal").click()
            phone.get_by_text("The answer:").wait_for()
            assert "Yours: 0.2" in phone.locator("#status").inner_text()
            assert phone.locator("#number").is_hidden()  # no change after the reveal
            shot(phone, "5-phone-revealed")
            wait_idle(lec)
            lec.get_by_text("The exact answer").wait_for()
            assert lec.get_by_role("link", name="Back to").count() >= 1
            shot(lec, "6-projector-revealed")
            lec.reload()  # the projector keeps its room without a bookmarked link (the browser's cookie)
            wait_idle(lec)
            lec.get_by_text("The exact answer").wait_for()
            shot(lec, "7-projector-reloaded")
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(10)
