"""One entry in the browser's history per page visited, however many settings the visitor moves there.

Streamlit 1.67 pushes a history entry for every st.query_params write (ui/urlstate.publish writes one per slider
notch), so five notches took six Backs to leave a page. Here a history push that keeps the page's path replaces the
current entry instead: a page switch (a new path) still pushes, and Back returns to the last page with the settings
it was left at, in its address."""
from __future__ import annotations

import streamlit as st

# Runs in the app's own document (a v2 component, no iframe); once per tab: the component's code runs on every mount.
_JS = """
export default function() {
  if (history.pushState.rnnvizOnePerPage) return;
  const push = history.pushState;
  const onePerPage = function(state, title, url) {
    const to = url == null ? null : new URL(url, location.href);
    if (to && to.pathname === location.pathname) return history.replaceState(state, title, url);
    return push.call(history, state, title, url);
  };
  onePerPage.rnnvizOnePerPage = true;
  history.pushState = onePerPage;
}
"""
_history = st.components.v2.component("rnnviz_history", js=_JS)


def one_entry_per_page() -> None:
    """Mount the history rule (nothing visible); app.py calls it on every page."""
    _history(key="app.history", height=0)
