"""Welcome: the lesson plan, with the worked example the path starts from."""
import streamlit as st

from rnnviz.lessons.presets import SCALAR_PRESETS
from rnnviz.nn.cells import rnn_forward
from ui.lessons.registry import LESSONS, plan
from ui.path import CLASS_ICON, CLASS_SCRIPT, CLASS_TITLE, CLASS_WHAT
from ui.urlstate import classroom

st.title("Recurrent networks, one step at a time")
st.markdown(
    "A recurrent network reads a sequence one item at a time and keeps a running summary, its **state**. "
    "Every page lets you set the numbers yourself and watch the state change; every number is computed live "
    "and checked against PyTorch in the tests."
)
p = SCALAR_PRESETS["fade"]
h = rnn_forward(p.x, p.w_x, p.w_h, p.b, h0=p.h0).h.ravel()
st.latex(r"h_t = \tanh\left(W_x\,x_t + W_h\,h_{t-1} + b\right)")
st.markdown(
    f"With one unit, $w_x = {p.w_x:g}$, $w_h = {p.w_h:g}$ and inputs $1, 0, 0$, the state goes "
    f"**{h[0]:.3f} → {h[1]:.3f} → {h[2]:.3f}**: the first input fades a little more at every step."
)

total = sum(ls.minutes for ls in LESSONS)
st.subheader(f"A lesson plan: {len(LESSONS)} pages, about {total} minutes")
st.markdown("The order is the argument: the plain recurrence first, then the problem it has with long memories, "
            "then the gated cells that fix it, then what the states are used for.")
query = {"classroom": "1"} if classroom() else None
section = None
for n, ls in enumerate(LESSONS, 1):
    if ls.section != section:
        section = ls.section
        st.markdown(f"**{section}**")
    c1, c2 = st.columns([2, 3], vertical_alignment="center")
    with c1:
        st.page_link(ls.script, label=f"{n}. {ls.title}", icon=ls.icon, query_params=query)
    c2.markdown(f"{ls.what} · *about {ls.minutes} min*")
st.markdown("**During the lecture**")
c1, c2 = st.columns([2, 3], vertical_alignment="center")
c1.page_link(CLASS_SCRIPT, label=CLASS_TITLE, icon=CLASS_ICON, query_params=query)
c2.markdown(CLASS_WHAT)
short, left = plan(50), [ls for ls in LESSONS if ls not in plan(50)]
st.markdown("**In 50 minutes:** the same path without " + ", ".join(
    f"{LESSONS.index(ls) + 1}. {ls.title} (about {ls.minutes} min)" for ls in left)
    + f", which makes good reading afterwards: about {sum(ls.minutes for ls in short)} minutes. "
    "On a projector, PageDown or → steps a page and, at its foot, opens the next lesson; N and P open the next "
    "and previous lesson at once.")
if not classroom():
    st.info("For a projector, open any link with `?classroom=1` (for example "
            "[this page in classroom mode](/?classroom=1)): larger type, no sidebar, previous / next links "
            "at the top and foot of every page. It stays on as you move between pages.", icon=":material/co_present:")
