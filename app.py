"""rnnviz: step recurrent networks by hand, in the browser. Run with `streamlit run app.py`."""
import time

# pandas whole before any session builds a figure: plotly peeks at sys.modules["pandas"] and, when a class arrives
# at once on a fresh server, can catch it half-imported by another session's thread (AttributeError: no 'Series').
import pandas  # noqa: F401
import streamlit as st
from threadpoolctl import threadpool_limits

from pages.common import classroom, legend, record_run
from rnnviz.figures import use_house_template

_t0 = time.perf_counter()
use_house_template()
threadpool_limits(1)  # the pages' matrices are small: one BLAS thread is faster, and sessions run in parallel

st.set_page_config(page_title="rnnviz: recurrent networks, step by step", page_icon=":material/replay:", layout="wide",
                   initial_sidebar_state="collapsed" if classroom() else "auto")

PAGES = {
    "Start": [st.Page("pages/home.py", title="Welcome", icon=":material/waving_hand:", default=True)],
    "Cells": [
        st.Page("pages/scalar.py", title="One unit by hand", icon=":material/edit:", url_path="scalar"),
        st.Page("pages/vector.py", title="The cell, step by step", icon=":material/grid_on:", url_path="vector"),
        st.Page("pages/gates.py", title="Gates: LSTM and GRU", icon=":material/valve:", url_path="gates"),
        st.Page("pages/states.py", title="Using the states", icon=":material/call_split:", url_path="states"),
    ],
    "Training": [
        st.Page("pages/gradients.py", title="Gradients through time", icon=":material/trending_down:", url_path="gradients"),
        st.Page("pages/hello.py", title='Train "hello" yourself', icon=":material/school:", url_path="hello"),
    ],
    "Language models": [
        st.Page("pages/sample.py", title="Sample a trained model", icon=":material/auto_stories:", url_path="sample"),
    ],
}

nav = st.navigation(PAGES, position="hidden" if classroom() else "sidebar")
if classroom():
    # static CSS of our own (no user text): bigger type for a projector, no sidebar
    st.html("<style>[data-testid='stMarkdownContainer'] p, [data-testid='stMarkdownContainer'] li, "
            "[data-testid='stWidgetLabel'] p, [data-testid='stBaseButton-primary'] p, "
            "[data-testid='stBaseButton-secondary'] p {font-size: 1.3rem !important;} "
            "section[data-testid='stSidebar'] {display:none;} .block-container {padding-top: 1.2rem;}</style>")
else:
    with st.sidebar:
        legend()
        st.segmented_control("Chart downloads", ["png", "svg"], key="app.image_format", default="png",
                             format_func=str.upper, help="The camera button on every chart saves this format.")
        with st.expander("What is this?"):
            st.markdown(
                "rnnviz runs small recurrent networks in front of you, one step at a time. Every number on a "
                "page is computed live from the weights you set, and checked in tests against PyTorch. "
                "Add `?classroom=1` to a link for projector-sized type."
            )
nav.run()
record_run(nav.url_path, time.perf_counter() - _t0)
