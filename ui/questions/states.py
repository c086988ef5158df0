"""Using the states: how many parameters the page's network has."""
from __future__ import annotations

from rnnviz.rooms import questions as Q
from ui.lessons import states as states_words
from ui.questions.base import Made


def parameters(s: dict, lm=None) -> Made:
    a = Q.parameter_count(s["task"], s["cell"], s["d"], s["H"], s["V"], s["K"], s["emb"], s["L"], s["bi"])
    what = (f"a language model over V = {s['V']:,} tokens, embeddings of {s['d']}" if s["task"] == "lm" else
            f"a classifier of {s['d']}-d inputs into K = {s['K']} classes")
    cell = states_words.CELL_LABELS[s["cell"]]
    return Made(f"A {s['L']}-layer {'bidirectional ' if s['bi'] else ''}{cell} with H = {s['H']}, "
                f"{what}. How many parameters does it have? (within 10 % counts as right)", (), a,
                f"{int(a.truth):,} parameters")
