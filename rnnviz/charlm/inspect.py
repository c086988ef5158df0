"""Looking inside a character model's run: the state it starts from, every step's gates, gate saturation and
units that track features of the text (after Karpathy, Johnson and Fei-Fei, 'Visualizing and Understanding
Recurrent Networks', 2015), and
connectivity: how much each character read moved one prediction, ‖∂ log p(x_{t+1} | x_{0..t}) / ∂ e_s‖₂ for the
embedding e_s read at step s, by a backward pass in NumPy through each cell's own local derivatives
(`Cell.local` / `Cell.backward`; checked against torch.autograd in tests/test_inspect.py). Everything starts from
the same state as `CharLM.run` / `draw`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np
from threadpoolctl import threadpool_limits

from rnnviz.nn.cells import REGISTRY
from rnnviz.nn.sampling import softmax

if TYPE_CHECKING:
    from rnnviz.charlm.runner import CharLM

SPANS = (50, 100, 200, 500, 1000, 2000)  # saturation is also measured over the first N characters
GATE_NAMES = {name: cell.sigmoid_gates for name, cell in REGISTRY.items()}  # the sigmoid gates, which can saturate


def start_state(lm: "CharLM") -> tuple[np.ndarray, np.ndarray]:
    """(h, c), each (L, H): the state `CharLM.run` and `draw` read their first character from (zeros,
    then the model's warm-up text); the runner's own `start_state` where it has one. tests/test_inspect.py holds
    this to `run`'s first step."""
    if hasattr(lm, "start_state"):
        return lm.start_state()
    h, c = lm.zero_state()
    for idx in lm.encode(lm.warmup):
        _, h, c = lm.step(idx, h, c)
    return h, c


def _input0(lm: "CharLM", ids: list[int]) -> np.ndarray:
    """The first layer's W_ih x + b_ih for each character id (the runner's table where it keeps one): (T, G*H)."""
    table = getattr(lm, "table", None)
    return table[ids] if table is not None else lm.tensors["embed.weight"][ids] @ lm.W_ih[0].T + lm.b_ih[0]


def run_states(lm: "CharLM", text: str, on_progress: Callable[[int, int], None] | None = None,
               every: int = 250) -> tuple[np.ndarray, np.ndarray | None]:
    """h and c (T, L, H) after each character of `text`, as `CharLM.run` gives them but without a distribution
    per step; `on_progress(done, total)` every `every` steps of a layer (a page can stop the work there)."""
    h, c, _ = run_layers(lm, text, on_progress, every)
    return h, c


def run_layers(lm: "CharLM", text: str, on_progress: Callable[[int, int], None] | None = None, every: int = 250,
               gates: bool = False) -> tuple[np.ndarray, np.ndarray | None, list[dict[str, np.ndarray]]]:
    """`run_states`, and with `gates` each layer's sigmoid gates (T, H) recorded on the way (`gate_values`).

    The same arithmetic as `CharLM.step` (its `layer_step`, one layer over the whole text before the next), so the
    states are bit-identical to a run's; the gates come with them instead of from a second pass over the states
    (`gate_values`), which cost another 40% of the run (the shipped model's excerpt: 3.0 s -> 2.1 s here)."""
    ids = lm.encode(text)
    h0, c0 = start_state(lm)
    T, L, H = len(ids), lm.num_layers, lm.hidden_size
    hs = np.empty((T, L, H), np.float32)
    cs = np.empty_like(hs) if lm.cell_type.has_cell_state else None
    names = lm.cell_type.sigmoid_gates if gates else ()
    kept = [{g: np.empty((T, H), np.float32) for g in names} for _ in range(L)]
    with threadpool_limits(1):  # small mat-vecs run fastest on one thread
        for k in range(L):
            h, c = h0[k].copy(), c0[k].copy()
            for s in range(T):
                h, c, parts = lm.layer_step(k, ids[s] if k == 0 else hs[s, k - 1], h, c)
                hs[s, k] = h
                if cs is not None:
                    cs[s, k] = c
                for g in names:
                    kept[k][g][s] = parts[g]
                if on_progress is not None and (k * T + s + 1) % every == 0:
                    on_progress(k * T + s + 1, L * T)
    return hs, cs, kept


def _previous(h: np.ndarray, h0: np.ndarray) -> np.ndarray:
    """States entering each step: (T, L, H) from the start state and the states after each step."""
    return np.concatenate([h0[None], h[:-1]], axis=0)


def _forward(lm: "CharLM", ids: list[int], h: np.ndarray, c: np.ndarray | None) -> list[dict[str, np.ndarray]]:
    """Each layer's step parts (its gates and what its local derivatives read, `Cell.step`), recomputed in one batch
    from the states of a run: per layer a dict of (T, H) arrays."""
    h0, c0 = start_state(lm)
    hp = _previous(h, h0)
    cp = None if c is None else _previous(c, c0)
    out = []
    for k in range(lm.num_layers):
        gi = _input0(lm, ids) if k == 0 else h[:, k - 1] @ lm.W_ih[k].T + lm.b_ih[k]  # (T, G*H)
        gh = hp[:, k] @ lm.W_hh[k].T + lm.b_hh[k]  # (T, G*H)
        out.append(lm.cell_type.step(gi, gh, hp[:, k], None if cp is None else cp[:, k])[2])
    return out


def gate_values(lm: "CharLM", text: str, states: tuple[np.ndarray, np.ndarray | None] | None = None
                ) -> list[dict[str, np.ndarray]]:
    """For each layer, each sigmoid gate's value (T, H) at every character of `text` (LSTM: i, f, o;
    GRU: r, z; a vanilla RNN has none). `states` = run_states(lm, text) if already at hand."""
    h, c = states if states is not None else run_states(lm, text)
    return [{g: parts[g] for g in lm.cell_type.sigmoid_gates} for parts in _forward(lm, lm.encode(text), h, c)]


def saturation(gates: list[dict[str, np.ndarray]], low: float = 0.1, high: float = 0.9
               ) -> list[dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Per layer and gate: each unit's fraction of steps below `low` and above `high`, each (H,)."""
    return [{g: ((v < low).mean(axis=0), (v > high).mean(axis=0)) for g, v in layer.items()} for layer in gates]


def connectivity(lm: "CharLM", text: str, t: int, states: tuple[np.ndarray, np.ndarray | None] | None = None
                 ) -> np.ndarray:
    """(t+1,): entry s = ‖∂ log p(text[t+1] | text[:t+1]) / ∂ e_s‖₂, e_s the embedding read at step s, from the
    start state of `CharLM.run`. `states` = the run's (h, c) for at least text[:t+1], if already at hand."""
    if not 0 <= t < len(text) - 1:
        raise ValueError(f"t must be from 0 to {len(text) - 2} (the prediction of text[t+1]), not {t}")
    ids = lm.encode(text[:t + 2])
    if states is None:
        states = run_states(lm, text[:t + 1])
    h, c = states[0][:t + 1], None if states[1] is None else states[1][:t + 1]
    kind = lm.cell_type
    local = [kind.local(parts) for parts in _forward(lm, ids[:t + 1], h, c)]  # per layer, each (t+1, H)
    L, H = lm.num_layers, lm.hidden_size
    p = softmax(lm.W_y @ h[t, L - 1] + lm.b_y)
    dlogits = -p
    dlogits[ids[t + 1]] += 1.0  # ∂ log p_y / ∂ logits
    dh = [np.zeros(H, np.float32) for _ in range(L)]
    dc = [np.zeros(H, np.float32) if kind.has_cell_state else None for _ in range(L)]
    dh[L - 1] = (lm.W_y.T @ dlogits).astype(np.float32)
    d_in0 = np.empty((t + 1, lm.W_ih[0].shape[0]), np.float32)  # gradient at layer 1's input pre-activations
    with threadpool_limits(1):
        for s in range(t, -1, -1):
            for k in range(L - 1, -1, -1):
                d_x, d_h, carry, dc[k] = kind.backward({n: v[s] for n, v in local[k].items()}, dh[k], dc[k])
                dh[k] = carry + d_h @ lm.W_hh[k]  # (H,): into the state this layer read at step s
                if k == 0:
                    d_in0[s] = d_x
                else:
                    dh[k - 1] = dh[k - 1] + d_x @ lm.W_ih[k]  # into the layer below's output at step s
    return np.linalg.norm(d_in0 @ lm.W_ih[0], axis=1)  # (t+1,): ∂/∂e_s = W_ih0ᵀ ∂/∂(W_ih0 e_s)


# ---- hidden units that track features of the text (Karpathy, Johnson and Fei-Fei 2015, section 4) ----------------
FEATURES = ("newline", "position in line", "speaker name", "start of line", "inside quotes", "space", "vowel",
            "uppercase")  # what each one means is said by the page that shows them (ui/sample/words.py)


def text_features(text: str) -> dict[str, np.ndarray]:
    """One value per character for each feature in FEATURES."""
    T = len(text)
    f = {k: np.zeros(T) for k in FEATURES}
    col, quoted = 0, False
    speaker = np.zeros(T)
    for m in re.finditer(r"(?m)^([A-Z][A-Za-z' ]*[A-Za-z]):$", text):
        speaker[m.start(1):m.end(1)] = 1
    for t, ch in enumerate(text):
        f["position in line"][t] = col
        f["start of line"][t] = float(col == 0)
        if ch == '"':
            quoted = not quoted
        f["inside quotes"][t] = float(quoted and ch != '"')
        f["newline"][t] = float(ch == "\n")
        f["space"][t] = float(ch == " ")
        f["vowel"][t] = float(ch.lower() in "aeiou")
        f["uppercase"][t] = float(ch.isupper())
        col = 0 if ch == "\n" else col + 1
    f["speaker name"] = speaker
    return f


@dataclass
class UnitHit:
    """One unit that tracks a text feature.

    Attributes:
        feature: the feature's name (a key of FEATURES).
        layer: the unit's layer, from 0.
        kind: "h" (hidden state) or "c" (LSTM cell state).
        unit: the unit's index within the layer.
        r: Pearson correlation between the unit's activation and the feature.
    """

    feature: str
    layer: int
    kind: str
    unit: int
    r: float


def rank_units(h: np.ndarray, c: np.ndarray | None, text: str, top: int = 3) -> list[UnitHit]:
    """The `top` units most correlated (by |r|) with each feature; h and c are (T, L, H) states after each char."""
    feats = text_features(text)
    T, L, H = h.shape
    acts = [("h", h)] + ([("c", c)] if c is not None else [])
    A = np.concatenate([a.reshape(T, L * H) for _, a in acts], axis=1).astype(np.float32)  # (T, K*L*H)
    A -= A.mean(axis=0)
    a_norm = np.sqrt(np.einsum("tj,tj->j", A, A, dtype=np.float64))  # (K*L*H,)
    F = np.stack(list(feats.values())).astype(np.float64)  # (features, T)
    F -= F.mean(axis=1, keepdims=True)
    f_norm = np.sqrt((F ** 2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):  # all features at once, float32 products, float64 norms
        R = np.nan_to_num((F.astype(np.float32) @ A) / (f_norm[:, None] * a_norm))
    hits = []
    for name, r, vn in zip(feats, R, f_norm):
        if vn == 0:
            continue  # the feature never varies in this text (e.g. no quotes)
        for j in np.argsort(-np.abs(r), kind="stable")[:top]:
            kind_idx, rest = divmod(int(j), L * H)
            layer, unit = divmod(rest, H)
            hits.append(UnitHit(name, layer, acts[kind_idx][0], unit, float(r[j])))
    return hits


# ---- a passage analysed: unit ranking and gate saturation ------------------------------------------------------
@dataclass
class PassageAnalysis:
    """What a passage shows of a model's units and gates.

    Attributes:
        chars: how many characters were read.
        hits: the units most correlated with each feature (see rank_units).
        saturation: first N characters -> per layer, gate: (fraction of steps below 0.1, above 0.9), each (H,);
            N in SPANS (below `chars`) and `chars` itself.
        closed: per layer, gate: (T,) share of units below 0.1 at each character.
    """

    chars: int
    hits: list[UnitHit]
    saturation: dict[int, list[dict[str, tuple[np.ndarray, np.ndarray]]]]
    closed: list[dict[str, np.ndarray]]


def analyse(lm: "CharLM", text: str, states=None, on_progress=None) -> PassageAnalysis:
    """Rank units and measure gate saturation over `text` (states from one run; computed here if not given)."""
    if states is None:
        h, c, gates = run_layers(lm, text, on_progress, gates=True)
    else:
        h, c = states
        gates = gate_values(lm, text, (h, c)) if lm.cell_type.sigmoid_gates else [{} for _ in range(lm.num_layers)]
    spans = [n for n in SPANS if n < len(text)] + [len(text)]
    return PassageAnalysis(len(text), rank_units(h, c, text),
                           {n: saturation([{g: v[:n] for g, v in layer.items()} for layer in gates]) for n in spans},
                           [{g: (v < 0.1).mean(axis=1) for g, v in layer.items()} for layer in gates])
