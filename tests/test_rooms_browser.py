"""A class in real browsers, across two replicas behind nginx sharing Redis (`python -m rnnviz.serve --replicas 2`):
a lecturer page and three student pages (one a 360 px phone, which joins by typing the room's code and reloads after
voting) run the whole loop: open, vote, count, reveal, revote, close; students landing on different replicas are in
the same room."""
import re
import signal
import subprocess
import sys
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from rnnviz.rooms.questions import scalar_state
from tests.browser import CHART, chromium, wait_idle
from tests.test_serve import alive, need_nginx, read_until, upstreams

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]
CHARTS = f"{CHART}, .js-plotly-plot"
TRUTH = scalar_state([1, 0, 0], 1.0, 0.5, 0.0, 0.0, 3).truth  # the Class page's default question: h3, "fade"


def see(page, text: str, timeout: float = 15_000) -> float:
    """Seconds until `text` shows on the page (the fragments refresh themselves: no reload, no click)."""
    t0 = time.monotonic()
    try:
        page.wait_for_function("t => document.querySelector('[data-testid=\"stMain\"]')?.innerText.includes(t)",
                               arg=text, timeout=timeout)
    except PlaywrightTimeout:  # say what the page showed instead, so a failure can be read
        shown = page.evaluate("document.querySelector('[data-testid=\"stMain\"]')?.innerText ?? ''")
        pytest.fail(f"{text!r} not shown within {timeout / 1000:g} s; the page showed: {shown[-600:]!r}")
    return time.monotonic() - t0


def vote(page, value: float) -> None:
    box = page.locator('[data-testid="stNumberInput"] input')
    box.fill(f"{value:.3f}")
    box.press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Vote").click()
    see(page, "Your answer is in")


@pytest.mark.slow
def test_a_class_on_two_replicas_runs_the_peer_instruction_loop(tmp_path):
    need_nginx()
    from rnnviz.processes import free_ports

    port = free_ports("127.0.0.1", 8700, 1)[0]
    proc = subprocess.Popen([sys.executable, "-m", "rnnviz.serve", "--replicas", "2", "--port", str(port),
                             "--workdir", str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        banner = read_until(proc, "rnnviz on", timeout=120)
        redis_pid = int(re.search(r"^redis: pid (\d+) redis://127\.0\.0\.1:\d+/0", banner, re.M).group(1))
        url = f"http://127.0.0.1:{port}"
        with chromium() as browser:
            lec = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
            lec.goto(f"{url}/class_room?classroom=1")
            wait_idle(lec)
            lec.get_by_role("button", name="Open a room").click()
            heading = lec.locator("h1", has_text="Room")
            heading.wait_for()
            code = re.search(r"Room ([A-Z0-9]{6})", heading.inner_text()).group(1)
            assert f"{url}/room/{code}" in lec.get_by_text("Join at").first.inner_text()  # also as a QR
            assert lec.locator('[data-testid="stImage"] img').first.bounding_box()["width"] >= 300

            contexts, students = [], []
            # three students, more if needed until the students span both replicas (nginx hashes each visitor's
            # random cookie: 8 students all on one replica happened about once in 128 runs; 16, once in 32,768)
            for k in range(16):
                ctx = browser.new_context(viewport={"width": 360, "height": 740} if k == 0 else None)
                page = ctx.new_page()
                if k == 0:  # the phone came by the site's address, not the link: it types the code it sees
                    page.goto(f"{url}/class_room")
                    page.get_by_label("Room code (on the projector)").fill(code.lower())
                    page.get_by_role("button", name="Join").click()
                else:
                    page.goto(f"{url}/class_room?room={code}")
                see(page, f"You are in room {code}")
                contexts.append(ctx)
                students.append(page)
                time.sleep(0.3)  # nginx logs a request once it is done
                seen = {u for c in contexts for v in c.cookies() if v["name"] == "rnnviz_visitor"
                        for u in upstreams(tmp_path / "access.log", v["value"])}  # one replica per visitor
                if k >= 2 and len(seen) == 2:
                    break
            assert len(seen) == 2, "the students' websockets never reached both replicas"
            phone = students[0]
            lec.wait_for_function(  # before the first question, the projector counts the phones in by itself
                "n => [...document.querySelectorAll('[data-testid=\"stMetricValue\"]')].some(e => e.innerText == n)",
                arg=str(len(students)), timeout=15_000)

            lec.get_by_role("button", name="Ask the class").click()
            waits = [see(s, "What is h₃?") for s in students]  # a new question reaches each phone by itself
            answers = [TRUTH, TRUTH + 0.5] + [-0.5] * (len(students) - 2)
            for s, a in zip(students, answers):
                vote(s, a)
            phone.reload()  # a phone switched apps and came back: its answer, not the question again
            see(phone, f"Your answer is in: {TRUTH:.3f}")
            n = len(students)
            see(lec, f"{n} of {n}")  # the count, refreshed by itself
            assert lec.locator(CHARTS).count() == 0  # no answers before the reveal
            lec.get_by_role("button", name="Reveal").click()
            see(lec, f"Round 1: {1} of {n} right")
            lec.locator(CHARTS).first.wait_for()  # the answers against the exact answer
            see(phone, "The answer:")
            assert phone.evaluate("document.documentElement.scrollWidth") <= 360  # nothing wider than the phone

            lec.get_by_role("button", name="Discuss and vote again").click()
            for s in students:
                see(s, "round 2")
                vote(s, TRUTH)
            see(lec, f"{n} of {n}")
            lec.get_by_role("button", name="Reveal").click()
            see(lec, f"After discussing: {n} of {n} right")
            # the self-refreshing count can leave the last run's copy of the button on screen for a moment: either
            # copy is the same widget
            lec.get_by_role("button", name="Close the room").first.click()
            see(lec, "The room is closed")
            for s in students:  # each phone's next refresh; slack for a loaded machine with up to 16 phones
                see(s, "closed this room", timeout=30_000)
            print(f"students={n} seconds for the question to reach each phone: {[round(w, 1) for w in waits]}")
            assert max(waits) < 10  # REFRESH_S is 1.5 s; a loaded shared machine gets slack, not a reload
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
    assert proc.returncode == 0 and not alive(redis_pid)  # redis stopped with the rest
