"""A loaded character model that runs in NumPy: one character at a time, every state kept if asked.

The cell equations are `rnnviz.nn.cells`'; speed comes from what is precomputed around them: the first
layer's input projection per character (a table lookup) and, for deeper layers, one stacked matrix.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from rnnviz.charlm.checkpoint import (
    LOCAL_LIMITS,
    UPLOAD_LIMITS,
    CheckpointError,
    Limits,
    card_path,
    check_tensors,
    cost_per_char,
    param_count,
    parse_card,
    read_tensors,
    validate_card,
)
from rnnviz.nn import cells
from rnnviz.nn.sampling import SamplingSettings, softmax

TABLE_MAX_FLOATS = 2**22  # the first layer's input table (V, G*H) is precomputed only up to this size (16 MB)...
TABLE_MAX_MADDS = 2**28  # ...and this much work; otherwise that projection is done per step


@dataclass(frozen=True)
class Clamp:
    """One unit held at a value in every step: after layer `layer` steps, its `kind` state ("h", or "c" of a cell
    with a cell state) has unit `unit` set to `value` before anything reads it (the layer above, the next step, the
    head), like a forward hook on that layer that overwrites the unit in its output. An intervention: what the model
    does without that unit's own value.

    Attributes:
        layer: the layer, from 0.
        kind: "h" (hidden state) or "c" (cell state).
        unit: the unit within the layer, from 0.
        value: what the unit is set to at every step.
    """

    layer: int
    kind: str
    unit: int
    value: float

    def check(self, lm: "CharLM") -> None:
        """ValueError naming what does not fit `lm` (a layer or unit it lacks, c without a cell state, not finite)."""
        if not (0 <= self.layer < lm.num_layers and 0 <= self.unit < lm.hidden_size and math.isfinite(self.value)
                and self.kind in ("h", "c") and (self.kind == "h" or lm.cell_type.has_cell_state)):
            raise ValueError(f"no unit {self.kind}[{self.layer}][{self.unit}] = {self.value} to clamp in this model")


@dataclass(eq=False)
class Trace:
    """What happened at each step of a run: the characters read, the states, the probabilities.

    Step t reads text[t]. Distributions are not stored: `probs_at(t)` (the model's next-character
    distribution after step t, temperature 1) and `sampled_at(k)` (what the k-th generated character was
    drawn from) recompute them from the kept state in O(V H); `p_char` holds the one number per character a
    shaded text needs. `probs` and `sampled_probs` build every distribution at once (float32), for callers
    that want them all.

    Attributes:
        text: the characters read, in order (prime then generated); the start text is not included.
        h: (T, L, H) float32 hidden state of every layer after each step.
        c: (T, L, H) float32 cell state (LSTM only); None for other cells.
        generated_from: index in text where generation began (len(prime)).
        p_char: (T,) float32 p(text[i] | what precedes it) at temperature 1; NaN at i = 0.
        settings: how the generated characters were drawn (for sampled_at).
        head: the model's output layer (W_y, b_y), shared with the model, not copied.
    """

    text: str
    h: np.ndarray
    c: np.ndarray | None
    generated_from: int = 0
    p_char: np.ndarray | None = None
    settings: SamplingSettings | None = None
    head: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def logits_at(self, t: int) -> np.ndarray:
        """The next-character scores after step t, (V,) float32."""
        W_y, b_y = self.head
        return W_y @ self.h[t, -1] + b_y

    def probs_at(self, t: int) -> np.ndarray:
        """The model's next-character distribution after step t, temperature 1: (V,) float32."""
        return softmax(self.logits_at(t)).astype(np.float32)

    def sampled_at(self, k: int) -> np.ndarray:
        """The distribution the k-th generated character was drawn from (temperature, top-k, top-p applied)."""
        return self.settings.distribution(self.logits_at(self.generated_from - 1 + k)).astype(np.float32)

    @cached_property
    def probs(self) -> np.ndarray:
        """(T, V) float32: every step's next-character distribution, temperature 1 (built on first use)."""
        W_y, b_y = self.head
        out = np.empty((len(self.h), len(b_y)), dtype=np.float32)
        for a in range(0, len(self.h), 256):
            out[a:a + 256] = softmax(self.h[a:a + 256, -1] @ W_y.T + b_y)
        return out

    @cached_property
    def sampled_probs(self) -> list[np.ndarray]:
        """The distribution each generated character was drawn from (built on first use)."""
        if len(self.h) == 0:
            return []
        return [self.sampled_at(k) for k in range(len(self.text) - self.generated_from)]


class CharLM:
    """A loaded character model that runs in NumPy; read-only after construction.

    **Start state.** Every run (`draw`, `generate`, `run`, `loss`) starts from zeros, reads a start
    text, then reads its own text. The start text is `start` when given, else the model's `warmup` (a line
    break: as if the text opened a new line; a model trained with its state carried across chunks has rarely
    seen a cold zero state, and from one it can babble). `start=""` starts from the zero state itself, as the
    card's `val_loss` is measured (`loss(val_text, start="")`, and `rnnviz.evaluate`). So `run(text).probs`,
    `loss(text)` and a plain torch model that reads `warmup + text` from zeros agree.

    `cost_per_char` is the multiply-adds of one step (see `checkpoint.cost_per_char`): the work of one sampled
    character, for callers that scale a budget by the model's size."""

    def __init__(self, tensors: dict[str, np.ndarray], card: dict, warmup: str = "\n"):
        validate_card(card)
        check_tensors(tensors, card)
        self.card = card
        self.itos: list[str] = list(card["itos"])
        self.stoi = {ch: i for i, ch in enumerate(self.itos)}
        self.cell: str = card["cell"]  # the registry's name
        self.nonlinearity: str = card.get("nonlinearity", "tanh")
        self.cell_type: cells.Cell = cells.get(self.cell).with_nonlinearity(self.nonlinearity)  # its step
        self.num_layers: int = card["num_layers"]
        self.hidden_size: int = card["hidden_size"]
        self.embed_size: int = card["embed_size"]
        self.vocab_size = len(self.itos)
        sizes = dict(cell=self.cell, vocab_size=self.vocab_size, embed_size=self.embed_size,
                     hidden_size=self.hidden_size, num_layers=self.num_layers)
        self.cost_per_char: int = cost_per_char(**sizes)
        self.param_count: int = param_count(**sizes)
        self.warmup = "".join(ch for ch in warmup if ch in self.stoi)
        L, H, GH = self.num_layers, self.hidden_size, len(self.cell_type.gates) * self.hidden_size
        tensors = {k: np.asarray(v, dtype=np.float32) for k, v in tensors.items()}
        # deeper layers read [input, h] through one stacked matrix: one mat-vec instead of two; W_ih and W_hh
        # of those layers become views of it (no second copy)
        self.W_stack = [None]
        for k in range(1, L):
            W = np.ascontiguousarray(np.concatenate([tensors[f"rnn.weight_ih_l{k}"], tensors[f"rnn.weight_hh_l{k}"]],
                                                    axis=1))
            self.W_stack.append(W)  # (G*H, 2H)
            tensors[f"rnn.weight_ih_l{k}"], tensors[f"rnn.weight_hh_l{k}"] = W[:, :H], W[:, H:]
        self.tensors = tensors
        self.W_ih = [tensors[f"rnn.weight_ih_l{k}"] for k in range(L)]
        self.W_hh = [tensors[f"rnn.weight_hh_l{k}"] for k in range(L)]
        self.b_ih = [tensors[f"rnn.bias_ih_l{k}"] for k in range(L)]
        self.b_hh = [tensors[f"rnn.bias_hh_l{k}"] for k in range(L)]
        self.embed = tensors["embed.weight"]
        self.W_y, self.b_y = tensors["head.weight"], tensors["head.bias"]
        self.b_stack = [None] + [self.b_ih[k] + self.b_hh[k] for k in range(1, L)]  # (G*H,)
        # the first layer's input contribution depends only on the character: precompute it when that is cheap
        V, E = self.vocab_size, self.embed_size
        self.table = (self.embed @ self.W_ih[0].T + self.b_ih[0]
                      if V * GH <= TABLE_MAX_FLOATS and V * E * GH <= TABLE_MAX_MADDS else None)  # (V, G*H)
        table = [self.table] if self.table is not None else []
        for a in (*tensors.values(), *self.W_stack[1:], *self.b_stack[1:], *table):
            a.setflags(write=False)  # shared across sessions: nothing may change it

    # ---- one step -------------------------------------------------------------------------
    def zero_state(self) -> tuple[np.ndarray, np.ndarray]:
        """h and c for every layer, all zeros: (L, H) each."""
        z = np.zeros((self.num_layers, self.hidden_size), dtype=np.float32)
        return z, z.copy()

    def _input0(self, idx: int) -> np.ndarray:
        """W_ih x + b_ih for the first layer, x the embedding of character `idx`."""
        return self.table[idx] if self.table is not None else self.W_ih[0] @ self.embed[idx] + self.b_ih[0]

    def layer_step(self, k: int, x, h: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict]:
        """Layer k's step: `x` is the character id (k = 0) or the layer below's new state (H,); h and c are this
        layer's (H,). Returns its new h and c and the cell's step parts (its gates among them, `Cell.step`)."""
        kind = self.cell_type
        if kind.sums_inputs:  # one pre-activation: the table (or one stacked mat-vec) and the recurrent product
            gh = None
            if k == 0:
                gi = self._input0(x) + self.W_hh[0] @ h + self.b_hh[0]  # (G*H,)
            else:
                gi = self.W_stack[k] @ np.concatenate([x, h]) + self.b_stack[k]  # (G*H,)
        else:
            gi = self._input0(x) if k == 0 else self.W_ih[k] @ x + self.b_ih[k]  # (G*H,)
            gh = self.W_hh[k] @ h + self.b_hh[k]  # (G*H,)
        return kind.step(gi, gh, h, c)

    def step(self, idx: int, h: np.ndarray, c: np.ndarray, clamp: Clamp | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Read one character id; return the next-character logits and the new (h, c), with `clamp`'s unit held."""
        h, c = h.copy(), c.copy()
        inp = idx
        for k in range(self.num_layers):
            h[k], c_k, _ = self.layer_step(k, inp, h[k], c[k])
            c[k] = c_k
            if clamp is not None and clamp.layer == k:  # before the layer above, the next step or the head read it
                (h if clamp.kind == "h" else c)[k, clamp.unit] = clamp.value
            inp = h[k]
        return self.W_y @ inp + self.b_y, h, c

    # ---- text in, text out -----------------------------------------------------------------
    def encode(self, text: str) -> list[int]:
        """Character ids; characters outside the vocabulary raise ValueError naming them."""
        unknown = sorted({ch for ch in text if ch not in self.stoi})
        if unknown:
            more = f" and {len(unknown) - 20} more" if len(unknown) > 20 else ""
            shown = ", ".join(repr(ch) for ch in unknown[:20]) + more
            raise ValueError(f"not in the model's vocabulary: {shown}")
        return [self.stoi[ch] for ch in text]

    def start_state(self, start: str | None = None, clamp: Clamp | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(h, c) after reading `start` (default: `warmup`) from zeros; see the class docstring."""
        h, c = self.zero_state()
        with threadpool_limits(1):
            for idx in self.encode(self.warmup if start is None else start):
                _, h, c = self.step(idx, h, c, clamp)
        return h, c

    def generate(self, prime: str, length: int, *, temperature: float = 1.0, top_k: int | None = None,
                 top_p: float | None = None, seed: int | None = None, start: str | None = None) -> str:
        """Exactly `length` new characters after `prime` (`draw` with these settings; a notebook's one line); the same
        seed gives the same text.

        `start` is what the model reads from its zero state before `prime` (see the class docstring): None reads
        the model's `warmup` (a line break, where the vocabulary has one); `start=""` starts from zeros, so the
        probabilities match a plain torch run of `prime` + the text from a zero state (to about 1e-6)."""
        trace = self.draw(SamplingSettings(prime, length, temperature, top_k, top_p, seed), keep_states=False,
                          start=start)
        return trace.text[trace.generated_from:]

    def draw(self, settings: SamplingSettings, *, keep_states: bool = True, on_progress=None,
             progress_every: int = 50, start: str | None = None, clamp: Clamp | None = None) -> Trace:
        """Read `settings.prime`, then write `settings.length` characters, each drawn from
        `settings.distribution` of the scores (by inverse CDF from one uniform number per character; the most likely
        when greedy), recording each step; a character `settings.forced` puts at a generated position replaces the
        draw there (the run continues from it). `on_progress(text_so_far)` is called every `progress_every`
        generated characters. `clamp` holds one unit at a value in every step, the start text's included (None: the
        model as it is)."""
        settings.check()
        prime, length = settings.prime, settings.length
        ids = self.encode(prime)
        if clamp is not None:
            clamp.check(self)
        forced_ids = {pos: self.encode(ch)[0] for pos, ch in settings.forced}
        rng = np.random.default_rng(settings.seed)
        h, c = self.start_state(start, clamp)
        T, L, H = len(ids) + length, self.num_layers, self.hidden_size
        n = T if keep_states else 0
        hs = np.empty((n, L, H), dtype=np.float32)
        cs = np.empty((n, L, H), dtype=np.float32) if self.cell_type.has_cell_state else None
        p_char = np.full(n, np.nan, dtype=np.float32)
        text = list(prime)
        t = 0

        def read(idx: int):
            nonlocal h, c, t
            logits, h, c = self.step(idx, h, c, clamp)
            if keep_states:
                if t > 0:  # the probability the previous step gave this character
                    p_char[t] = math.exp(float(prev[idx]) - prev_lse)
                hs[t] = h
                if cs is not None:
                    cs[t] = c
            t += 1
            return logits

        prev, prev_lse = None, 0.0
        with threadpool_limits(1):  # small mat-vecs run fastest on one thread
            for idx in ids:
                logits = read(idx)
                if keep_states:
                    prev, prev_lse = logits, _logsumexp(logits)
            for pos in range(length):
                p = settings.distribution(logits)
                u = rng.random()  # drawn at forced positions too, so a branch leaves the later draws as they were
                if pos in forced_ids:
                    idx = forced_ids[pos]
                elif settings.greedy:
                    idx = int(np.argmax(p))
                else:  # inverse-CDF draw: one uniform number per character
                    idx = min(int(np.searchsorted(np.cumsum(p), u * p.sum(), side="right")), len(p) - 1)
                text.append(self.itos[idx])
                if on_progress is not None and (pos + 1) % progress_every == 0:
                    on_progress("".join(text))
                logits = read(idx)
                if keep_states:
                    prev, prev_lse = logits, _logsumexp(logits)
        return Trace("".join(text), hs, cs, len(prime), p_char, settings, (self.W_y, self.b_y))

    def run(self, text: str, start: str | None = None, clamp: Clamp | None = None) -> Trace:
        """Read `text` (teacher forcing), recording the states after each character (from `start`'s state), with
        `clamp`'s unit held if one is given."""
        return self.draw(SamplingSettings(text, 0), start=start, clamp=clamp)

    def loss(self, text: str, start: str | None = None) -> float:
        """Mean negative log-likelihood in nats/char of `text[1:]`, each character given what precedes it, read
        after `start` (default `warmup`). `loss(text, start="")` starts from zeros, like the card's val_loss."""
        ids = self.encode(text)
        h, c = self.start_state(start)
        total = 0.0
        with threadpool_limits(1):
            for a, b in zip(ids[:-1], ids[1:]):
                logits, h, c = self.step(a, h, c)
                total += _logsumexp(logits) - float(logits[b])
        return total / max(len(ids) - 1, 1)


def _logsumexp(x: np.ndarray) -> float:
    m = float(x.max())
    return m + math.log(float(np.exp(x - m, dtype=np.float64).sum()))


def check_upload(weights: bytes, card: str | bytes, limits: Limits = UPLOAD_LIMITS) -> CharLM:
    """A visitor's model: the card and the safetensors header are checked within `limits` (sizes, nesting,
    numbers, tensor count, dtypes, names and shapes) before any tensor is read; then the values (finite).
    Anything wrong raises CheckpointError with a short message; a refusal costs milliseconds."""
    if len(weights) > limits.max_file_bytes:  # before the card: the cheapest check first
        raise CheckpointError(f"the model file is {len(weights) / 2**20:.1f} MiB; "
                              f"the limit is {limits.max_file_bytes / 2**20:g} MiB")
    parsed = parse_card(card, limits)
    return CharLM(read_tensors(weights, parsed, limits), parsed)


def load_bytes(weights: bytes, card_text: str | bytes, limits: Limits = UPLOAD_LIMITS) -> CharLM:
    """Build a CharLM from the bytes of a weights file and its card (`check_upload`, upload limits by default)."""
    return check_upload(weights, card_text, limits)


def load(path: str | os.PathLike, limits: Limits = LOCAL_LIMITS) -> CharLM:
    """Load NAME.safetensors with the card NAME.json beside it; raise CheckpointError if either is wrong.
    Files on disk get the same checks with loose size limits (`LOCAL_LIMITS`); pass UPLOAD_LIMITS to apply
    the public server's."""
    path = Path(path)
    cpath = card_path(path)
    for p in (path, cpath):
        if not p.is_file():
            raise CheckpointError(f"no file at {p}")
    if path.stat().st_size > limits.max_file_bytes:
        raise CheckpointError(f"{path.name} is larger than {limits.max_file_bytes / 2**20:g} MiB")
    if cpath.stat().st_size > limits.max_card_bytes:
        raise CheckpointError(f"{cpath.name} is larger than {limits.max_card_bytes:,} bytes")
    return check_upload(path.read_bytes(), cpath.read_bytes(), limits)
