"""The one interface every recurrent cell implements: its step, its exact local Jacobians, its parameters.

A cell is a stateless object registered by name in `rnnviz.nn.cells.REGISTRY` (micrograd's backward beside
forward, makemore's one interface for every variant). Parameters are a dict of float64 arrays, in PyTorch's layout
where torch has the cell (W_ih (G*H, d), W_hh (G*H, H), b_ih, b_hh, gates stacked in torch's order). The state the
Jacobians act on is one vector of `state_size(H)` entries: h for most cells, (h, c) stacked for the LSTM. Everything
that differentiates through time (gradients, connectivity, the hello trainer, how much of x_1 survives) multiplies
`step_jacobians` / `input_jacobians`; nothing else writes a cell's derivative.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np


class Cell(ABC):
    """A recurrent cell: one step, run over a sequence, and its exact derivatives."""

    name: ClassVar[str]  # registry key, e.g. "lstm"
    gates: ClassVar[tuple[str, ...]] = ()  # stacked blocks of its matrices, in torch's order, e.g. ("i", "f", "g", "o")
    torch_module: ClassVar[str | None] = None  # "RNN" / "LSTM" / "GRU" where torch.nn has the cell, else None

    def state_size(self, hidden_size: int) -> int:
        """Entries of the state the Jacobians act on (2H for a cell that carries c beside h)."""
        return hidden_size

    @abstractmethod
    def init(self, input_size: int, hidden_size: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """Fresh parameters (PyTorch's default initialisation where torch has the cell)."""

    @abstractmethod
    def param_count(self, input_size: int, hidden_size: int) -> int:
        """Trainable numbers in one layer, as torch counts them (both bias vectors where torch has two)."""

    @abstractmethod
    def forward(self, params: dict[str, np.ndarray], x: np.ndarray, state0: np.ndarray | None = None) -> Any:
        """Run over x (T, d) from state0 (state_size,) or zeros; returns a trace with at least `x` (T, d),
        `h` (T, H) and `states` (T, state_size), every intermediate the page shows kept per step."""

    @abstractmethod
    def step_jacobians(self, params: dict[str, np.ndarray], trace: Any) -> np.ndarray:
        """d state_s / d state_{s-1} for s = 1..T, exact: (T, n, n), n = state_size."""

    @abstractmethod
    def input_jacobians(self, params: dict[str, np.ndarray], trace: Any) -> np.ndarray:
        """d state_s / d x_s for s = 1..T, exact: (T, n, d)."""
