"""Decks: a lecture prepared the night before. Each shipped deck (decks/*.toml) with its steps, a room for the class's
phones, and Start, which opens the first step on its page in classroom mode; from there PageDown runs the deck. A
link /decks?deck=NAME&step=K opens step K the same way."""
import streamlit as st

from rnnviz.rooms.store import default_store
from ui import rooms as R
from ui.deck.format import DeckError, load, names
from ui.deck.run import go, position
from ui.lessons.registry import lesson as find
from ui.questions.base import plain

ss, store = st.session_state, default_store()
if at := position():  # a deck's link (/decks?deck=lecture-50&step=3): that step on its page, with its setup
    go(*at)

st.title("Decks: a lecture, prepared")
st.markdown("A deck is a lecture saved as a file: its steps, each a lesson page with its setup, a speaker note and a "
            "class question. Start one, then run it with the remote: **PageDown** asks the step's question in the "
            "room, reveals the answers, and moves to the next step. Build your own with **Deck draft** on any lesson "
            "page. Before and after the lecture, run the concept quiz to measure what the class learned.")
st.page_link("app_pages/quiz.py", label="The concept quiz: before and after", icon=":material/quiz:")

if R.KEY_CODE in ss:
    code = ss[R.KEY_CODE]
    st.markdown(f"Room **{code}** is open: students join at `{R.join_url(st.context.url, code)}` (its QR code is on "
                "the Class page).")
else:
    st.button("Open a room for the class's phones", key="decks.open", type="primary", on_click=R.act,
              args=(lambda: ss.update(zip((R.KEY_CODE, R.KEY_TOKEN), store.open_room())),))
    st.caption("Without a room, a deck still runs; its questions wait for one.")
    R.show_message()

for name in names():
    try:
        deck = load(name)
    except DeckError as e:
        st.subheader(name)
        st.warning("This deck cannot run: " + " ".join(plain(p) for p in e.problems), icon=":material/info:")
        continue
    asks = sum(bool(s.ask) for s in deck.steps)
    with st.container(border=True):
        st.subheader(plain(deck.title))
        st.caption(f"{deck.minutes} minutes · {len(deck.steps)} steps · {asks} class questions · `{name}`")
        if st.button("Start", key=f"decks.start.{name}", type="primary", icon=":material/play_arrow:"):
            go(deck, 0)
        with st.expander("The steps"):
            for k, s in enumerate(deck.steps, 1):
                ls = find(s.page)
                question = f" · asks: {ls.asks[s.ask].label}" if s.ask else ""
                st.markdown(f"**{k}. {ls.title}** `{plain(s.setup) or 'defaults'}`{plain(question)}  \n"
                            f"{plain(s.note)}")
