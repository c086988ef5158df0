"""The notes' worked examples, as named presets the pages and tests share."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScalarPreset:
    """A one-unit RNN setup: h_t = tanh(w_x x_t + w_h h_{t-1} + b)."""

    label: str
    w_x: float
    w_h: float
    b: float
    h0: float
    x: tuple[float, ...]
    lesson: str  # what a student should see, one sentence


SCALAR_PRESETS: dict[str, ScalarPreset] = {
    "fade": ScalarPreset("Fade", 1.0, 0.5, 0.0, 0.0, (1, 0, 0),
                         "w_h = 0.5, x = 1, 0, 0. One input, then silence: each step halves what is left and tanh trims it further."),
    "flood": ScalarPreset("Flood", 1.0, 2.0, 0.0, 0.0, (1, 0, 0),
                          "w_h = 2, x = 1, 0, 0. The same input grows step by step until tanh pins it near 1."),
    "rewrite": ScalarPreset("Rewrite", 1.0, 0.5, 0.0, 0.0, (1, 0, 1),
                            "x = 1, 0, 1. The middle zero only fades the state; the third input writes over what remains."),
    "silence": ScalarPreset("Silence", 1.0, 0.5, 0.0, 0.0, (1,) + (0,) * 10,
                            "x = 1 then ten zeros. After ten quiet steps the first input has all but vanished from h."),
}

DEFAULT_SCALAR = "fade"

# The sampling example: scores over the vocabulary of "hello" (h, e, l, o), and the probabilities the notes print
# for them (quoted from the notes, two decimals; the page computes its own).
SOFTMAX_WORD = "hello"
SOFTMAX_SCORES = (1.0, 2.2, -3.0, 4.1)
NOTES_SOFTMAX_PRINTED = (0.03, 0.13, 0.00, 0.84)

# Parameter-count examples: a GRU classifier on 100-d word vectors, and a BPE-vocabulary RNN LM.
GRU_CLASSIFIER = {"cell": "gru", "input_size": 100, "hidden_size": 128, "num_classes": 4}
RNN_LM = {"cell": "rnn", "vocab_size": 37_580, "embed_size": 256, "hidden_size": 512}
