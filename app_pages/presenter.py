"""Presenter view: the lecturer's second window, following the projector through a deck: this step's speaker note
and question, the room's live count, and the next step. Opened from a deck's Presenter button (?follow=KEY)."""
import time

import streamlit as st

from rnnviz.rooms.room import RoomError
from rnnviz.rooms.store import default_store
from ui.deck import follow
from ui.deck.format import DeckError, load
from ui.lessons.registry import lesson as find
from ui.limits import fragment
from ui.questions.base import plain

FOLLOW_S = 1.0  # how often it looks at the projector's step


def describe(step, heading: str) -> None:
    ls = find(step.page)
    st.markdown(f"**{heading}: {ls.title}** `{plain(step.setup) or 'defaults'}`")
    if step.ask:
        st.markdown(f"Question: {plain(ls.asks[step.ask].label)}")


@fragment(run_every=FOLLOW_S)
def presenter(key: str) -> None:
    w = follow.where(key)
    if w is None:
        st.info("Waiting for the projector: start a deck there (Decks page), then open this window from its "
                "Presenter button.", icon=":material/co_present:")
        return
    try:
        deck = load(w.deck)
    except DeckError as e:
        st.warning(" ".join(plain(p) for p in e.problems))
        return
    step = deck.steps[w.step]
    st.markdown(f"### Step {w.step + 1} of {len(deck.steps)} · {plain(deck.title)}")
    st.caption(f"following the projector, last seen {max(0, time.time() - w.at):.0f} s ago")
    now, later = st.columns([3, 2], gap="large")
    with now:
        describe(step, "Now")
        st.markdown(f"#### Note\n{plain(step.note) or '(no note)'}")
        if w.code:
            try:
                view = default_store().view(w.code)
                phase = {"open": "open", "revealed": "revealed", "waiting": "no question yet", "closed": "closed"}
                st.metric(f"Room {w.code}: question {view.number}, {phase[view.phase]}",
                          f"{view.answered} of {view.students}")
            except RoomError as e:
                st.warning(e.message, icon=":material/info:")
        else:
            st.caption("No room is open on the projector's browser.")
    with later:
        if w.step + 1 < len(deck.steps):
            describe(deck.steps[w.step + 1], "Next")
            st.caption(plain(deck.steps[w.step + 1].note))
        else:
            st.markdown("**The last step.** Then the concept quiz, after the lecture.")


st.title("Presenter view")
if key := st.query_params.get("follow"):
    presenter(key[:64])
else:
    st.info("Open this window from a running deck's Presenter button: its link says which deck to follow.")
