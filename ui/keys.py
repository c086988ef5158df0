"""Keys a lecturer can trust, on every page: PageDown / PageUp (what a presentation remote sends) press the page's
Next / Back step buttons whatever holds the focus; where a page has no step to take (no stepper, or its last step),
they and → / ← scroll a screen, and at the page's foot (top) open the next (previous) lesson. N / P open the next /
previous lesson at once. While a deck runs, PageDown / PageUp press the deck's Next / Back instead (ui/deck/run.py).
A slider dragged with the mouse lets the focus go when the drag ends, so the remote's next
key steps the page, not the slider; a slider reached by Tab keeps it and shows it (there, ← → move the slider). A step
key pressed while the stepper runs past the screen's foot brings the stepper to the top, with what it steps under it.
An equation that scrolls sideways takes the focus (Tab), so keys scroll it. Registered once, here; app.py mounts it
on every page."""
from __future__ import annotations

import streamlit as st

# One listener per browser tab (the component's code runs again on every mount): capture phase, so a focused
# slider or text box never sees PageDown first. Buttons are found by their Streamlit key's suffix, `.next` / `.back`;
# the lesson links by their row's key (ui/path.py: `lessons_foot`, its first column the previous lesson, its last the
# next).
_JS = """
export default function() {
  if (document.documentElement.dataset.rnnvizKeys) return;
  document.documentElement.dataset.rnnvizKeys = '1';
  // An equation wider than its column scrolls sideways: Tab reaches it, so the keys can scroll it too (axe's
  // scrollable-region-focusable; KaTeX's displays often run 2 px past their box). Looked for once the page settles.
  const reachable = () => document.querySelectorAll('.katex-display:not([tabindex])').forEach(k => {
    if (k.scrollWidth > k.clientWidth) k.tabIndex = 0;
  });
  let settle = null;
  new MutationObserver(() => { clearTimeout(settle); settle = setTimeout(reachable, 100); })
    .observe(document.body, {childList: true, subtree: true});
  reachable();
  const stepButton = (suffix, deck) => {  // a key's dots become hyphens in its class; `deck`: a deck's (deck.next)
    const box = [...document.querySelectorAll('[class*="st-key-"]')].find(el => [...el.classList].some(
      c => c.startsWith('st-key-') && c.endsWith(suffix) && c.startsWith('st-key-deck-') === deck));
    return box && box.querySelector('button');
  };
  const lessonLink = forward => {
    const cols = [...document.querySelectorAll('.st-key-lessons_foot [data-testid="stColumn"]')];
    const col = forward ? cols[cols.length - 1] : cols[0];
    return col && col.querySelector('a');
  };
  const scroller = () => document.querySelector('[data-testid="stMain"]') || document.scrollingElement;
  // no step to take: a screen down (up), or at the foot (top) the next (previous) lesson
  const page = forward => {
    const s = scroller();
    const end = forward ? s.scrollTop + s.clientHeight >= s.scrollHeight - 2 : s.scrollTop <= 1;
    if (!end) { s.scrollBy({top: (forward ? 1 : -1) * 0.85 * s.clientHeight}); return; }
    const link = lessonLink(forward);
    if (link) link.click();
  };
  let dragged = null;  // the slider a pointer pressed: once the drag ends (and the slider has its value), no focus
  document.addEventListener('pointerdown', e => {
    dragged = e.target.closest && e.target.closest('[data-testid="stSlider"]');
  }, true);
  document.addEventListener('pointerup', () => {
    const slider = dragged;
    dragged = null;
    if (slider) setTimeout(() => { if (slider.contains(document.activeElement)) document.activeElement.blur(); }, 0);
  }, true);
  document.addEventListener('keydown', e => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const remote = e.key === 'PageDown' || e.key === 'PageUp';
    const typing = e.target.closest && e.target.closest('input, textarea, select, [role="slider"], [contenteditable]');
    if (!typing && ['n', 'N', 'p', 'P'].includes(e.key)) {
      const link = lessonLink(e.key.toLowerCase() === 'n');
      if (link) { e.preventDefault(); link.click(); }
      return;
    }
    if (!remote && !(['ArrowLeft', 'ArrowRight', 'Home'].includes(e.key) && !typing)) return;
    const forward = e.key === 'PageDown' || e.key === 'ArrowRight';
    const deck = remote && stepButton('-next', true);  // a deck runs (ui/deck/run.py): one press, one step
    const next = deck || stepButton('-next', false);
    const row = next && next.closest('[data-testid="stHorizontalBlock"]');
    if (row && row.getBoundingClientRect().bottom > window.innerHeight) row.scrollIntoView({block: 'start'});
    if (e.key === 'Home') return;  // Streamlit's own shortcut (Reset)
    const button = forward ? next : stepButton('-back', Boolean(deck));
    if (button && !button.disabled) {
      if (!remote) return;  // Streamlit's own shortcut steps
      e.preventDefault();
      e.stopPropagation();
      button.click();
      return;
    }
    if (typing && !e.target.closest('input[type="range"], [role="slider"]')) return;  // a text box's own PageDown
    e.preventDefault();
    e.stopPropagation();
    page(forward);
  }, true);
}
"""
_CSS = """
[data-testid="stSlider"] [data-focused="true"] {  /* the thumb, whose hidden range input holds the focus */
  outline: 3px solid #0072B2; outline-offset: 4px; box-shadow: 0 0 0 7px rgba(0, 114, 178, 0.25);
}
[data-testid="stSlider"] [data-focused="true"] [data-testid="stSliderThumbValue"] {  /* its value, clear of the ring */
  transform: translateY(-7px);
}
"""
_keys = st.components.v2.component("rnnviz_keys", js=_JS, css=_CSS, isolate_styles=False)


def step_keys(page: str) -> None:
    """Mount the key handling (nothing visible), on every page."""
    _keys(key=f"{page}.step_keys", height=0)
