"""Using the states: classifier vs language model, the padding trap, a bidirectional pass, parameter counts."""
import numpy as np
import pandas as pd
import streamlit as st

from ui.urlstate import choice, dump_flag, flag, font_scale, integer, Param, publish, restore, set_state, text
from ui.widgets import error, intro, plot
from rnnviz.figures import states as figures
from rnnviz.nn.params import classifier_params, lm_params, millions
from rnnviz.lessons.presets import GRU_CLASSIFIER, RNN_LM
from rnnviz.lessons.scalar import InputError
from rnnviz.lessons.states import bidirectional, heads, padding_demo, torch_bidirectional

P = "states"
PARAMS = [
    Param(f"{P}.lengths", "len", "5, 3, 2", text(200)),
    Param(f"{P}.task", "task", "lm", choice(["classifier", "lm"])),
    Param(f"{P}.cell", "cell", "rnn", choice(["rnn", "gru", "lstm"])),
    Param(f"{P}.d", "d", 256, integer(1, 100_000)),
    Param(f"{P}.H", "H", 512, integer(1, 100_000)),
    Param(f"{P}.out", "out", 37_580, integer(1, 10_000_000)),
    Param(f"{P}.vocab", "V", 37_580, integer(0, 10_000_000)),
    Param(f"{P}.layers", "L", 1, integer(1, 8)),
    Param(f"{P}.bi", "bi", False, flag, dump_flag),
]


def parse_lengths(s: str) -> list[int]:
    try:
        ls = [int(v) for v in s.replace(",", " ").split()]
    except ValueError:
        raise InputError("Lengths must be whole numbers, e.g. 5, 3, 2.") from None
    if not ls or len(ls) > 8 or not all(1 <= n <= 30 for n in ls):
        raise InputError("Give 1 to 8 lengths, each from 1 to 30.")
    return ls


def calc_preset(values: dict) -> dict:
    return {f"{P}.{k}": v for k, v in values.items()}


st.title("Using the states")
restore(P, PARAMS)
intro("A recurrent layer hands back one state per step. A classifier keeps only the last one; a language model "
      "reads every one. Open **The padding trap** to see what goes wrong when 'the last one' is a padding "
      "token, and **Parameter counts** to see where a language model's weights really live.")
fs = font_scale()
tab1, tab2, tab3, tab4 = st.tabs(["Classifier vs language model", "The padding trap", "Bidirectional", "Parameter counts"])

with tab1:
    B, T, d, H, V, C = 2, 5, 4, 3, 6, 3
    rng = np.random.default_rng(0)
    x = rng.normal(size=(B, T, d))
    from rnnviz.nn.cells import init_weights, rnn_forward
    w = init_weights("rnn", d, H, seed=0)
    states = np.stack([rnn_forward(x[b], **w).h for b in range(B)])
    out = heads(states, C, V)
    st.markdown(f"A batch of **B = {B}** sequences, **T = {T}** steps, input size **d = {d}**, **H = {H}** units:")
    st.markdown(f":green[inputs [B, T, d] = {list(x.shape)}] → :blue[states [B, T, H] = {list(states.shape)}] → "
                f":red[classifier: last state only, [B, C] = {list(out['classifier'].shape)}] "
                f"or :red[language model: every state, [B, T, |V|] = {list(out['lm'].shape)}]")
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("**Classifier** reads $h_T$ and gives one distribution per sequence.")
        st.dataframe(pd.DataFrame(out["classifier"], columns=[f"class {k + 1}" for k in range(C)],
                                  index=[f"sequence {b + 1}" for b in range(B)]).round(3), width="stretch")
    with c2:
        st.markdown("**Language model** gives a distribution over the vocabulary at every step.")
        plot(figures.state_heatmap(out["lm"][0], title="Sequence 1: p(next token) at each step", zlim=1.0,
                                   name="token", font_scale=fs, probabilities=True), f"{P}.lm",
             alt="language model probabilities")

with tab2:
    c1, c2 = st.columns([1, 2], gap="large")
    with c1:
        lengths_text = st.text_input("Sequence lengths in the batch", key=f"{P}.lengths", max_chars=200,
                                     help="Each sequence is padded with zero vectors up to the longest one.")
        try:
            lengths = parse_lengths(lengths_text)
        except InputError as e:
            error(f"{e} Using 5, 3, 2.")
            lengths = [5, 3, 2]
        check = st.toggle("Check with PyTorch", key=f"{P}.torch_pad",
                          help="Also run torch's pack_padded_sequence on the same weights and compare.")
        demo = padding_demo(lengths, with_torch=check)
        st.markdown("Padding fills the short sequences with zeros at the end, so **the state at index T − 1 is the "
                    "state after the padding**. Three fixes agree with each other: read index length − 1 per example, "
                    "pack the batch so the recurrence stops at each true length (torch's `pack_padded_sequence`), or "
                    "put the padding first.")
    with c2:
        plot(figures.padding_bars(demo, fs), f"{P}.pad", alt="differences: " + ", ".join(f"{v:.4f}" for v in demo.diff))
        rows = []
        for b, n in enumerate(lengths):
            row = {"example": b + 1, "length": n, "h[T-1] (after padding), unit 1": demo.last_index[b, 0],
                   "h[length-1], unit 1": demo.at_length[b, 0], "padding first, unit 1": demo.left_padded[b, 0],
                   "max |difference|": demo.diff[b]}
            if demo.packed is not None:
                row["packed (torch), unit 1"] = demo.packed[b, 0]
            rows.append(row)
        st.dataframe(pd.DataFrame(rows).set_index("example").round(4),
                     width="stretch")
        if demo.packed is not None:
            st.caption(f"Packed torch states equal the length − 1 states to {np.abs(demo.packed - demo.at_length).max():.1e}.")
        st.caption(f"Padding first matches the length − 1 states only approximately (to "
                   f"{np.abs(demo.left_padded - demo.at_length).max():.3f}), because the biases still move the state "
                   "while it reads the leading zeros.")

with tab3:
    rng = np.random.default_rng(1)
    xb = rng.normal(size=(6, 3))
    bi = bidirectional(xb)
    st.markdown("Two cells read the same six inputs, one from the left and one from the right; each position gets "
                "both states side by side, so it sees its past **and** its future. That suits tagging; for a language "
                "model it would be peeking at the answer.")
    c1, c2 = st.columns(2)
    with c1:
        plot(figures.state_heatmap(bi.forward, title="Left to right →", font_scale=fs), f"{P}.fwd", alt="forward states")
    with c2:
        plot(figures.state_heatmap(bi.backward, title="← Right to left", font_scale=fs), f"{P}.bwd", alt="backward states")
    st.caption(f"Concatenated per position: [T, 2H] = {list(bi.concat.shape)}.")
    if st.toggle("Check with torch.nn.RNN(bidirectional=True)", key=f"{P}.torch_bi"):
        st.caption(f"PyTorch on the same weights agrees to {np.abs(torch_bidirectional(xb) - bi.concat).max():.1e}.")

with tab4:
    c1, c2 = st.columns([1, 2], gap="large")
    with c1:
        b1, b2 = st.columns(2)
        b1.button("GRU classifier (notes)", key=f"{P}.preset.gru", width="stretch", on_click=set_state,
                  args=(calc_preset({"task": "classifier", "cell": "gru", "d": GRU_CLASSIFIER["input_size"],
                                     "H": GRU_CLASSIFIER["hidden_size"], "out": GRU_CLASSIFIER["num_classes"],
                                     "vocab": 0, "layers": 1, "bi": False}),),
                  help="A one-layer GRU, H = 128, reading 100-d word vectors, 4 classes.")
        b2.button("RNN language model (notes)", key=f"{P}.preset.lm", width="stretch", on_click=set_state,
                  args=(calc_preset({"task": "lm", "cell": RNN_LM["cell"], "d": RNN_LM["embed_size"],
                                     "H": RNN_LM["hidden_size"], "out": RNN_LM["vocab_size"],
                                     "vocab": RNN_LM["vocab_size"], "layers": 1, "bi": False}),),
                  help="BPE vocabulary of 37,580, embeddings of 256, H = 512.")
        task = st.radio("Task", ["classifier", "lm"], key=f"{P}.task", horizontal=True,
                        format_func={"classifier": "Classifier", "lm": "Language model"}.get,
                        help="A classifier has a small output layer; a language model's output layer is vocabulary-sized.")
        cell = st.radio("Cell", ["rnn", "gru", "lstm"], key=f"{P}.cell", horizontal=True, format_func=str.upper,
                        help="Gate blocks per cell: RNN 1, GRU 3, LSTM 4.")
        d = st.number_input("Input / embedding size d", 1, 100_000, key=f"{P}.d", help="Size of each input vector.")
        H = st.number_input("Hidden size H", 1, 100_000, key=f"{P}.H", help="Units per state.")
        if task == "lm":
            V = st.number_input("Vocabulary size |V|", 1, 10_000_000, key=f"{P}.out",
                                help="Both the embedding table and the softmax layer have one row per token.")
            parts = lm_params(cell, V, d, H, st.number_input("Layers", 1, 8, key=f"{P}.layers"))
        else:
            K = st.number_input("Classes", 1, 10_000_000, key=f"{P}.out", help="Outputs of the final linear layer.")
            emb = st.number_input("Embedding vocabulary (0: vectors come precomputed)", 0, 10_000_000, key=f"{P}.vocab",
                                  help="0 when the inputs are fixed word vectors, as in the notes' GRU example.")
            layers = st.number_input("Layers", 1, 8, key=f"{P}.layers")
            bi_flag = st.toggle("Bidirectional", key=f"{P}.bi", help="Two directions double the cell and the output input.")
            parts = classifier_params(cell, d, H, K, vocab_size=emb, num_layers=layers, bidirectional=bi_flag)
    with c2:
        m1, m2, m3, m4 = st.columns(4)
        m1.metric("Total", f"{parts['total']:,}", millions(parts["total"]), delta_color="off", delta_arrow="off")
        m2.metric("Embedding", f"{parts['embedding']:,}", millions(parts["embedding"]), delta_color="off", delta_arrow="off")
        m3.metric("Recurrent cell", f"{parts['cell']:,}", millions(parts["cell"]), delta_color="off", delta_arrow="off")
        m4.metric("Output layer", f"{parts['output']:,}", millions(parts["output"]), delta_color="off", delta_arrow="off")
        plot(figures.param_breakdown(parts, fs), f"{P}.params", alt=f"total {parts['total']:,} parameters")
        G = {"rnn": 1, "gru": 3, "lstm": 4}[cell]
        st.markdown(f"Per direction and layer the cell holds {G} × (H·d + H·H + 2H): PyTorch keeps two bias "
                    "vectors per gate block. The output layer holds H·outputs + outputs.")
publish(PARAMS)
