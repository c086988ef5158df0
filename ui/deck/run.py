"""Running a deck on the lesson pages. The deck and its step live in the link (?deck=lecture-50&step=3), so a reload
keeps them. While a deck is open PageDown always presses its Next (ui/keys.py), never the page's own stepper: one
press is one rehearsed step. On a step whose question is open, Next reveals the answers; otherwise it goes to the
next step's page with that step's setup, and arriving there asks the step's question in the lecturer's open room."""
from __future__ import annotations

import secrets
import urllib.parse

import streamlit as st

from rnnviz.rooms.room import RoomError
from rnnviz.rooms.store import default_store
from ui import rooms as R
from ui.deck import follow
from ui.deck.format import Deck, DeckError, Step, load
from ui.lessons.registry import lesson as find
from ui.limits import fragment
from ui.questions.base import plain
from ui.questions.link import make
from ui.urlstate import arrive_afresh

P = "deck"  # session and widget keys: deck.*
KEY_FOLLOW = f"{P}.follow"  # this browser's key for the presenter view (ui/deck/follow.py)


def position() -> tuple[Deck, int] | None:
    """The deck and step (0-based) the link names; None without one, after saying what is wrong with it."""
    name = st.query_params.get("deck")
    if name is None:
        return None
    try:
        deck = load(name)
    except DeckError as e:
        st.warning("This deck cannot run: " + " ".join(plain(p) for p in e.problems), icon=":material/info:")
        return None
    try:
        k = int(st.query_params.get("step", "1"))
    except ValueError:
        k = 1
    return deck, min(max(k, 1), len(deck.steps)) - 1


def step_query(deck: Deck, i: int) -> dict[str, str]:
    """Step i's link: its page's setup, the deck and the step (1-based), in classroom mode."""
    setup = dict(urllib.parse.parse_qsl(deck.steps[i].setup, keep_blank_values=True))
    return {**setup, "deck": deck.name, "step": str(i + 1), "classroom": "1"}


def go(deck: Deck, i: int) -> None:
    """To step i's page with its setup: the page forgets what this visitor last set there (a step may be the page
    just shown, with another setup)."""
    ls = find(deck.steps[i].page)
    arrive_afresh(ls.link(ls.model() if ls.model else None))
    st.switch_page(ls.script, query_params=step_query(deck, i))


def asked_key(deck: Deck, i: int) -> str:
    return f"{P}.asked.{deck.name}.{i}"


def ask(deck: Deck, i: int) -> int | None:
    """Ask step i's question in this browser's open room, once per session; the room's question number, or None
    (no question, no room, or a refusal said on the page)."""
    ss, step = st.session_state, deck.steps[i]
    if not step.ask or R.KEY_CODE not in ss:
        return None
    key = asked_key(deck, i)
    if key not in ss:
        ls = find(step.page)
        q, _, note = make(step.page, step.ask, step.setup, ls.model() if ls.model else None)
        if q is None:
            st.warning(note, icon=":material/info:")
            return None
        try:
            ss[key] = default_store().ask(ss[R.KEY_CODE], ss[R.KEY_TOKEN], q)
        except RoomError as e:
            st.warning(e.message, icon=":material/info:")
            return None
    return ss[key]


def why(step: Step) -> str:
    """The sentence that explains the step's answer (recomputed from the deck: a room keeps no explanations)."""
    ls = find(step.page)
    made = make(step.page, step.ask, step.setup, ls.model() if ls.model else None)[1]
    return made.why if made else ""


@fragment(run_every=R.REFRESH_S)
def count(code: str) -> None:
    """How many phones have answered, refreshed by itself (never what they answered)."""
    try:
        view = default_store().view(code)
    except RoomError as e:
        st.warning(e.message, icon=":material/info:")
        return
    st.markdown(f"**{view.answered} of {view.students}** answered · PageDown reveals")


def question_panel(deck: Deck, i: int, number: int | None) -> str | None:
    """The step's question as the room holds it: its words and the live count while open, the reveal after. Returns
    the room's phase for this step's question (None when it is not the room's current question)."""
    ss = st.session_state
    if number is None:
        if deck.steps[i].ask and R.KEY_CODE not in ss:
            st.caption("No room is open in this browser: open one on the Decks page to ask this step's question.")
        return None
    code, token = ss[R.KEY_CODE], ss[R.KEY_TOKEN]
    try:
        view = default_store().view(code)
    except RoomError as e:
        st.warning(e.message, icon=":material/info:")
        return None
    if view.number != number:
        return None
    if view.phase == "open":
        st.markdown(f"**Question {number}:** {plain(view.question.prompt)}")
        count(code)
    elif view.phase == "revealed":
        R.draw_reveal(default_store(), token, view)
        if text := why(deck.steps[i]):
            st.markdown(f"**Why:** {plain(text)}")
    return view.phase


def deck_bar(url_path: str) -> None:
    """On a lesson page opened from a deck: where the deck is, Back and Next (PageUp / PageDown), the presenter view's
    link, and the step's question in the room."""
    if (at := position()) is None:
        return
    deck, i = at
    ss, step = st.session_state, deck.steps[i]
    here = url_path == step.page
    ss.setdefault(KEY_FOLLOW, secrets.token_urlsafe(12))
    follow.tell(ss[KEY_FOLLOW], deck.name, i, ss.get(R.KEY_CODE))
    with st.container(key="deck_bar"):
        text, back, nxt, presenter = st.columns([6, 1.4, 1.6, 1.6], vertical_alignment="center")
        phase, last = None, i == len(deck.steps) - 1
        where = f"**{plain(deck.title)}** · step {i + 1} of {len(deck.steps)}"
        if not here:
            where += f" · this step is on **{find(step.page).title}**: Next goes there"
        elif not last:
            where += f" · next: {find(deck.steps[i + 1].page).title}"
        text.markdown(where)
        if here:
            with st.container(key="deck_question"):
                phase = question_panel(deck, i, ask(deck, i))
        label = "Reveal" if phase == "open" else ("Go to this step" if not here else "Next step")
        pressed_back = back.button("Back", key=f"{P}.back", icon=":material/chevron_left:", disabled=i == 0)
        pressed = nxt.button(label, key=f"{P}.next", icon=":material/chevron_right:", type="primary",
                             disabled=here and last and phase != "open")
        presenter.link_button("Presenter", R.page_url(st.context.url, "presenter", f"follow={ss[KEY_FOLLOW]}"),
                              icon=":material/co_present:")
    if pressed_back:
        go(deck, i - 1)
    elif pressed and phase == "open":
        try:
            default_store().reveal(ss[R.KEY_CODE], ss[R.KEY_TOKEN])
        except RoomError as e:
            st.warning(e.message, icon=":material/info:")
        else:
            st.rerun()
    elif pressed:
        go(deck, i if not here else i + 1)
