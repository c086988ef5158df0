"""Class: the whole room predicts (peer instruction). The lecturer opens a room, asks a question computed from a lesson
page's setup, watches the count, reveals the answers against the truth, and runs a second round; phones join with
?room=CODE and vote once per round."""

import streamlit as st

from rnnviz.rooms.room import RoomError
from rnnviz.rooms.store import default_store
from ui import phones, rooms as R
from ui.lessons.registry import asking, lesson as find
from ui.limits import fragment
from ui.questions.base import plain
from ui.questions.link import make

P, ss, store = R.P, st.session_state, default_store()


@fragment(run_every=R.REFRESH_S)
def student(code: str) -> None:
    """The phone's view: refreshes itself, so a new question or the reveal arrives within REFRESH_S."""
    R.phone_view(ss, store, code)


@fragment(run_every=R.REFRESH_S)
def live_count(code: str, phase: str = "open") -> None:
    """The projector's count while a round is open: how many answered, never what; before the first question, how
    many phones are in."""
    try:
        view = store.view(code)
    except RoomError as e:
        st.warning(e.message, icon=":material/info:")
        return
    if view.phase != phase:
        st.rerun(scope="app")
    if phase == "waiting":
        st.metric("Phones in the room", view.students)
    else:
        st.metric(f"Question {view.number}, round {view.round}: answers", f"{view.answered} of {view.students}")


def ask_panel(code: str, token: str) -> None:
    titles = {ls.url: ls.title for ls in asking()}
    lesson = st.selectbox("Lesson page", list(titles), key=f"{P}.lesson", format_func=titles.get)
    ls = find(lesson)
    qid = st.selectbox("Question", list(ls.asks), key=f"{P}.question", format_func=lambda k: ls.asks[k].label)
    link = st.text_input("Link of the lesson page as the class sees it (optional)", key=f"{P}.link", max_chars=4000,
                         help="Copy the page's address: every setting is in it. Empty: the page's defaults.")
    q, made, note = make(lesson, qid, link, ls.model() if ls.model else None)
    if note:
        st.info(note, icon=":material/info:")
    if q is not None:
        st.caption(plain(q.prompt))
        st.button("Ask the class", key=f"{P}.ask", type="primary", on_click=R.act, args=(store.ask, code, token, q))


def room_side(code: str, token: str, url: str, view) -> None:
    """The code large enough to read from the back row; the QR code until the first phones are in, then folded
    away; the lock and the lecturer's own link."""
    st.markdown(f"# Room **{code}**")
    st.markdown(f"Join at `{url}`")
    if phones.private_host(url):
        st.warning("This link points at this computer or a private network: phones elsewhere cannot open it. Start "
                   "the server with its public address (`--public-url`, or RNNVIZ_PUBLIC_URL).",
                   icon=":material/wifi_off:")
    if view is None or not view.students:
        st.image(R.qr_png(url), width=300, caption="Scan to join")
    else:
        with st.expander("Show the QR code"):
            st.image(R.qr_png(url), width=300, caption="Scan to join")
    if view is not None and view.phase != "closed":
        st.button("Unlock the room" if view.locked else "Lock the room", key=f"{P}.lock", icon=":material/lock:",
                  help="Locked: phones already in keep answering; no new phone joins (a class in, or a room being "
                       "stuffed).", on_click=R.act, args=(store.lock, code, token, not view.locked))
    R.keep_link(url, code, token)


def lecturer() -> None:
    R.recall(ss, store)  # this browser's room, after a reload of the projector's page
    R.resume(ss, store, st.query_params)
    R.take_ask(ss, store, st.query_params)  # from a lesson page's Ask the class: asked at once
    R.show_message()
    if R.KEY_CODE not in ss:  # before a room is open, the page says what it is (with a room, its code heads it)
        st.title("Class: everyone answers")
        st.markdown(R.INTRO)
        phone, lecturer_side = st.columns(2, gap="large")  # on a phone, one above the other: the phone's first
        with phone:  # a student who came without the room's link
            st.markdown("**Answering?** Type the code the projector shows.")
            R.join_form(ss, store, "first")
        with lecturer_side:
            st.markdown("**Teaching?** A room takes one click.")
            st.button("Open a room", key=f"{P}.open", type="primary", on_click=R.act, args=(new_room,))
        return
    code, token = ss[R.KEY_CODE], ss[R.KEY_TOKEN]
    url = R.join_url(st.context.url, code)
    R.remember(code, token)
    try:
        view = store.view(code)
    except RoomError as e:
        view = None
        st.warning(e.message, icon=":material/info:")
        st.button("Open a new room", key=f"{P}.reopen", type="primary", on_click=R.act, args=(new_room,))
    left, right = st.columns([2, 3], gap="large")
    with left:
        room_side(code, token, url, view)
    if view is None:
        return
    with right:  # what the class is doing first (the projector's first screen), the next question below
        if view.phase == "waiting":
            live_count(code, "waiting")
        elif view.phase == "open":
            st.markdown(plain(view.question.prompt))
            live_count(code)
            c1, c2 = st.columns(2)
            c1.button("Reveal", key=f"{P}.reveal_btn", type="primary", on_click=R.act, args=(store.reveal, code, token))
            c2.button("Clear this round", key=f"{P}.clear", help="Forget this round's answers; every phone answers "
                      "again.", on_click=R.act, args=(store.clear, code, token))
        elif view.phase in ("revealed", "closed") and view.number:
            st.markdown(plain(view.question.prompt))  # the question stays up beside its answers
            R.draw_reveal(store, token, view)
            if view.round == 1 and view.phase == "revealed":
                st.button("Discuss and vote again", key=f"{P}.revote", on_click=R.act, args=(store.revote, code, token))
        if view.number:
            R.back_to_lesson(view.question)
        with st.expander(f"Ask question {view.number + 1}" if view.number else "Ask a question",
                         expanded=not view.number or ss.pop(f"{P}.asking", False)):
            ask_panel(code, token)
        c1, c2 = st.columns(2)
        try:
            c1.download_button("Questions and counts (CSV)", R.csv_rows(store.export(code, token)), f"room-{code}.csv",
                               "text/csv", key=f"{P}.csv")
        except RoomError as e:
            c1.warning(e.message, icon=":material/info:")
        if view.phase != "closed":
            c2.button("Close the room", key=f"{P}.close", on_click=R.act, args=(store.close, code, token))
        else:
            st.info("The room is closed: phones show a thank-you. The CSV stays here until the room expires.")
            st.button("Open a new room", key=f"{P}.reopen", type="primary", on_click=R.act, args=(new_room,))


def new_room() -> None:
    R.open_room(ss, store)


if room := st.query_params.get("room"):
    if nick := st.text_input("Nickname (optional; only on your screen, never sent with answers)", key=f"{P}.nick",
                             max_chars=40).strip():
        st.caption(f"Answering as **{plain(nick)}**, on this phone only.")
    student(room)
else:
    lecturer()
