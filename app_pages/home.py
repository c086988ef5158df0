"""Welcome: what rnnviz is and where to start."""
import streamlit as st

from rnnviz.nn.cells import rnn_forward
from rnnviz.lessons.presets import SCALAR_PRESETS

st.title("Recurrent networks, one step at a time")
st.markdown(
    "A recurrent network reads a sequence one item at a time and keeps a running summary, its **state**. "
    "Each page here lets you set the numbers yourself and watch the state change:"
)
p = SCALAR_PRESETS["fade"]
h = rnn_forward(p.x, p.w_x, p.w_h, p.b, h0=p.h0).h.ravel()
st.latex(r"h_t = \tanh\left(W_x\,x_t + W_h\,h_{t-1} + b\right)")
st.markdown(
    f"With one unit, $w_x = {p.w_x:g}$, $w_h = {p.w_h:g}$ and inputs $1, 0, 0$, the state goes "
    f"**{h[0]:.3f} → {h[1]:.3f} → {h[2]:.3f}**: the first input fades a little more at every step. "
    "Start with **One unit by hand** and try to make it fade faster, or never fade at all."
)
st.page_link("app_pages/scalar.py", label="One unit by hand", icon=":material/edit:")
