"""The notes' worked examples, as named presets the pages and tests share."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScalarPreset:
    """A one-unit RNN setup: h_t = tanh(w_x x_t + w_h h_{t-1} + b) (its name and sentence: ui/lessons/scalar.py).

    Attributes:
        w_x: the input weight.
        w_h: the recurrent weight.
        b: the bias.
        h0: the state before the first step.
        x: the inputs x_1..x_T.
    """

    w_x: float
    w_h: float
    b: float
    h0: float
    x: tuple[float, ...]


SCALAR_PRESETS: dict[str, ScalarPreset] = {
    "fade": ScalarPreset(1.0, 0.5, 0.0, 0.0, (1, 0, 0)),
    "flood": ScalarPreset(1.0, 2.0, 0.0, 0.0, (1, 0, 0)),
    "rewrite": ScalarPreset(1.0, 0.5, 0.0, 0.0, (1, 0, 1)),
    "silence": ScalarPreset(1.0, 0.5, 0.0, 0.0, (1,) + (0,) * 10),
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
