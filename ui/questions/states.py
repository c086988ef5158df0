"""Using the states: how many parameters the page's network has."""
from __future__ import annotations

from rnnviz.lessons.states import parse_lengths
from rnnviz.rooms import questions as Q
from rnnviz.text import fmt, sub
from ui.lessons import states as states_words
from ui.questions.base import Made


def parameters(s: dict, lm=None) -> Made:
    a = Q.parameter_count(s["task"], s["cell"], s["d"], s["H"], s["V"], s["K"], s["emb"], s["L"], s["bi"])
    what = (f"a language model over V = {s['V']:,} tokens, embeddings of {s['d']}" if s["task"] == "lm" else
            f"a classifier of {s['d']}-d inputs into K = {s['K']} classes")
    cell = states_words.CELL_LABELS[s["cell"]]
    return Made(f"A {s['L']}-layer {'bidirectional ' if s['bi'] else ''}{cell} with H = {s['H']}, "
                f"{what}. How many parameters does it have? (within 10 % counts as right)", (), a,
                f"{int(a.truth):,} parameters",
                "Count W_x, W_h and the biases per gate, per layer and per direction, then the embedding and the "
                "output layer; the length of the sequence never enters.")


def output_share(s: dict, lm=None) -> Made:
    a = Q.output_share(s["task"], s["cell"], s["d"], s["H"], s["V"], s["K"], s["emb"], s["L"], s["bi"])
    what = (f"a language model over V = {s['V']:,} tokens" if s["task"] == "lm" else
            f"a classifier into K = {s['K']} classes")
    return Made(f"A {states_words.CELL_LABELS[s['cell']]} with H = {s['H']}, {what}. What share of its parameters "
                f"sit in the output layer? (between 0 and 1)", (), a,
                f"{fmt(a.truth)} ({int(a.facts[0]):,} of {int(a.facts[1]):,})",
                "The output layer holds (H + 1)·V numbers: over a large vocabulary it outweighs the recurrent cell, "
                "two thirds of the notes' 29.3 M-parameter language model.")


PADDED = {"real": "the state after its last real token", "padded": "the state after the padding",
          "mean": "the average of its states"}


def padded(s: dict, lm=None) -> Made | None:
    try:
        lengths = parse_lengths(s["len"])
    except ValueError:
        return None
    a = Q.padded_last_state(lengths)
    if a is None:
        return None
    short, T = int(a.facts[0]), int(a.facts[1])
    return Made(f"A batch of sequences of lengths {', '.join(map(str, lengths))} is padded at the end to {T} and run "
                f"through an RNN; the classifier reads out[:, -1]. For the sequence of length {short}, which state "
                f"is that?", tuple(PADDED[o] for o in a.options), a,
                f"{PADDED['padded']}: h{sub(T)}, not h{sub(short)}",
                "The recurrence keeps stepping through the padding tokens, so the last index holds the state after "
                "them; read index length − 1, pad at the start, or pack the batch.")
