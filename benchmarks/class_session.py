"""The lecturer's (and an old-style phone's) Streamlit session on the Class page, for the rooms benchmarks
(rooms.py, rooms_live.py, rooms_stuff.py, attack.py): a load.py Session that keeps what the page says."""
from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import Session  # noqa: E402 - benchmarks/ is not a package
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402
from streamlit.proto.WidgetStates_pb2 import WidgetState  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

PAGE = "class_room"


class Visitor(Session):
    """A Session that also keeps what the page says (markdown, metrics, alerts) and which fragment drew each widget."""

    def __init__(self, url: str, query: str = "", source: str | None = None):
        super().__init__(url, PAGE)
        self.query, self.texts, self.fragment, self.source = query, [], "", source

    async def open(self):
        """As Session.open, from loopback source address `source` when one is given."""
        if self.source is None:
            return await super().open()
        await asyncio.to_thread(self.http, f"/{self.page}")
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else None
        self.ws = await connect("ws" + self.url.removeprefix("http") + "/_stcore/stream", subprotocols=["streamlit"],
                                max_size=None, origin=self.url, additional_headers=headers, proxy=None,
                                ping_interval=None, local_addr=(self.source, 0))
        await self.rerun(None)

    def started(self) -> None:
        self.texts = []

    def element(self, fm: ForwardMsg, which: str, element) -> None:
        if which in ("markdown", "alert"):
            self.texts.append(element.body)
        elif which == "metric":
            self.texts.append(f"{element.label} {element.body}")
        self.fragment = fm.delta.fragment_id or self.fragment  # the phone's self-refreshing part

    def press(self, key: str) -> WidgetState:
        return WidgetState(id=self.widget_id(key), trigger_value=True)

    def text(self) -> str:
        return "\n".join(self.texts)


async def lecturer(url: str) -> tuple[Visitor, str]:
    lec = Visitor(url)
    await lec.open()
    await lec.rerun([lec.press("class.open")])
    code = re.search(r"/room/([A-Z0-9]{6})", lec.text())
    if not code:
        raise SystemExit(f"no room code on the lecturer's page: {lec.text()[:300]}")
    await lec.rerun([lec.press("class.ask")])
    if "answers 0 of 0" not in lec.text():
        raise SystemExit(f"the question did not open: {lec.text()[:300]}")
    return lec, code.group(1)


async def open_room(url: str, answers) -> tuple[Visitor, str, str]:
    """The lecturer opens a room: (its session, the phones' base URL, the code). `answers(url)` says whether the
    phones' side answers at `url` itself (behind nginx); a plain streamlit run serves it on the next port. Loopback
    only."""
    import urllib.parse

    lec = Visitor(url)
    await lec.open()
    await lec.rerun([lec.press("class.open")])
    m = re.search(r"(https?://[^\s`/]+)/room/([A-Z0-9]{6})", lec.text())
    if not m:
        raise SystemExit(f"no join link on the lecturer's page: {lec.text()[:300]}")
    phone_url, code = m.groups()
    if await asyncio.to_thread(answers, url):
        phone_url = url  # nginx serves the phones' side on the same site
    if urllib.parse.urlsplit(phone_url).hostname not in ("127.0.0.1", "localhost"):
        raise SystemExit(f"the join link is not on loopback: {phone_url}")
    return lec, phone_url, code

