"""The Class page's session side: this browser's room and voter tokens, the join form, a refusal kept on a page that
redraws itself, the join link and its QR code, the reveal (on the lesson's own chart where its question has one, from
the lesson registry), the lecturer's resume link, and the Ask the class button a lesson page shows in classroom mode.
Questions are made in ui/questions; rooms live in rnnviz.rooms.store (Redis when RNNVIZ_REDIS_URL is set)."""
from __future__ import annotations

import io
import os
import time
import urllib.parse

import segno
import streamlit as st

from rnnviz.rooms import questions as Q
from rnnviz.rooms.base import RoomStore
from rnnviz.rooms.codes import clean_code
from rnnviz.rooms.figure import reveal_figure
from rnnviz.rooms.room import BadVoter, Question, RoomError, RoomView
from rnnviz.text import InputError, fmt, strip_bidi
from ui.controls import Control, Controls
from ui.lessons.registry import lesson as find
from ui.limits import visitor_and_address
from ui.questions.base import plain, truth_text
from ui.questions.link import make, read_link
from ui.urlstate import font_scale, page_setup
from ui.widgets import plot

P = "class"  # session and widget keys: class.*
CONTROLS = Controls(P, Control("answer", "Your answer", None, kind="number", lo=0.0, hi=1.0))  # a phone's number
# for a question (the Class page's own view): its key, range and label are the question's, given where it is drawn
KEY_CODE, KEY_TOKEN, KEY_VOTER = f"{P}.code", f"{P}.token", f"{P}.voter"
LECTURER_COOKIE = "rnnviz_lecturer"  # CODE.TOKEN of the room this browser steers (remember)
VISITOR_COOKIE = "rnnviz_visitor"  # nginx's per-browser cookie (deploy/nginx.conf.template), when behind it
THIS_PAGE = "app_pages/class_room.py"
REFRESH_S = 1.5  # the projector's count and the phones' question refresh this often (the issue asks within 2 s)
MESSAGE_S = 8.0  # a refusal stays this long on a page that redraws itself
INTRO = ("Open a room, show its code or QR code, and every phone in the hall can answer the question you ask from a "
         "lesson page's setup. No accounts; answers are anonymous and gone after 12 hours.")


def voter(ss, store: RoomStore, code: str) -> str:
    """This phone's voter token, issued by the room: behind nginx derived from the browser's own cookie (another tab
    or a reload is the same voter); else the token a reloaded page carries in its link (`me`, signed: an edited one
    is refused), else a new one, written into the link."""
    if KEY_VOTER not in ss:
        cookie = st.context.cookies.get(VISITOR_COOKIE) if st.context.cookies else None
        ss[KEY_VOTER] = (None if cookie else st.query_params.get("me")) or store.issue_voter(code, cookie)
        st.query_params["me"] = ss[KEY_VOTER]  # a reload keeps the same voter (one vote per round)
    return ss[KEY_VOTER]


def enter(ss, store: RoomStore, code: str) -> RoomView | None:
    """A phone's look at the room: given a voter token and counted in once, then each refresh only reads the room.
    None after saying why not; an edited link is forgotten, and Join again gives this phone a fresh token."""
    try:
        view = store.view(code, counts=False) if ss.get(f"{P}.in.{code}") else store.join(code, voter(ss, store, code))
        ss[f"{P}.in.{code}"] = True
        return view
    except RoomError as e:
        st.warning(e.message, icon=":material/info:")
        if isinstance(e, BadVoter):
            ss.pop(KEY_VOTER, None)
            st.page_link(THIS_PAGE, label="Join again", query_params={"room": code})
        return None


def vote(store: RoomStore, code: str, number: int, rnd: int, value) -> None:
    """A tap on a choice (its index), or the Vote button (value: the number box's key, read now, not at drawing). A
    refusal is said under the Vote button, by the box it is about: said at the top, "Please enter a number" read as a
    refusal of the number typed (the box had refused an answer out of range, and held none)."""
    ss = st.session_state
    value = ss.get(value) if isinstance(value, str) else value
    try:
        store.vote(code, ss[KEY_VOTER], number, rnd, value)
    except RoomError as e:
        return say(e.message, "vote")
    ss[mine_key(code, number, rnd)] = value


def act(fn, *args) -> None:
    """A button's store call; a refusal or an outage becomes a message on the next runs, never a traceback."""
    st.session_state.pop(f"{P}.msg", None)
    try:
        fn(*args)
    except RoomError as e:
        say(e.message)


def say(message: str, where: str = "") -> None:
    """A message for the page's next runs (show_message)."""
    st.session_state[f"{P}.msg"] = (message, time.monotonic(), where)


def show_message(where: str = "") -> None:
    """The last refusal, for MESSAGE_S: a phone's view redraws itself every REFRESH_S, and a message shown once was
    gone in under half a second. Shown in one place, where it was said (`say`'s `where`): the join form's under
    the form, the others at the top (shown in both, a wrong code read twice on a phone)."""
    got = st.session_state.get(f"{P}.msg")
    if got and time.monotonic() - got[1] >= MESSAGE_S:
        st.session_state.pop(f"{P}.msg", None)
    elif got and got[2] == where:
        st.warning(got[0], icon=":material/info:")


def mine_key(code: str, number: int, rnd: int) -> str:
    """The session key of this phone's answer to question `number`, round `rnd`."""
    return f"{P}.mine.{code}.{number}.{rnd}"


def my_answer(ss, store: RoomStore, code: str, number: int, rnd: int):
    """This phone's answer for the round: the one it gave in this session, else the one the room holds for its voter
    (a phone that reloaded, or another tab of the same voter, is a session with the same voter: it shows its answer,
    not the question again). Asked at each refresh until there is one: one read; a room that cannot say (an outage)
    leaves the question up, and the vote then says why."""
    key = mine_key(code, number, rnd)
    if key not in ss:
        try:
            if (v := store.mine(code, ss[KEY_VOTER], number, rnd)) is not None:
                ss[key] = v
        except RoomError:
            pass
    return ss.get(key)


def join_form(ss, store: RoomStore, where: str) -> None:
    """A box for the code on the projector and Join: a phone that came to the page without the room's link or QR
    code (or typed a wrong code) gets in from here."""
    with st.form(f"{P}.join.{where}", border=False, enter_to_submit=True):
        typed = st.text_input("Room code (on the projector)", key=f"{P}.typed.{where}", max_chars=12,
                              placeholder="6 letters and digits")
        go = st.form_submit_button("Join", key=f"{P}.join_btn.{where}", type="primary", width="stretch")
    if go:
        try:
            code = clean_code(typed)
            store.view(code, counts=False)  # a room that exists, else the same message as its link would give
        except RoomError as e:
            say(e.message, "join")  # kept MESSAGE_S: on a phone this box is redrawn every REFRESH_S
        else:
            for key in [k for k in ss if k == KEY_VOTER or k.startswith(f"{P}.in.")]:
                del ss[key]  # a voter token is one room's: the new room issues its own
            st.query_params.clear()
            st.query_params["room"] = code
            st.rerun(scope="app")
    show_message("join")


def qr_png(url: str, px: int = 12) -> bytes:
    """The join link as a PNG QR code, `px` pixels per module (about 400 px across for a short link)."""
    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="png", scale=px, border=2)
    return buf.getvalue()


def page_url(this_url: str, page: str, query: str) -> str:
    """The address of one of this server's pages (its url path), with a query: under the public address where the
    launcher names one (`rnnviz.serve --public-url`, or its --server-name), else under the address this browser used."""
    public = os.environ.get("RNNVIZ_PUBLIC_URL")
    parts = urllib.parse.urlsplit(public or this_url or "http://localhost:8501")  # None: no browser asked (AppTest)
    base = parts.path.rstrip("/") if public else ""
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, f"{base}/{page}", query, ""))


def join_url(this_url: str, code: str) -> str:
    """The students' link: the thin phone page (ui/phones.py), not a Streamlit session per phone."""
    from ui.phones import join_url as phones

    return phones(this_url, code)


def answer_text(q: Question, v: float) -> str:
    return q.options[int(v)] if q.kind == "choice" else fmt(v)


def moved_text(q: Question, r1: Q.Round, r2: Q.Round | None) -> str:
    """One line for the projector: how many were right, and after the discussion."""
    line = f"Round 1: **{r1.right} of {r1.n}** right"
    if q.kind == "number" and r1.n:
        line += f" (within {fmt(q.tol) if q.tol < 1000 else f'{q.tol:,.0f}'}; median miss {fmt(r1.median_error)})"
    if r2 is not None:
        line += f". After discussing: **{r2.right} of {r2.n}** right"
        if q.kind == "number" and r2.n:
            line += f" (median miss {fmt(r2.median_error)})"
    return line + "."


def csv_rows(rows: list[dict]) -> bytes:
    import pandas as pd

    cols = ["question", "lesson", "prompt", "setup", "round", "answer", "truth", "count"]
    rows = [{k: strip_bidi(v) if isinstance(v, str) else v for k, v in r.items()} for r in rows]  # as on the page
    return pd.DataFrame(rows, columns=cols).to_csv(index=False).encode()


def lesson_chart(q: Question, answers: dict, fs: float):
    """The lesson page's own chart for the question's setup with the class's answers on it (round -> answers); None
    for a question without one (the histogram stands alone) or a setup that no longer draws."""
    ls = find(q.lesson)
    ask = ls.asks.get(q.qid) if ls else None
    if ask is None or ask.chart is None:
        return None
    try:
        return ask.chart(read_link(q.lesson, q.setup)[0], q, answers, fs)
    except (InputError, ValueError, KeyError, IndexError):
        return None


def draw_reveal(store: RoomStore, token: str, view: RoomView) -> None:
    """How many were right, then the class's answers, each round so far, against the exact answer: on the lesson's
    own chart where a number's question has one (the histogram folded below it), else as a histogram; a choice as
    bars (its lesson chart folded below)."""
    q, code, fs = view.question, view.code, font_scale()
    answers = {r: store.answers(code, token, view.number, r) for r in range(1, view.round + 1)}
    rounds = {r: Q.summarise(q.kind, q.truth, q.tol, a, q.lo, q.hi, len(q.options)) for r, a in answers.items()}
    st.markdown(f"The exact answer: **{plain(truth_text(q))}**. " + moved_text(q, rounds[1], rounds.get(2)))
    labels = [f"{o} ✓" if i == int(q.truth) else o for i, o in enumerate(q.options)] if q.kind == "choice" else None
    hist = reveal_figure(labels, {r: (s.counts, s.edges) for r, s in rounds.items()}, q.truth,
                         f"exact: {truth_text(q)}", int(q.truth) if q.kind == "choice" else None, font_scale=fs)
    alt = f"answers per round against the exact answer {truth_text(q)}"
    chart = lesson_chart(q, answers, fs)
    if chart is None or q.kind == "choice":  # a choice: its bars, the right one marked, beside the question
        plot(hist, key=f"{P}.reveal", alt=alt)
        if chart is not None:
            with st.expander("The lesson's chart, with the class's answers"):
                plot(chart, key=f"{P}.reveal_lesson", alt=f"the lesson's chart with the class's {alt}")
        return
    plot(chart, key=f"{P}.reveal_lesson", alt=f"the lesson's chart with the class's {alt}")
    with st.expander("The same answers as a histogram, round by round"):
        plot(hist, key=f"{P}.reveal", alt=alt)


def resume(ss, store: RoomStore, params) -> None:
    """A lecturer's bookmarked link (?host=CODE&key=TOKEN) gives this browser its room back after a reload; both
    leave the address bar at once (a projector shows it)."""
    code, key = params.get("host"), params.get("key")
    if not (code and key):
        return
    del params["host"], params["key"]
    try:
        store.answers(code, key, 0, 1)  # only the room's token may read its answers
        ss[KEY_CODE], ss[KEY_TOKEN] = clean_code(code), key
    except RoomError:
        say("That lecturer link does not open a room (wrong key, or the room has expired).")


def keep_link(url: str, code: str, token: str) -> None:
    """The lecturer's own link, folded away: it steers the room, so it is for this browser's bookmarks only."""
    with st.expander("Keep control after a reload"):
        st.caption("Bookmark this link for yourself; never show it to the class: whoever has it steers the room.")
        st.code(page_url(st.context.url, "class_room", f"host={code}&key={token}"), language=None)


def ask_link(url_path: str) -> None:
    """On a lesson page in classroom mode: the Class page, with this page's first question and its setup as it is
    when pressed. A button, not a link: a link's address is written when app.py's foot is drawn, and most settings
    rerun only their own part of the page, so a link asked about the setup before them."""
    ls = find(url_path)
    if ls and ls.asks and st.button("Ask the class", key="app.ask", icon=":material/groups:", type="tertiary"):
        st.switch_page(THIS_PAGE, query_params={"classroom": "1", "ask": url_path, "setup": page_setup()})


def take_ask(ss, store: RoomStore, params) -> None:
    """Arriving from a lesson page's Ask the class: that page's first question, with its setup, is asked at once (a
    room is opened if this browser has none): one click on the projector, not a filled form and a second Ask. The
    form below keeps it picked, for another question from the same page."""
    lesson, setup = params.get("ask"), params.get("setup", "")
    if lesson is None:
        return
    for name in ("ask", "setup"):
        params.pop(name, None)
    if not ((ls := find(lesson)) and ls.asks):
        return
    link = page_url(st.context.url, lesson, strip_bidi(setup))  # the box asks for the page's link, not a query
    ss[f"{P}.lesson"], ss[f"{P}.question"], ss[f"{P}.link"] = lesson, next(iter(ls.asks)), link[:4000]
    try:
        if KEY_CODE not in ss:
            open_room(ss, store)
        q, _, note = make(lesson, ss[f"{P}.question"], ss[f"{P}.link"], ls.model() if ls.model else None)
        if q is None:
            ss[f"{P}.asking"] = True  # the form opens, saying why not
        else:
            store.ask(ss[KEY_CODE], ss[KEY_TOKEN], q)
    except RoomError as e:
        say(e.message)


def open_room(ss, store: RoomStore) -> None:
    """A new room for this browser, counted against the lecturer's address (nginx's X-Real-IP, else the peer's; none
    on this computer): one address opens a bounded number of rooms an hour (rnnviz.rooms.room.ROOMS_PER_ADDRESS)."""
    address = visitor_and_address()[1]
    ss[KEY_CODE], ss[KEY_TOKEN] = store.open_room(address if isinstance(address, str) else "")  # AppTest: a mock


def remember(code: str, token: str) -> None:
    """This browser keeps the lecturer's key (a cookie its own script sets, sent back by a reload's websocket): a
    projector reload keeps its room without a bookmarked link. Static script of our own; code and token are our
    own characters (codes.ALPHABET, url-safe base64)."""
    st.html(f"<script>document.cookie='{LECTURER_COOKIE}={code}.{token}; path=/; max-age=43200; "
            "samesite=strict';</script>", unsafe_allow_javascript=True)


def recall(ss, store: RoomStore) -> None:
    """The room this browser's cookie names, if its key still steers one (a reload of the projector's page)."""
    got = (st.context.cookies or {}).get(LECTURER_COOKIE, "") if st.context.url else ""
    code, _, key = got.partition(".")
    if KEY_CODE in ss or not (code and key):
        return
    try:
        store.answers(code, key, 0, 1)
        ss[KEY_CODE], ss[KEY_TOKEN] = clean_code(code), key
    except RoomError:
        pass  # expired, or lost: the page offers a new room


def phone_view(ss, store: RoomStore, code: str) -> None:
    """The Class page's own view for a phone in room `code` (the page refreshes it, so a new question or the reveal
    arrives within REFRESH_S)."""
    if (view := enter(ss, store, code)) is None:  # a message instead (no such room, full, an edited link)
        show_message()
        join_form(ss, store, "again")
        return
    show_message()
    if view.phase == "closed":  # a phone still on last week's link: the box for this week's code
        st.info("The lecturer has closed this room. Thank you for answering!")
        join_form(ss, store, "again")
        return
    if not view.number:
        st.info(f"You are in room **{code}**. The first question appears here when the lecturer asks it.")
        return
    q, mine = view.question, my_answer(ss, store, code, view.number, view.round)
    st.markdown(f"**Question {view.number}**" + (" · round 2: discussed, vote again" if view.round == 2 else ""))
    st.markdown(plain(q.prompt))
    if view.phase == "open" and mine is None:
        if q.kind == "choice":
            for i, label in enumerate(q.options):
                st.button(plain(label), key=f"{P}.pick.{i}", on_click=act, width="stretch",
                          args=(vote, store, code, view.number, view.round, i))
        else:
            key = f"{P}.num.{view.number}.{view.round}"
            CONTROLS.widget("answer", key=key, label=f"Your answer ({q.lo:g} to {q.hi:g})", lo=q.lo, hi=q.hi,
                              value=None, format="%.3f" if q.hi - q.lo <= 10 else "%.0f")
            st.button("Vote", key=f"{P}.vote", type="primary", width="stretch", on_click=act,
                      args=(vote, store, code, view.number, view.round, key))
        show_message("vote")
    elif view.phase == "open":
        st.success(f"Your answer is in: **{plain(answer_text(q, mine))}**. Wait for the reveal.")
    else:
        right = mine is not None and Q.is_right(q.kind, q.truth, q.tol, mine)
        st.markdown(f"The answer: **{plain(truth_text(q))}**" + ("" if mine is None else
                    f". Yours: {plain(answer_text(q, mine))}, {'right' if right else 'not quite'}."))


def back_to_lesson(q) -> None:
    """One click back to the page the question came from, with the setup the class saw."""
    ls = find(q.lesson)
    if ls is not None:
        query = {**dict(urllib.parse.parse_qsl(q.setup)), "classroom": "1"}
        st.page_link(ls.script, label=f"Back to {ls.title}", icon=":material/arrow_back:", query_params=query)
