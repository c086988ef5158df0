"""The phones' side of a class room, without a Streamlit session each: a static page (/room/CODE), a join that hands
out a signed voter token (paced per address and per room), votes as POSTs, and the room pushed as server-sent events
(rnnviz.rooms.hub). `live_app(store)` is an ASGI app; `python -m rnnviz.rooms.live --port P` serves it on its own
(rnnviz.serve starts one beside each replica, sharing Redis); a plain `streamlit run app.py` runs it in a thread."""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import threading
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from rnnviz import resources
from rnnviz.rooms.base import RoomStore
from rnnviz.rooms.codes import clean_code
from rnnviz.rooms.hub import Hub
from rnnviz.rooms.pace import PER_ADDRESS, PER_ROOM, Pace
from rnnviz.rooms.room import BadVoter, NoRoom, NotAllowed, RoomError, StoreDown

PAGE_DIR = resources.app_root() / "ui" / "phone"  # the page's words and script: the clone's, or an install's
STATUS = {NoRoom: 404, BadVoter: 403, NotAllowed: 403, StoreDown: 503}
HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
           "Content-Security-Policy": "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'"}
MAX_BODY = 2048  # a vote or a join is a few dozen bytes


def refusal(e: RoomError) -> JSONResponse:
    status = next((s for cls, s in STATUS.items() if isinstance(e, cls)), 409)
    return JSONResponse({"message": e.message, "kind": type(e).__name__}, status, headers=HEADERS)


def client_address(request: Request, behind_proxy: bool) -> str:
    """The phone's address: nginx's view of it (the last X-Forwarded-For entry, which nginx appends) when this
    service is reachable only through nginx; else the connection's own (a header from a phone proves nothing)."""
    if behind_proxy and (fwd := request.headers.get("x-forwarded-for")):
        return fwd.rsplit(",", 1)[-1].strip()
    return request.client.host if request.client else ""


def live_app(store: RoomStore, page_dir: Path = PAGE_DIR, behind_proxy: bool = False) -> Starlette:
    hub = Hub(store)
    by_address, by_room = Pace(*PER_ADDRESS), Pace(*PER_ROOM)

    async def body(request: Request) -> dict:
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise NoRoom("That request is too long.")
        try:
            got = json.loads(raw or b"{}")
        except ValueError:
            got = None
        if not isinstance(got, dict):
            raise NoRoom("That request is not a vote or a join.")
        return got

    async def page(request: Request) -> Response:
        return FileResponse(page_dir / "room.html", headers=HEADERS)

    async def script(request: Request) -> Response:
        return FileResponse(page_dir / "room.js", media_type="text/javascript", headers=HEADERS)

    async def join(request: Request) -> Response:
        """A phone arrives: with the token it was given before (a reload, another tab) it is the same voter and is
        not paced; else, paced, it gets a new token."""
        try:
            code, got = clean_code(request.path_params["code"]), await body(request)
            me = got.get("me") if isinstance(got.get("me"), str) else None
            if me:
                try:
                    await asyncio.to_thread(store.join, code, me)
                    return JSONResponse({"me": me}, headers=HEADERS)
                except BadVoter:
                    pass  # another room's token, or an old one: a new voter, paced like any
            wait = max(by_address.take(client_address(request, behind_proxy)), by_room.take(code))
            if wait:
                return JSONResponse({"message": "Many phones are joining at once; trying again in a moment.",
                                     "retry": round(wait, 2)}, 429,
                                    headers={**HEADERS, "Retry-After": str(max(1, round(wait)))})
            me = await asyncio.to_thread(store.issue_voter, code)
            await asyncio.to_thread(store.join, code, me)
            return JSONResponse({"me": me}, headers=HEADERS)
        except RoomError as e:
            return refusal(e)

    async def vote(request: Request) -> Response:
        """One answer; a phone may change it until the reveal (the last one counts)."""
        try:
            code, got = clean_code(request.path_params["code"]), await body(request)
            args = (code, str(got.get("me", "")), int(got.get("number", 0)), int(got.get("round", 0)))
            await asyncio.to_thread(store.vote, *args, got.get("answer"), True)
            return JSONResponse({"ok": True}, headers=HEADERS)
        except (TypeError, ValueError):
            return JSONResponse({"message": "That is not a vote."}, 400, headers=HEADERS)
        except RoomError as e:
            return refusal(e)

    async def events(request: Request) -> Response:
        """The room, now and after each change, as server-sent events; each with this phone's own answer and, once
        revealed, whether it was right."""
        try:
            code = clean_code(request.path_params["code"])
            vid = await asyncio.to_thread(store.voter_id, code, request.query_params.get("me", ""))
        except RoomError as e:
            return refusal(e)

        async def stream():
            yield "retry: 2000\n\n"  # a phone that loses the stream asks again after 2 s
            async for got in hub.watch(code):
                if got is None:
                    yield ": still here\n\n"
                    continue
                snap, ballots = got
                mine, right = ballots.get(vid, (None, None))
                yield f"data: {json.dumps({**snap, 'mine': mine, 'right': right})}\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={**HEADERS, "X-Accel-Buffering": "no"})

    @contextlib.asynccontextmanager
    async def lifespan(app):
        await hub.start()
        yield
        await hub.stop()

    app = Starlette(routes=[
        Route("/room", page), Route("/room/{code}", page), Route("/_rnnviz/room.js", script),
        Route("/_rnnviz/room/{code}/join", join, methods=["POST"]),
        Route("/_rnnviz/room/{code}/vote", vote, methods=["POST"]),
        Route("/_rnnviz/room/{code}/events", events),
        Route("/_rnnviz/_stcore/health", lambda r: Response("ok")),  # rnnviz.serve's wait_healthy asks here
    ], lifespan=lifespan)
    app.state.hub = hub
    return app


def serve_in_thread(store: RoomStore, host: str, port: int) -> threading.Thread:
    """The phones' service in a daemon thread of this process (a plain `streamlit run app.py`: its rooms are in this
    process's memory, so the service must be too)."""
    import uvicorn

    config = uvicorn.Config(live_app(store), host=host, port=port, log_level="warning", access_log=False,
                            timeout_keep_alive=30, backlog=2048)
    t = threading.Thread(target=uvicorn.Server(config).run, name="rnnviz phones", daemon=True)
    t.start()
    return t


def main() -> None:
    import uvicorn

    from rnnviz.rooms.store import default_store

    ap = argparse.ArgumentParser(description="The class rooms' phone pages and their pushes (server-sent events).")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8502)
    ap.add_argument("--behind-proxy", action="store_true",
                    help="only nginx reaches this service: pace joins by the address nginx forwards")
    args = ap.parse_args()
    uvicorn.run(live_app(default_store(), behind_proxy=args.behind_proxy), host=args.host, port=args.port,
                log_level="warning", access_log=False, timeout_keep_alive=30, backlog=2048)


if __name__ == "__main__":
    main()
