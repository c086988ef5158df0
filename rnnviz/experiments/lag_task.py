"""Learning the lag, the task: streams of random symbols whose first one a cell must name k symbols later; the rows
trained (each a registered cell, the LSTM at two forget-gate biases) and their sizes at equal parameter counts (the
training: lag_train.py; the results the pages read: lag_results.py; the command: lag.py)."""
from __future__ import annotations

import numpy as np

from rnnviz.nn.cells import get

TAUGHT_FORGET_BIAS = 1.0  # the gates page's default b_f, the +1 of Jozefowicz et al. 2015 (a test keeps them equal)
ROWS = {  # result key: (registry cell, the forget-gate bias it starts from, or None for a cell without one)
    "rnn": ("rnn", None), "lstm_f0": ("lstm", 0.0), "lstm": ("lstm", TAUGHT_FORGET_BIAS), "gru": ("gru", None),
    "mingru": ("mingru", None), "lru": ("lru", None)}
CELLS = ("rnn", "lstm", "gru")  # the three cells the page compares first (the LSTM at the taught bias): the plain
# cell, then the gated ones the aim is about
SHIPPED = CELLS  # rows whose trained weights (seed 0) ship for the three-cells view


def first_symbol_task(rng: np.random.Generator, batch: int, lag: int, symbols: int,
                      curriculum: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Streams x (batch, lag + 1) of random symbols; `read` (batch,): the index of the step at which each stream is
    asked (its own lag, drawn from 1 .. lag with the curriculum, else `lag`); targets: the first symbol x[:, 0]."""
    read = rng.integers(1, lag + 1, batch) if curriculum else np.full(batch, lag)
    x = rng.integers(0, symbols, (batch, lag + 1))
    return x, read, x[:, 0].copy()


def readout_size(row: str, hidden_size: int, symbols: int) -> int:
    """What the output layer reads: the hidden state, or a cell's own output (the LRU's y, the input's size)."""
    return get(ROWS[row][0]).readout_size(symbols, hidden_size)


def param_count(row: str, hidden_size: int, symbols: int) -> int:
    """One-hot symbols -> cell -> a linear layer to the symbols, as torch counts it (both bias vectors)."""
    r = readout_size(row, hidden_size, symbols)
    return get(ROWS[row][0]).param_count(symbols, hidden_size) + r * symbols + symbols


def equal_sizes(symbols: int, lstm_hidden: int, rows=tuple(ROWS)) -> dict[str, int]:
    """Hidden sizes giving each row the parameter count nearest the LSTM's with `lstm_hidden` units."""
    target = param_count("lstm", lstm_hidden, symbols)
    return {r: min(range(1, 16 * lstm_hidden), key=lambda H: abs(param_count(r, H, symbols) - target)) for r in rows}
