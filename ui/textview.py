"""A clickable text: markup from `rnnviz.figures.sample.text_markup` (escaped characters and numbers only) shown
without an iframe; a click on a character reports its index. Registered once, here, not in a page script."""
from __future__ import annotations

import functools

import streamlit as st

MAX_INDEX = 10**6  # no text shown is longer; the page clamps the position to its text

_JS = """
export default function(component) {
  const { data, setTriggerValue, parentElement } = component;
  let root = parentElement.querySelector('div.tv-root');
  if (!root) {
    root = document.createElement('div');
    root.className = 'tv-root';
    root.setAttribute('role', 'group');
    parentElement.appendChild(root);
    root.addEventListener('click', e => {
      const s = e.target.closest('span[data-i]');
      if (s) setTriggerValue('clicked', Number(s.dataset.i));
    });
  }
  root.setAttribute('aria-label', data.alt);
  // what the server sent last, for a drag that draws its own frames here to put back (ui/live/words.js); _html: the
  // markup shown, which such a frame sets to its own (the server's at that value)
  root._sent = data.html;
  root._selected = data.selected;
  if (root._html !== data.html) { root.innerHTML = data.html; root._html = data.html; }
  const sel = root.querySelector('span.sel');  // the outline moves without the text being laid out again
  if (!sel || Number(sel.dataset.i) !== data.selected) {
    if (sel) sel.classList.remove('sel');
    root.querySelector(`span[data-i="${data.selected}"]`)?.classList.add('sel');
  }
}
"""
_CSS = """
.tv { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; line-height: 1.55; white-space: pre-wrap;
      overflow-wrap: anywhere; color: #111; }
.tv span { cursor: pointer; border-radius: 2px; padding: 1px 0; }
.tv span:hover { outline: 1px solid #555; }
.tv .nl { color: #999; }
.tv .na { opacity: 0.35; }
.tv .sel { outline: 2.5px solid #111; outline-offset: 0; }
"""
_view = st.components.v2.component("rnnviz_textview", js=_JS, css=_CSS)


def _clicked(key: str, target: str) -> None:
    """A click's index into st.session_state[target]. The value comes from the browser, so anything else (a string,
    NaN, Infinity, null, a huge or deeply nested value: what a crafted message can send) is ignored."""
    try:
        value = st.session_state[key]["clicked"]
    except (KeyError, IndexError, TypeError, ValueError, RecursionError):
        return
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_INDEX:
        st.session_state[target] = value


def textview(markup: str, alt: str, key: str, target: str, selected: int | None = None) -> None:
    """Show the markup, the character `selected` outlined; a click on a character puts its index into
    st.session_state[target] (before the rerun). Moving only the outline leaves the markup as it was drawn."""
    _view(data={"html": markup, "alt": alt, "selected": selected}, key=key,
          on_clicked_change=functools.partial(_clicked, key, target))
