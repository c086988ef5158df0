"""The shipped 50-minute deck, run end to end in a real browser at 1024x768 with PageDown alone: every step lands on
its page with its setup, asks its question in a room where three phones vote, and PageDown shows the reveal."""
import socket
import time
import urllib.parse

import pytest

from tests import browser
from tests.browser import chromium, wait_idle
from tests.conftest import LONG
from ui.deck.format import load
from ui.questions.link import make, read_link

PORTS = range(8730, 8750)  # the ports this project's tests may serve on


def a_port() -> int:
    for port in PORTS:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    pytest.skip("no free port in 8730-8749")


def see(page, text: str, timeout: float = 20_000) -> None:
    page.wait_for_function("t => document.querySelector('[data-testid=\"stMain\"]')?.innerText.includes(t)",
                           arg=text, timeout=timeout)


def at_step(url: str, page: str, k: int) -> bool:
    parts = urllib.parse.urlsplit(url)
    return parts.path == f"/{page}" and urllib.parse.parse_qs(parts.query).get("step") == [str(k)]


def vote(phone, number: int, q, truth_label: str | None) -> None:
    see(phone, f"Question {number}")
    if q.kind == "choice":
        phone.get_by_role("button", name=truth_label, exact=True).click()
    else:
        box = phone.locator('[data-testid="stNumberInput"] input')
        box.fill(f"{q.truth:.3f}" if q.hi - q.lo <= 10 else f"{q.truth:.0f}")
        box.press("Enter")
        wait_idle(phone)
        phone.get_by_role("button", name="Vote").click()
    see(phone, "Your answer is in")


@pytest.mark.slow
def test_the_50_minute_deck_runs_with_pagedown_alone(monkeypatch):
    deck = load("lecture-50")
    # the whole deck, 14 steps and about a minute of a browser under load, before a release (RNNVIZ_LONG=1); the
    # default run takes its first five, across two pages (tests/test_decks.py makes every step's question in AppTest)
    steps = deck.steps if LONG else deck.steps[:5]
    port = a_port()
    monkeypatch.setattr(browser, "free_port", lambda: port)
    server = browser.Server()
    t0 = time.monotonic()
    try:
        with chromium() as b:
            lec = b.new_context(viewport={"width": 1024, "height": 768}).new_page()
            lec.goto(f"{server.url}/decks?classroom=1")
            wait_idle(lec)
            lec.get_by_role("button", name="Open a room for the class's phones").click()
            see(lec, "is open")
            text = lec.locator('[data-testid="stMain"]').inner_text()
            code = text.split("Room ", 1)[1].split(" ", 1)[0]
            phones = []
            for _ in range(3):
                phone = b.new_context(viewport={"width": 360, "height": 740}).new_page()
                phone.goto(f"{server.url}/class_room?room={code}")
                see(phone, f"You are in room {code}")
                phones.append(phone)
            lec.get_by_role("button", name="Start").first.click()
            for i, step in enumerate(steps):
                lec.wait_for_url(lambda u, i=i, page=step.page: at_step(u, page, i + 1))
                wait_idle(lec)
                url = urllib.parse.urlsplit(lec.url)
                assert url.path == f"/{step.page}", f"step {i + 1} is on its page"
                assert read_link(step.page, url.query)[0] == read_link(step.page, step.setup)[0], \
                    f"step {i + 1} has its setup"
                q, made, _ = make(step.page, step.ask, step.setup)
                truth = made.labels[int(q.truth)] if q.kind == "choice" else None
                for phone in phones:
                    vote(phone, i + 1, q, truth)
                see(lec, "3 of 3 answered")
                lec.keyboard.press("PageDown")  # the remote: reveal
                see(lec, "The exact answer")
                see(lec, "Round 1: 3 of 3 right")
                assert lec.get_by_text("The exact answer").first.is_visible()
                if i + 1 < len(deck.steps):
                    lec.keyboard.press("PageDown")  # the remote: the next step
            if LONG:
                assert lec.get_by_role("button", name="Next step").is_disabled()  # the end of the deck
    finally:
        server.close()
    print(f"{len(steps)} steps in {time.monotonic() - t0:.0f} s")
