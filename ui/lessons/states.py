"""The states page's words, widget keys, link parameters and the calculator's presets (its numbers are
rnnviz/lessons/states.py): what each demo shows, its tables, and how the parameter counts are made up."""
from __future__ import annotations

import numpy as np
import pandas as pd

from rnnviz.lessons.presets import GRU_CLASSIFIER, RNN_LM
from rnnviz.lessons.states import EXACT, Heads, PaddingDemo
from rnnviz.nn.cells import GATES
from rnnviz.text import fmt
from ui.controls import Control, Controls

P = "states"
DEFAULT_LENGTHS = [5, 3, 2]  # the padding demo's batch when the typed lengths do not parse
VIEWS = {"heads": "Classifier vs language model", "padding": "The padding trap", "bi": "Bidirectional",
         "params": "Parameter counts"}
# Each head keeps its own output size: a language model's vocabulary, a classifier's classes and (optional)
# embedding vocabulary are separate settings, so switching heads never turns 37,580 tokens into 37,580 classes.
CALC_DEFAULTS = {"task": "lm", "cell": RNN_LM["cell"], "d": RNN_LM["embed_size"], "H": RNN_LM["hidden_size"],
                 "V": RNN_LM["vocab_size"], "K": GRU_CLASSIFIER["num_classes"], "emb": 0, "layers": 1, "bi": False}
CALC_PRESETS = {
    "gru": {"task": "classifier", "cell": GRU_CLASSIFIER["cell"], "d": GRU_CLASSIFIER["input_size"],
            "H": GRU_CLASSIFIER["hidden_size"], "K": GRU_CLASSIFIER["num_classes"], "emb": 0, "layers": 1, "bi": False},
    "lm": {"task": "lm", "cell": RNN_LM["cell"], "d": RNN_LM["embed_size"], "H": RNN_LM["hidden_size"],
           "V": RNN_LM["vocab_size"], "layers": 1},
}

# The calculator's cells: the gated cells of 2015 and the linear recurrences of the recurrences page
CELL_LABELS = {"rnn": "RNN", "gru": "GRU", "lstm": "LSTM", "linear": "linear", "mingru": "minGRU",
               "minlstm": "minLSTM", "lru": "LRU"}
NEW_FORMULAS = {  # how one layer of each linear recurrence is counted (its param_count, in words)
    "linear": "H·d + H: the input matrix B (H·d) and one decay a per unit (H); nothing multiplies the state but a",
    "mingru": "2 × (H·d + H): the gate z and the candidate h̃ each read only the input (H·d weights and H biases); "
              "no weight reads h₍ₜ₋₁₎",
    "minlstm": "3 × (H·d + H): the forget and input gates and the candidate, each from the input alone",
    "lru": "4·H·d + 3H + d: B and C in complex numbers (2·H·d each), ν, θ and γ per unit (3H) and the skip D (d)",
}

D = CALC_DEFAULTS
CONTROLS = Controls(
    P,
    Control("view", "Show", "heads", kind="segmented", options=tuple(VIEWS), url="view",
            help="Each view has its own link: the address bar keeps the one you are on.",
            widget_kw={"required": True, "format_func": VIEWS.get}),
    Control("lengths", "Sequence lengths in the batch", "5, 3, 2", kind="text", url="len", max_chars=200,
            help="Each sequence is padded with zero vectors up to the longest one."),
    Control("torch_pad", "Check with PyTorch", False, kind="toggle", url="torch",
            help="Also run torch's pack_padded_sequence on the same weights and compare."),
    Control("torch_bi", "Check with torch.nn.RNN(bidirectional=True)", False, kind="toggle", url="torchbi"),
    # the calculator (CALC_DEFAULTS' settings, in its order)
    Control("task", "Task", D["task"], kind="radio", options=("classifier", "lm"), url="task",
            help="A classifier has a small output layer; a language model's is vocabulary-sized.",
            widget_kw={"horizontal": True, "format_func": {"classifier": "Classifier", "lm": "Language model"}.get}),
    Control("cell", "Cell", D["cell"], kind="radio", options=tuple(CELL_LABELS), url="cell",
            help="Gate blocks per cell: RNN 1, GRU 3, LSTM 4; the linear recurrences of the recurrences page read the "
                 "state through a alone.",
            widget_kw={"horizontal": True, "format_func": CELL_LABELS.get}),
    Control("d", "Input / embedding size d", D["d"], kind="number", lo=1, hi=100_000, url="d",
            help="Size of each input vector."),
    Control("H", "Hidden size H", D["H"], kind="number", lo=1, hi=100_000, url="H", help="Units per state."),
    Control("V", "Vocabulary size |V|", D["V"], kind="number", lo=1, hi=10_000_000, url="V",
            help="Both the embedding table and the softmax layer have one row per token."),  # the language model's
    Control("K", "Classes C", D["K"], kind="number", lo=1, hi=10_000_000, url="K",
            help="Outputs of the final linear layer."),  # the classifier's
    Control("emb", "Embedding vocabulary (0: vectors come precomputed)", D["emb"], kind="number", lo=0, hi=10_000_000,
            url="emb", help="0 when the inputs are fixed word vectors, as in the notes' GRU example."),
    Control("layers", "Layers", D["layers"], kind="number", lo=1, hi=8, url="L",
            help="Stacked cells; each reads the states below."),
    Control("bi", "Bidirectional", D["bi"], kind="toggle", url="bi",
            help="Two directions double the cell and the output's input."),
)
PADDING = CONTROLS.params_of("lengths", "torch_pad")  # what each view publishes (it reruns on its own)
BIDIR = CONTROLS.params_of("torch_bi")
CALC = CONTROLS.params_of(*CALC_DEFAULTS)
PARAMS = CONTROLS.params
PRESET_LABELS = {  # button label, what it sets
    "gru": ("GRU classifier (notes)", f"A one-layer GRU, H = {GRU_CLASSIFIER['hidden_size']}, reading "
            f"{GRU_CLASSIFIER['input_size']}-d word vectors, {GRU_CLASSIFIER['num_classes']} classes."),
    "lm": ("RNN language model (notes)", f"A BPE vocabulary of {RNN_LM['vocab_size']:,}, embeddings of "
           f"{RNN_LM['embed_size']}, H = {RNN_LM['hidden_size']}."),
}


def formula_text(cell: str, task: str) -> str:
    """How the counts are made up (markdown), with the cell's gate-block count."""
    if task == "lm":
        rest = "The output layer holds H·|V| + |V| and the embedding table |V|·d (|V|: the vocabulary size)."
    else:
        rest = ("The output layer holds H·C + C (C: the number of classes; 2H·C + C when bidirectional), and an "
                "embedding table, if any, its vocabulary × d.")
    if cell not in GATES:
        return f"Per direction and layer the {CELL_LABELS[cell]} cell holds {NEW_FORMULAS[cell]}. {rest}"
    G = GATES[cell]
    blocks = f"{G} gate block{'s' if G > 1 else ''}"
    return (f"Per direction and layer the {cell.upper()} cell holds {G} × (H·d + H·H + 2H): {blocks}, each with "
            f"weights for the input (H·d) and the state (H·H) and two bias vectors, as PyTorch keeps them (d: the "
            f"input size, H: the hidden size). {rest}")


def padding_text(demo: PaddingDemo) -> str:
    """What the padding demo shows, in words (markdown); every claim follows from the numbers computed."""
    worst, left = float(demo.diff.max()), float(np.abs(demo.left_padded - demo.at_length).max())
    if worst < EXACT:
        return ("No sequence here is shorter than the longest, so nothing is padded and the state at index T − 1 is "
                "already the right one. Give lengths that differ, e.g. 5, 3, 2, to see the trap.")
    text = ("Padding fills the short sequences with zero vectors at the end, so **the state at index T − 1 is the "
            f"state after the padding**, here off by up to **{fmt(worst)}**. Two fixes give exactly the state after "
            "the last real token: read index length − 1 for each example, or pack the batch so the recurrence stops at "
            "each true length (PyTorch's `pack_padded_sequence`; switch on the check to run it). ")
    if left < EXACT:
        return text + "A third, putting the padding first, agrees with them here."
    return text + (f"A third, putting the padding first, only comes close (within **{fmt(left)}**): while the cell "
                   "reads the leading zeros, its biases still move the state away from h₀ = 0, so the real tokens "
                   "start from a slightly different state.")


GAP_UNIT = r"this unit's $\lvert h_{T-1} - h_{\mathrm{length}-1} \rvert$"  # the words first: no line opens with a comma
GAP_ALL = "largest over all {H} units (the chart)"


def padding_table(demo: PaddingDemo, unit: int = 0) -> pd.DataFrame:
    """One row per example: unit `unit` of each way of reading the last state, that unit's difference, and the
    largest difference over all units (the chart's), each labelled for what it is."""
    cols = {"length": demo.lengths, r"$h_{T-1}$, after the padding": demo.last_index[:, unit],
            r"$h_{\mathrm{length}-1}$": demo.at_length[:, unit], "padding first": demo.left_padded[:, unit]}
    if demo.packed is not None:
        cols["packed (PyTorch)"] = demo.packed[:, unit]
    cols[GAP_UNIT] = np.abs(demo.last_index[:, unit] - demo.at_length[:, unit])
    cols[GAP_ALL.format(H=demo.states.shape[2])] = demo.diff
    df = pd.DataFrame(cols, index=[f"example {b + 1}" for b in range(len(demo.lengths))])
    return df.round(4)


def padding_caption(demo: PaddingDemo, unit: int = 0) -> str:
    return (f"Unit {unit + 1} of H = {demo.states.shape[2]} units shown, with its own difference; the last column "
            "and the chart take the largest difference over all units. Untrained random weights (seed 0).")



def heads_text(demo: Heads) -> str:
    """What the demo batch is, every symbol named (markdown)."""
    (B, T, d), H, C, V = demo.x.shape, demo.states.shape[2], demo.classifier.shape[1], demo.lm.shape[2]
    return (f"A batch of **B = {B}** sequences of **T = {T}** steps, each step a vector of input size **d = {d}**, "
            f"read by a cell of **H = {H}** units; the classifier picks one of **C = {C}** classes, the language model "
            f"one of **|V| = {V}** tokens. *Untrained:* every weight is random, so the probabilities below are "
            "arbitrary; what matters is their shapes.")


BIDIRECTIONAL_TEXT = ("Two cells read the same six inputs, one from the left and one from the right; each position "
                      "gets both states side by side, so it sees its past **and** its future. That suits tagging; for "
                      "a language model it would be peeking at the answer. *Untrained:* both cells have random "
                      "weights.")



def classifier_table(demo: Heads) -> pd.DataFrame:
    """The classifier's distribution per sequence, written by fmt (a frame of numbers rounded to 3 decimals showed
    them as 0.3050: a fourth digit that was never computed)."""
    B, C = demo.classifier.shape
    return pd.DataFrame(demo.classifier, columns=[f"class {k + 1}" for k in range(C)],
                        index=[f"sequence {b + 1}" for b in range(B)]).map(fmt)


def shapes_text(demo: Heads) -> str:
    """The shapes line (markdown with the notes' colours): inputs -> states -> either head."""
    return (f":green[inputs [B, T, d] = {list(demo.x.shape)}] → :blue[states [B, T, H] = {list(demo.states.shape)}] → "
            f":red[classifier: last state only, [B, C] = {list(demo.classifier.shape)}] "
            f"or :red[language model: every state, [B, T, |V|] = {list(demo.lm.shape)}]")
