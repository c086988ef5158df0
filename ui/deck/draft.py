"""A deck built while rehearsing: on any lesson page, "Save as the next step" adds the page's setup as it is now (with
a speaker note and a question, if chosen) to this browser's draft, which downloads as a deck file for decks/."""
from __future__ import annotations

import urllib.parse

import streamlit as st

from ui.deck.format import Deck, Step, dump
from ui.lessons.registry import lesson as find

P = "deck.draft"  # session and widget keys


def setup_now(url_path: str) -> str:
    """This page's setup as it is now: the page's own names in its link (not classroom mode, nor a deck's place)."""
    ls = find(url_path)
    names = {p.url for p in ls.link(ls.model() if ls.model else None)}
    return urllib.parse.urlencode({k: v for k, v in st.query_params.to_dict().items() if k in names})


def steps() -> list[Step]:
    return st.session_state.setdefault(P, [])


def add(url_path: str) -> None:
    ss = st.session_state
    steps().append(Step(url_path, setup_now(url_path), ss.get(f"{P}.note", "").strip(), ss.get(f"{P}.ask") or ""))
    ss[f"{P}.note"] = ""


def draft_deck() -> Deck:
    return Deck("draft", st.session_state.get(f"{P}.title") or "My lecture", 0, tuple(steps()))


def save_step(url_path: str) -> None:
    """The popover on a lesson page: a note, a question, Save as the next step, and the draft so far to download."""
    ls = find(url_path)
    if ls is None:
        return
    with st.popover(f"Deck draft ({len(steps())})", icon=":material/playlist_add:", key=f"{P}.open"):
        st.caption("Rehearse: set the page up as the class should see it, then save it as the next step of a deck.")
        st.text_input("Speaker note (optional)", key=f"{P}.note", max_chars=2000)
        st.selectbox("Class question at this step", [""] + list(ls.asks), key=f"{P}.ask",
                     format_func=lambda k: ls.asks[k].label if k else "none")
        st.button("Save as the next step", key=f"{P}.add", icon=":material/add:", on_click=add, args=(url_path,))
        if steps():
            st.text_input("Deck title", key=f"{P}.title", max_chars=200, placeholder="My lecture")
            st.caption(" → ".join(f"{k}. {find(s.page).title}" for k, s in enumerate(steps(), 1)))
            st.download_button("Download the deck (TOML)", dump(draft_deck()), "my-lecture.toml",
                               "application/toml", key=f"{P}.download", icon=":material/download:")
            st.caption("Put the file in the app's decks/ folder: it opens from the Decks page.")
