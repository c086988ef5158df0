"""A loaded character model that runs in NumPy: one character at a time, every state kept if asked.

The cell equations are `rnnviz.nn.cells`'; speed comes from what is precomputed around them: the first
layer's input projection per character (a table lookup) and, for deeper layers, one stacked matrix.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from rnnviz.charlm.checkpoint import (MAX_FILE_BYTES, CheckpointError, card_path, check_tensors, read_tensors,
                                      validate_card)
from rnnviz.nn.cells import gru_cell, lstm_cell, rnn_cell
from rnnviz.nn.sampling import filter_probs, softmax


@dataclass
class Trace:
    """What happened at each step of a run: the character read, the distribution, the states."""

    text: str  # the characters read, in order (prime then generated)
    probs: np.ndarray  # (T, V) model distribution for the next character after each step, temperature 1
    h: np.ndarray  # (T, L, H) hidden state of every layer after each step
    c: np.ndarray | None  # (T, L, H) cell state (LSTM only)
    generated_from: int = 0  # index in text where generation began (len(prime))
    sampled_probs: list[np.ndarray] = field(default_factory=list)  # distribution actually sampled from


class CharLM:
    """A loaded character model that runs in NumPy; read-only after construction.

    Generation starts from the state after reading `warmup` (a line break by default), as if the prime opened
    a new line of the text: a model trained with its state carried across chunks has rarely seen a cold zero
    state, and from one it can babble. `loss` always starts from a zero state, like the card's val_loss."""

    def __init__(self, tensors: dict[str, np.ndarray], card: dict, warmup: str = "\n"):
        validate_card(card)
        check_tensors(tensors, card)
        self.card = card
        self.itos: list[str] = list(card["itos"])
        self.stoi = {ch: i for i, ch in enumerate(self.itos)}
        self.cell: str = card["cell"]
        self.num_layers: int = card["num_layers"]
        self.hidden_size: int = card["hidden_size"]
        self.vocab_size = len(self.itos)
        self.warmup = "".join(ch for ch in warmup if ch in self.stoi)
        self.tensors = tensors
        L = self.num_layers
        self.W_ih = [tensors[f"rnn.weight_ih_l{k}"] for k in range(L)]
        self.W_hh = [tensors[f"rnn.weight_hh_l{k}"] for k in range(L)]
        self.b_ih = [tensors[f"rnn.bias_ih_l{k}"] for k in range(L)]
        self.b_hh = [tensors[f"rnn.bias_hh_l{k}"] for k in range(L)]
        self.W_y, self.b_y = tensors["head.weight"], tensors["head.bias"]
        # the first layer's input contribution depends only on the character: precompute it
        self.table = tensors["embed.weight"] @ self.W_ih[0].T + self.b_ih[0]  # (V, G*H)
        # deeper layers read [input, h] through one stacked matrix: one mat-vec instead of two
        self.W_stack = [None] + [np.ascontiguousarray(np.concatenate([self.W_ih[k], self.W_hh[k]], axis=1))
                                 for k in range(1, L)]  # (G*H, 2H)
        self.b_stack = [None] + [self.b_ih[k] + self.b_hh[k] for k in range(1, L)]  # (G*H,)
        for a in (self.table, *self.W_stack[1:], *tensors.values()):
            a.setflags(write=False)  # shared across sessions: nothing may change it

    # ---- one step -------------------------------------------------------------------------
    def zero_state(self) -> tuple[np.ndarray, np.ndarray]:
        """h and c for every layer, all zeros: (L, H) each."""
        z = np.zeros((self.num_layers, self.hidden_size), dtype=np.float32)
        return z, z.copy()

    def step(self, idx: int, h: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Read one character id; return the next-character logits and the new (h, c)."""
        h, c = h.copy(), c.copy()
        inp = None
        for k in range(self.num_layers):
            if self.cell == "lstm":
                if k == 0:
                    z = self.table[idx] + self.W_hh[0] @ h[0] + self.b_hh[0]  # (4H,)
                else:
                    z = self.W_stack[k] @ np.concatenate([inp, h[k]]) + self.b_stack[k]  # (4H,)
                h[k], c[k], _ = lstm_cell(z, c[k])
            elif self.cell == "gru":
                gi = self.table[idx] if k == 0 else self.W_ih[k] @ inp + self.b_ih[k]  # (3H,)
                h[k], _ = gru_cell(gi, self.W_hh[k] @ h[k] + self.b_hh[k], h[k])
            else:
                gi = self.table[idx] if k == 0 else self.W_ih[k] @ inp + self.b_ih[k]  # (H,)
                h[k] = rnn_cell(gi + self.W_hh[k] @ h[k] + self.b_hh[k])
            inp = h[k]
        return self.W_y @ inp + self.b_y, h, c

    # ---- text in, text out -----------------------------------------------------------------
    def encode(self, text: str) -> list[int]:
        """Character ids; characters outside the vocabulary raise ValueError naming them."""
        unknown = sorted({ch for ch in text if ch not in self.stoi})
        if unknown:
            raise ValueError(f"not in the model's vocabulary: {', '.join(repr(ch) for ch in unknown)}")
        return [self.stoi[ch] for ch in text]

    def generate(self, prime: str, length: int, temperature: float = 1.0, top_k: int | None = None,
                 top_p: float | None = None, seed: int | None = None) -> str:
        """Exactly `length` new characters after `prime`; the same seed gives the same text."""
        trace = self.generate_trace(prime, length, temperature, top_k, top_p, seed, keep_states=False)
        return trace.text[trace.generated_from:]

    def generate_trace(self, prime: str, length: int, temperature: float = 1.0, top_k: int | None = None,
                       top_p: float | None = None, seed: int | None = None, keep_states: bool = True,
                       forced: dict[int, str] | None = None, on_progress=None, progress_every: int = 50) -> Trace:
        """Sample like `generate`, recording each step; `forced` maps a generated position to a
        character that replaces the sample there (the run continues from the forced character).
        `on_progress(text_so_far)` is called every `progress_every` generated characters."""
        if length < 0:
            raise ValueError("length must be 0 or more")
        if not prime:
            raise ValueError("the prime text must hold at least one character")
        if not temperature > 0 or not math.isfinite(temperature):
            raise ValueError("temperature must be a positive number")
        ids = self.encode(prime)
        forced_ids = {pos: self.encode(ch)[0] for pos, ch in (forced or {}).items()}
        rng = np.random.default_rng(seed)
        h, c = self.zero_state()
        hs, cs, probs, sampled = [], [], [], []
        text = list(prime)
        with threadpool_limits(1):  # small mat-vecs run fastest on one thread
            for idx in self.encode(self.warmup):
                _, h, c = self.step(idx, h, c)
            logits = None
            for idx in ids:
                logits, h, c = self.step(idx, h, c)
                if keep_states:
                    hs.append(h), cs.append(c), probs.append(softmax(logits))
            for pos in range(length):
                p = softmax(logits / temperature)
                if top_k or (top_p is not None and top_p < 1):
                    p = filter_probs(p, top_k, top_p)
                if pos in forced_ids:
                    idx = forced_ids[pos]
                elif top_k == 1:
                    idx = int(np.argmax(p))
                else:  # inverse-CDF draw: one uniform number per character
                    idx = min(int(np.searchsorted(np.cumsum(p), rng.random() * p.sum(), side="right")), len(p) - 1)
                text.append(self.itos[idx])
                if on_progress is not None and (pos + 1) % progress_every == 0:
                    on_progress("".join(text))
                if keep_states:
                    sampled.append(p)
                logits, h, c = self.step(idx, h, c)
                if keep_states:
                    hs.append(h), cs.append(c), probs.append(softmax(logits))
        if not keep_states:
            return Trace("".join(text), np.zeros((0, self.vocab_size)), np.zeros((0,)), None, len(prime))
        return Trace(
            text="".join(text), probs=np.array(probs), h=np.array(hs),
            c=np.array(cs) if self.cell == "lstm" else None, generated_from=len(prime), sampled_probs=sampled,
        )

    def run(self, text: str) -> Trace:
        """Read `text` (teacher forcing), recording the distribution and states after each character."""
        return self.generate_trace(text, 0)

    def loss(self, text: str) -> float:
        """Mean negative log-likelihood in nats/char of `text[1:]` given what precedes it, from a zero state."""
        ids = self.encode(text)
        h, c = self.zero_state()
        total = 0.0
        with threadpool_limits(1):
            for a, b in zip(ids[:-1], ids[1:]):
                logits, h, c = self.step(a, h, c)
                m = logits.max()
                total += float(m + np.log(np.exp(logits - m).sum()) - logits[b])
        return total / max(len(ids) - 1, 1)

    # ---- looking inside (rnnviz.charlm.inspect) --------------------------------------------------------------------
    def connectivity(self, text: str, t: int) -> np.ndarray:
        """(t+1,): entry s = ‖∂ log p(text[t+1] | text[:t+1]) / ∂ e_s‖₂, e_s the embedding read at step s."""
        from rnnviz.charlm.inspect import connectivity

        return connectivity(self, text, t)

    def gate_values(self, text: str) -> list[dict[str, np.ndarray]]:
        """Per layer, each sigmoid gate's value (T, H) at every character of `text` (LSTM i, f, o; GRU r, z)."""
        from rnnviz.charlm.inspect import gate_values

        return gate_values(self, text)


def load_bytes(weights: bytes, card_text: str | bytes) -> CharLM:
    """Build a CharLM from the bytes of a weights file and its card, validating both."""
    try:
        card = json.loads(card_text)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"the card is not valid JSON ({e})") from None
    validate_card(card)
    return CharLM(read_tensors(weights), card)


def load(path: str | os.PathLike) -> CharLM:
    """Load NAME.safetensors with the card NAME.json beside it; raise CheckpointError if either is wrong."""
    path = Path(path)
    cpath = card_path(path)
    for p in (path, cpath):
        if not p.is_file():
            raise CheckpointError(f"no file at {p}")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise CheckpointError(f"{path.name} is larger than {MAX_FILE_BYTES // 2**20} MiB")
    return load_bytes(path.read_bytes(), cpath.read_bytes())
