"""The one interface every recurrent cell implements: its step, its exact local Jacobians, its parameters.

A cell is a stateless object registered by name in `rnnviz.nn.cells.REGISTRY` (micrograd's backward beside
forward, makemore's one interface for every variant). Parameters are a dict of float64 arrays, in PyTorch's layout
where torch has the cell (W_ih (G*H, d), W_hh (G*H, H), b_ih, b_hh, gates stacked in torch's order). The state the
Jacobians act on is one vector of `state_size(H)` entries: h for most cells, (h, c) stacked for the LSTM. Everything
that differentiates through time (gradients, connectivity, the hello trainer, how much of x_1 survives) multiplies
`step_jacobians` / `input_jacobians`; nothing else writes a cell's derivative.

Optional, for the cells that also drive a sampler or a hand-written trainer (the three torch has implement them):
`step` (one batched step from the two pre-activation parts), `parts` / `local` / `backward` (the elementwise
partial derivatives of a step, written once in `local`, and the vector-Jacobian product built from them, batched,
which connectivity and the hello trainer use where a full Jacobian per step would cost H times more).
Also here: the helpers every cell shares (`sigmoid`, `prepare`, `initial_state`, `torch_init`) and the plain
array helpers the pages share (`output_layer`, `one_hot`, `spectral_radius`, `singular_values`).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np


@dataclass(frozen=True)
class Presentation:
    """How the pages show a cell: its name, its line on every chart that compares cells, and the heatmaps of its
    gates. The figures and lessons read it from the registered cell (sentences about a cell stay in ui/).

    Attributes:
        label: its name in a legend or within a sentence, e.g. "vanilla RNN", "LSTM".
        color: its line's colour (Okabe-Ito hues); the line is also told apart by its marker and dash.
        marker: its line's plotly marker symbol.
        dash: its line's plotly dash style.
        title: its name heading a panel or starting a sentence, where that differs from the label.
        short: its name on a metric's few characters, where that differs from the label ("vanilla").
        second_color: the colour of its second state's curves (the LSTM's c), if it carries one.
        panels: one step's heatmaps on the gates page, top to bottom: gates, then states.
        lockstep_panels: the same in the three-cell lockstep (the gates it keeps, states).
    """

    label: str
    color: str
    marker: str
    dash: str = "solid"
    title: str = ""
    short: str = ""
    second_color: str | None = None
    panels: tuple[str, ...] = ("h",)
    lockstep_panels: tuple[str, ...] = ("h",)

    @property
    def heading(self) -> str:
        return self.title or self.label

    @property
    def brief(self) -> str:
        return self.short or self.label


class Cell(ABC):
    """A recurrent cell: one step, run over a sequence, and its exact derivatives."""

    name: ClassVar[str]  # registry key, e.g. "lstm"
    gates: ClassVar[tuple[str, ...]] = ()  # stacked blocks of its matrices, in torch's order, e.g. ("i", "f", "g", "o")
    torch_module: ClassVar[str | None] = None  # "RNN" / "LSTM" / "GRU" where torch.nn has the cell, else None
    # added after the interface above (optional: defaults fit a cell whose state is h alone)
    has_cell_state: ClassVar[bool] = False  # carries c beside h (the LSTM): state = (h, c), state_size 2H
    sigmoid_gates: ClassVar[tuple[str, ...]] = ()  # the gates that are sigmoids (0 shut, 1 open), which can saturate
    forget_gate: ClassVar[str | None] = None  # the gate whose bias the forget-bias trick sets (the LSTM's "f")
    parallel: ClassVar[bool] = False  # every step's (a_t, b_t) comes from the inputs alone: a scan can run it
    keep_gate: ClassVar[str | None] = None  # the sigmoid gate that decides how much of the old state is kept
    sums_inputs: ClassVar[bool] = True  # its pre-activation is gi + gh, so a sampler may fold both into one product
    nonlinearities: ClassVar[tuple[str, ...]] = ("tanh",)  # the choices torch offers (torch.nn.RNN: tanh, relu)
    compared: ClassVar[bool] = False  # among the cells the gates and gradients pages set side by side (cells.compared)
    presentation: ClassVar[Presentation]  # its name, colours and panels on the pages

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

    def gradient_factors(self, params: dict[str, np.ndarray], trace: Any) -> dict[str, np.ndarray]:
        """The parts of each step's Jacobian the gradients page draws apart, each (T, ...) by name (none here)."""
        return {}

    def readout_size(self, input_size: int, hidden_size: int) -> int:
        """What a layer on top reads per step: h (hidden_size), or a cell's own output (the LRU's y, input_size)."""
        return hidden_size

    def torch_layer(self, params: dict) -> Any:
        """A trainable torch module running this cell over (B, T, d) inputs to (B, T, readout) features from `params`
        (torch tensors), for a cell torch.nn lacks; torch.nn.<torch_module> is the others'."""
        raise NotImplementedError(f"the {self.name} cell has no torch layer")

    # ---- optional: what a sampler and a hand-written backward pass use ------------------------------------------
    def with_nonlinearity(self, nonlinearity: str) -> "Cell":
        """This cell with another of its `nonlinearities` (torch.nn.RNN's relu); ValueError for one it lacks."""
        if nonlinearity not in self.nonlinearities:
            raise ValueError(f"the {self.name} cell's nonlinearity is one of {', '.join(self.nonlinearities)}, "
                             f"not {nonlinearity!r}")
        return self

    def torch_options(self, nonlinearity: str = "tanh") -> dict:
        """The keyword arguments torch.nn.<torch_module> takes for this choice (torch.nn.RNN's nonlinearity)."""
        self.with_nonlinearity(nonlinearity)
        return {"nonlinearity": nonlinearity} if len(self.nonlinearities) > 1 else {}

    def step(self, gi: np.ndarray, gh: np.ndarray | None, h: np.ndarray, c: np.ndarray | None
             ) -> tuple[np.ndarray, np.ndarray | None, dict[str, np.ndarray]]:
        """One step on any leading batch shape from gi = W_ih x_t + b_ih (..., G*H) and gh = W_hh h_{t-1} + b_hh
        (None when a `sums_inputs` cell's caller has added it into gi); returns h_t, c_t (c passed through by a cell
        without a cell state) and the step's parts (what `local` reads)."""
        raise NotImplementedError(f"the {self.name} cell has no batched step")

    def parts(self, trace: Any) -> dict[str, np.ndarray]:
        """The per-step parts of a trace, keyed as `step` returns them, each (T, ...)."""
        raise NotImplementedError(f"the {self.name} cell has no parts")

    def local(self, parts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The elementwise partial derivatives of a step (any leading shape): the one place they are written."""
        raise NotImplementedError(f"the {self.name} cell has no local derivatives")

    def backward(self, local: dict[str, np.ndarray], dh: np.ndarray, dc: np.ndarray | None = None):
        """Vector-Jacobian product through one step, batched: from dL/dh_t (and dL/dc_t) to (dL/dgi, dL/dgh,
        the part of dL/dh_{t-1} that bypasses W_hh, dL/dc_{t-1}); dL/dh_{t-1} = that part + dL/dgh @ W_hh and
        dL/dx_t = dL/dgi @ W_ih. `local` holds one step of `local(parts)`."""
        raise NotImplementedError(f"the {self.name} cell has no backward step")


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)), written through tanh so it never overflows."""
    return 0.5 * (1.0 + np.tanh(0.5 * np.asarray(x)))


def prepare(x, W_ih, W_hh, b_ih, b_hh, gates: int):
    """Coerce inputs to float64 arrays of the documented shapes and check they agree; returns them and H."""
    W_ih = np.atleast_2d(np.asarray(W_ih, dtype=np.float64))
    W_hh = np.atleast_2d(np.asarray(W_hh, dtype=np.float64))
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:  # a sequence of scalars
        x = x[:, None]
    if x.ndim != 2:
        raise ValueError(f"x must be (T, input_size), got shape {x.shape}")
    GH, d = W_ih.shape
    if GH % gates:
        raise ValueError(f"W_ih has {GH} rows, not a multiple of {gates} gates")
    H = GH // gates
    if W_hh.shape != (GH, H):
        raise ValueError(f"W_hh must be ({GH}, {H}), got {W_hh.shape}")
    if x.shape[1] != d:
        raise ValueError(f"x has {x.shape[1]} features per step but W_ih expects {d}")
    b_ih = np.zeros(GH) if b_ih is None else np.broadcast_to(np.asarray(b_ih, dtype=np.float64), (GH,)).copy()
    b_hh = np.zeros(GH) if b_hh is None else np.broadcast_to(np.asarray(b_hh, dtype=np.float64), (GH,)).copy()
    return x, W_ih, W_hh, b_ih, b_hh, H


def initial_state(s, H: int) -> np.ndarray:
    """A state of H entries: zeros, or `s` broadcast and copied as float64."""
    return np.zeros(H) if s is None else np.broadcast_to(np.asarray(s, dtype=np.float64), (H,)).copy()


def torch_init(gates: int, input_size: int, hidden_size: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """PyTorch's default for its recurrent cells: every weight and bias uniform(-1/sqrt(H), 1/sqrt(H))."""
    k, GH = 1 / np.sqrt(hidden_size), gates * hidden_size
    return {
        "W_ih": rng.uniform(-k, k, (GH, input_size)),
        "W_hh": rng.uniform(-k, k, (GH, hidden_size)),
        "b_ih": rng.uniform(-k, k, GH),
        "b_hh": rng.uniform(-k, k, GH),
    }


def torch_param_count(gates: int, input_size: int, hidden_size: int) -> int:
    """W_ih, W_hh and both bias vectors of a torch cell with `gates` stacked blocks."""
    H = hidden_size
    return gates * (H * input_size + H * H + 2 * H)


def blocks(W: np.ndarray, gates: int) -> list[np.ndarray]:
    """The gate blocks stacked in the rows of W (G*H, n), in order."""
    H = W.shape[0] // gates
    return [W[k * H:(k + 1) * H] for k in range(gates)]


def previous(seq: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The value entering each step: `first`, then seq[:-1] (T, ...)."""
    return np.concatenate([np.asarray(first)[None], seq[:-1]], axis=0)


def output_layer(h: np.ndarray, W_y: np.ndarray, b_y: np.ndarray | None = None) -> np.ndarray:
    """Scores y_t = W_y h_t + b_y for states h (T, H) or (H,); W_y is (K, H)."""
    W_y = np.atleast_2d(np.asarray(W_y, dtype=np.float64))
    y = np.asarray(h, dtype=np.float64) @ W_y.T
    return y if b_y is None else y + np.asarray(b_y, dtype=np.float64)


def one_hot(ids, size: int) -> np.ndarray:
    """Rows of the identity: ids (T,) -> (T, size)."""
    return np.eye(size)[np.asarray(ids, dtype=int)]


def spectral_radius(W: np.ndarray) -> float:
    """Largest |eigenvalue| of a square matrix."""
    return float(np.max(np.abs(np.linalg.eigvals(np.atleast_2d(W))))) if np.size(W) else 0.0


def singular_values(W: np.ndarray) -> np.ndarray:
    """Singular values, largest first."""
    return np.linalg.svd(np.atleast_2d(W), compute_uv=False)
