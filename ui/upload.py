"""Bring your own character model: two file boxes, validation, and a refusal remembered for that file pair (a
rerun never parses a refused upload again). The model lives in this session only."""
from __future__ import annotations

from typing import Callable

import streamlit as st

from rnnviz import charlm
from ui.widgets import error


def model_upload(prefix: str, shipped: Callable[[], charlm.CharLM]) -> tuple[str, charlm.CharLM]:
    """("upload:<file ids>", the model) when a valid pair is uploaded, else ("shipped", shipped()); the page stops
    with a message if even the shipped model cannot be loaded."""
    try:
        return _uploaded(prefix) or ("shipped", shipped())
    except charlm.CheckpointError as e:
        error(f"The shipped model could not be loaded: {e}")
        st.stop()


def _uploaded(prefix: str) -> tuple[str, charlm.CharLM] | None:
    ss = st.session_state
    with st.expander("Bring your own model (this session only)"):
        st.caption("A `.safetensors` file of `rnnviz.model.CharRNN` weights and its JSON card, as written by "
                   "`python -m rnnviz.charlm.train`. Files are checked (names, shapes, vocabulary, size) and never "
                   "executed.")
        wf = st.file_uploader("Weights (.safetensors)", type=["safetensors"], key=f"{prefix}.up_w")
        cf = st.file_uploader("Card (.json)", type=["json"], key=f"{prefix}.up_c")
        if wf is None or cf is None:
            return None
        key = f"{wf.file_id}/{cf.file_id}"  # a new upload gets new ids; no hashing of megabytes per rerun
        if key not in (ss.get(f"{prefix}.upload_key"), ss.get(f"{prefix}.refused", ("",))[0]):
            ss.pop(f"{prefix}.upload", None), ss.pop(f"{prefix}.upload_key", None)
            try:
                model = charlm.load_bytes(wf.getvalue(), cf.getvalue())
                ss[f"{prefix}.upload"], ss[f"{prefix}.upload_key"] = model, key
            except charlm.CheckpointError as e:
                ss[f"{prefix}.refused"] = (key, str(e)[:400])
        if ss.get(f"{prefix}.upload_key") == key:
            st.success("Using your model for this session.")
            return f"upload:{key}", ss[f"{prefix}.upload"]
        error(f"That model was refused: {ss[f'{prefix}.refused'][1]}.")
        return None
