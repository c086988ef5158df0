"""The upload phase of `load.py --soak`: a visitor's "Bring your own model" on the sampling page, in headless
Chromium (Debian's, driven by Playwright), with the server's resident memory before, during and after.

Each round opens the sampling page in a fresh session and uploads, one pair after another, the files of `PAIRS`: the
shipped model (accepted) and crafted files the server must refuse from the card or the safetensors header alone (a
40,000-character vocabulary, headers naming 1,500 and 290,000 tensors, a file cut in half). A thread samples the \
server's
RSS every 50 ms; `during` is the peak over all rounds, `after` is read once the browser has closed and the sessions
have ended.
"""
from __future__ import annotations

import json
import struct
import threading
import time
from pathlib import Path
from typing import Callable, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "models" / "shakespeare.safetensors"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


class Pair(NamedTuple):
    name: str
    weights: bytes  # the .safetensors file
    card: bytes  # its JSON card
    accepted: bool  # what the page must answer


def empty_tensors(n: int) -> bytes:
    """A safetensors file whose header names n empty tensors (and holds nothing else). The header is json.dumps of
    that dict byte for byte, written out without building the dict (290,000 entries: 0.1 s instead of 1 s)."""
    entry = json.dumps({"dtype": "F32", "shape": [0], "data_offsets": [0, 0]})
    header = ("{" + ", ".join(f'"t{i}": {entry}' for i in range(n)) + "}").encode()
    return struct.pack("<Q", len(header)) + header


def pairs() -> list[Pair]:
    """The shipped model, and crafted pairs refused before any tensor is allocated."""
    weights, card = SHIPPED.read_bytes(), SHIPPED.with_suffix(".json").read_bytes()
    huge_vocab = dict(json.loads(card), itos=[chr(0x20000 + i) for i in range(40_000)])  # CJK Extension B, 0.4 MB
    return [Pair("shipped", weights, card, True),
            Pair("vocab-40000", weights, json.dumps(huge_vocab).encode(), False),
            Pair("tensors-1500", empty_tensors(1_500), card, False),  # a 92 kB header: refused by its count
            Pair("tensors-290000", empty_tensors(290_000), card, False),  # a 19 MB header: refused by its size
            Pair("truncated", weights[: len(weights) // 2], card, False)]


class RssWatch:
    """The server's RSS (MB), sampled every `every` seconds in a thread: the peak since the last `reset`, \
and overall."""

    def __init__(self, read: Callable[[], float], every: float = 0.05):
        self.read, self.every = read, every
        self.peak = self.top = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            mb = self.read()
            self.peak, self.top = max(self.peak, mb), max(self.top, mb)
            self._stop.wait(self.every)

    def reset(self) -> None:
        self.peak = self.read()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def wait_idle(page, timeout_ms: float = 120_000) -> None:
    """The script has finished its rerun (never a fixed sleep)."""
    page.wait_for_selector(IDLE, timeout=timeout_ms)


ANSWER = """() => [...document.querySelectorAll('[data-testid="stAlert"]')].some(a =>
               /Using your model|was refused/.test(a.innerText))"""


def upload(page, pair: Pair) -> tuple[str, float]:
    """Both files of `pair` into the page's two file boxes, as a visitor drops them, then both removed again; the
    page's answer and the seconds from the first file to the answer."""
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    t0 = time.perf_counter()
    for k, (data, suffix, mime) in enumerate([(pair.weights, "safetensors", "application/octet-stream"),
                                              (pair.card, "json", "application/json")]):
        wait_idle(page)
        with page.expect_response(lambda r: "/_stcore/upload_file/" in r.url and r.request.method == "PUT",
                                  timeout=120_000):
            inputs.nth(k).set_input_files(files=[{"name": f"{pair.name}.{suffix}", "mimeType": mime,
                                                  "buffer": data}])
    page.wait_for_function(ANSWER, timeout=120_000)  # no answer shows while a box is empty: no stale one is read
    secs = time.perf_counter() - t0
    wait_idle(page)
    alerts = page.locator('[data-testid="stAlert"]').all_inner_texts()
    answer = next((a for a in alerts if "Using your model" in a or "was refused" in a), "")
    chips = '[data-testid="stFileChipDeleteBtn"] button'
    for n in (2, 1):  # the visitor removes both files before the next pair, one at a time
        page.locator(chips).first.click()
        page.wait_for_function(f"() => document.querySelectorAll('{chips}').length < {n}", timeout=120_000)
        wait_idle(page)
    return answer.strip(), secs


def upload_phase(url: str, rounds: int, rss: Callable[[], float], cpu: Callable[[], float],
                 out: Callable[[str], None] = print) -> dict:
    """`rounds` visitors, each uploading every pair in turn; prints a line per upload (the page's answer, seconds to
    it, the server's CPU seconds, its RSS now and its peak during that upload) and the three phases. Returns
    {"before": MB, "during": peak MB, "after": MB, "wrong": answers that were not the expected one}."""
    from playwright.sync_api import sync_playwright

    todo, wrong = pairs(), []
    result = {"before": rss()}
    out(f"phase=before rss_mb={result['before']:.0f}")
    with RssWatch(rss) as watch, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for r in range(1, rounds + 1):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/sample")
            wait_idle(page)
            page.get_by_text("Bring your own model").click()
            for pair in todo:
                watch.reset()
                cpu0 = cpu()
                answer, secs = upload(page, pair)
                got = "accepted" if "Using your model" in answer else "refused" if answer else "none"
                if got != ("accepted" if pair.accepted else "refused"):
                    wrong.append((r, pair.name, answer[:120]))
                out(f"  round={r} file={pair.name} answer={got} s={secs:.2f} server_cpu_s={cpu() - cpu0:.2f} "
                    f"rss_mb={rss():.0f} peak_mb={watch.peak:.0f}")
            page.close()
        browser.close()
    result["during"] = watch.top
    out(f"phase=during rss_mb={result['during']:.0f} (peak over {rounds} rounds of {len(todo)} uploads)")
    time.sleep(3)  # a closed page's session ends when the server notices its websocket has gone
    result["after"] = rss()
    out(f"phase=after rss_mb={result['after']:.0f} wrong_answers={len(wrong)}")
    for w in wrong[:3]:
        out(f"   wrong: {w}")
    result["wrong"] = wrong
    return result
