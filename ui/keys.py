"""Keys a lecturer can trust: PageDown / PageUp (what a presentation remote sends) press the page's Next / Back
step buttons whatever holds the focus, and a slider that holds the focus shows it (there, ← → move the slider, not
the step); while a deck runs they press the deck's Next / Back instead (ui/deck/run.py). A step key pressed while
the stepper runs past the screen's foot (on a projector the gates page's three cells sit under its first screen)
brings the stepper to the top: a step the class cannot see is no step. Mounted by app.py on every lesson page."""
from __future__ import annotations

import streamlit as st

# One listener per browser tab (the component's code runs again on every mount): capture phase, so a focused
# slider or text box never sees PageDown first. Buttons are found by their Streamlit key's suffix, `.next` / `.back`.
_JS = """
export default function() {
  if (document.documentElement.dataset.rnnvizKeys) return;
  document.documentElement.dataset.rnnvizKeys = '1';
  const stepButton = (suffix, deck) => {  // a key's dots become hyphens in its class; `deck`: a deck's (deck.next)
    const box = [...document.querySelectorAll('[class*="st-key-"]')].find(el => [...el.classList].some(
      c => c.startsWith('st-key-') && c.endsWith(suffix) && c.startsWith('st-key-deck-') === deck));
    return box && box.querySelector('button');
  };
  document.addEventListener('keydown', e => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const remote = e.key === 'PageDown' || e.key === 'PageUp';
    const typing = e.target.closest && e.target.closest('input, textarea, select, [role="slider"], [contenteditable]');
    if (!remote && !(['ArrowLeft', 'ArrowRight', 'Home'].includes(e.key) && !typing)) return;
    const deck = remote && stepButton('-next', true);  // a deck runs (ui/deck/run.py): one press, one step
    const next = deck || stepButton('-next', false);
    const row = next && next.closest('[data-testid="stHorizontalBlock"]');
    if (row && row.getBoundingClientRect().bottom > window.innerHeight) row.scrollIntoView({block: 'start'});
    if (!remote) return;  // Streamlit's own shortcut steps
    const button = e.key === 'PageDown' ? next : stepButton('-back', Boolean(deck));
    if (!button) return;
    e.preventDefault();
    e.stopPropagation();
    if (!button.disabled) button.click();
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
    """Mount the key handling (nothing visible)."""
    _keys(key=f"{page}.step_keys", height=0)
