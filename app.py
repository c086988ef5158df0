"""rnnviz: step recurrent networks by hand, in the browser. Run with `streamlit run app.py`."""
import time

import streamlit as st
from threadpoolctl import threadpool_limits

from ui.loaders import record_run
from ui.urlstate import classroom
from ui.widgets import legend
from rnnviz.figures.base import use_house_template

_t0 = time.perf_counter()
use_house_template()
threadpool_limits(1)  # the pages' matrices are small: one BLAS thread is faster, and sessions run in parallel

st.set_page_config(page_title="rnnviz: recurrent networks, step by step", page_icon=":material/replay:", layout="wide",
                   initial_sidebar_state="collapsed" if classroom() else "auto")

PAGES = {
    "Start": [st.Page("app_pages/home.py", title="Welcome", icon=":material/waving_hand:", default=True)],
    "Cells": [
        st.Page("app_pages/scalar.py", title="One unit by hand", icon=":material/edit:", url_path="scalar"),
        st.Page("app_pages/vector.py", title="The cell, step by step", icon=":material/grid_on:", url_path="vector"),
        st.Page("app_pages/gates.py", title="Gates: LSTM and GRU", icon=":material/valve:", url_path="gates"),
        st.Page("app_pages/states.py", title="Using the states", icon=":material/call_split:", url_path="states"),
    ],
    "Training": [
        st.Page("app_pages/gradients.py", title="Gradients through time", icon=":material/trending_down:", url_path="gradients"),
        st.Page("app_pages/hello.py", title='Train "hello" yourself', icon=":material/school:", url_path="hello"),
    ],
    "Language models": [
        st.Page("app_pages/sample.py", title="Sample a trained model", icon=":material/auto_stories:", url_path="sample"),
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
