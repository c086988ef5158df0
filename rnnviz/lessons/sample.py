"""What the sampling page computes: a compact sample, one position's distributions before and after temperature /
top-k / top-p, a passage analysed for units and gates, and work limits scaled by the model's cost per character (the
shading values: rnnviz.lessons.shading). Plain values in, dataclasses out; the words, keys, caches: ui/sample/."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from rnnviz import resources
from rnnviz.charlm import CharLM
from rnnviz.charlm.checkpoint import SHIPPED_COST_PER_CHAR
from rnnviz.charlm.inspect import PassageAnalysis, analyse
from rnnviz.nn.sampling import SamplingSettings, entropies

TEMPS = (0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 1.0, 1.2, 1.5, 2.0, 3.0)
TOP = 10  # how many of each distribution are kept and shown
MAX_SEED = 1_000_000
MAX_NEW = 2_000  # the most characters one sample adds after its prime
MAX_CHARS = 2_506  # the most characters (prime + sampled) one sample of the shipped model holds
SHIPPED_COST = SHIPPED_COST_PER_CHAR  # multiply-adds per character of the shipped model (2 x 512 LSTM, 65 chars)
SAMPLE_BUDGET = MAX_CHARS * SHIPPED_COST  # multiply-adds one sample may cost: the shipped model's 2,506 characters
PASSAGE_BUDGET = 4_000 * SHIPPED_COST  # one passage analysis (the whole excerpt, for the shipped model)
PROB_BUDGET = 4_000_000  # characters x vocabulary held while a sample is drawn (float64: 32 MB per copy)
MAX_BRANCHES = 50  # characters forced by hand in one sample
EXCERPT = resources.path("shakespeare_excerpt.txt")  # validation text the passage analyses read


# ---- limits: work and memory scale with the model --------------------------------------------------------------
def max_chars(lm: CharLM) -> int:
    """Characters (prime + sampled) one sample may hold: the shipped model's 2,506, fewer for a costlier model."""
    return int(min(MAX_CHARS, SAMPLE_BUDGET // lm.cost_per_char, PROB_BUDGET // lm.vocab_size))


def most_chars(lm: CharLM, prime: str) -> int:
    """The most characters this model may sample after `prime` (below 1: the prime alone is too long)."""
    return min(MAX_NEW, max_chars(lm) - len(prime))


def passage_limit(lm: CharLM) -> int:
    """The most characters a passage analysis (unit ranking, gate saturation) reads for this model."""
    return int(min(4_000, PASSAGE_BUDGET // lm.cost_per_char))


def unknown_chars(lm: CharLM, text: str) -> list[str]:
    """The characters of `text` the model has never seen, sorted."""
    return sorted({c for c in text if c not in lm.stoi})


def forced_within(lm: CharLM, n: int, forced: dict[int, str]) -> tuple[tuple[int, str], ...]:
    """The forced characters that still apply: inside the n sampled, in the vocabulary; by position."""
    return tuple(sorted((k, v) for k, v in forced.items() if k < n and v in lm.stoi))


# ---- a sample, kept compactly (its settings: rnnviz.nn.sampling.SamplingSettings) -----------------------------
def is_long(lm: CharLM, s: SamplingSettings) -> bool:
    """Over a quarter of the work budget: worth a progress bar (and a point where a newer click can stop it)."""
    return (len(s.prime) + s.length) * lm.cost_per_char > SAMPLE_BUDGET / 4


@dataclass
class Sample:
    """A drawn text with what the page shows of it; arrays are per character i (row 0: nothing precedes it).

    Attributes:
        text: the characters read, prime then generated.
        generated_from: index where generation began (len(prime)).
        forced: absolute positions whose character was forced.
        p_char: (T,) float32 the model's probability (temperature 1) of text[i]; NaN at 0.
        model_top: (T, TOP) int32 the most likely characters of the model's distribution for text[i].
        model_top_p: (T, TOP) float32 their probabilities.
        model_entropy: (T,) float32 that distribution's entropy, nats.
        sampled_top: (T, TOP) int32 the same of the distribution actually sampled from (generated positions).
        sampled_top_p: (T, TOP) float32 their probabilities; NaN where nothing was sampled.
        sampled_entropy: (T,) float32 that distribution's entropy, nats; NaN where nothing was sampled.
        h: (T, L, H) float32 every layer's state after each character.
        c: (T, L, H) float32 cell state (LSTM only); None for other cells.
    """

    text: str
    generated_from: int
    forced: frozenset
    p_char: np.ndarray
    model_top: np.ndarray
    model_top_p: np.ndarray
    model_entropy: np.ndarray
    sampled_top: np.ndarray
    sampled_top_p: np.ndarray
    sampled_entropy: np.ndarray
    h: np.ndarray
    c: np.ndarray | None

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in vars(self).values() if isinstance(a, np.ndarray)) + 4 * len(self.text)


def _tops(dists: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top-k ids and probabilities (stable order) and the entropy of each row of (T, V)."""
    order = np.argsort(-dists, axis=1, kind="stable")[:, :k]
    ent = entropies(dists).astype(np.float32) + np.float32(0)  # + 0 turns -0.0 into 0.0
    return order.astype(np.int32), np.take_along_axis(dists, order, 1).astype(np.float32), ent


def _row0(a: np.ndarray, fill) -> np.ndarray:
    """`a` with a first row of `fill` put before it (nothing precedes the first character)."""
    return np.concatenate([np.full((1,) + a.shape[1:], fill, a.dtype), a])


def draw_sample(lm: CharLM, s: SamplingSettings, on_progress: Callable[[str], None] | None = None) -> Sample:
    """Sample with `CharLM.draw` (same settings, same text) and keep only what is shown: the top TOP of each
    distribution as float32, entropies, and the states. `on_progress` every 50 generated characters."""
    tr = lm.draw(s, on_progress=on_progress)
    T, k = len(tr.text), min(TOP, lm.vocab_size)
    mt, mp, me = _tops(tr.probs[:-1], k)
    ids = np.array([lm.stoi[ch] for ch in tr.text])
    p_char = _row0(tr.probs[np.arange(T - 1), ids[1:]].astype(np.float32), np.nan)
    st, sp, se = np.zeros((T, k), np.int32), np.full((T, k), np.nan, np.float32), np.full(T, np.nan, np.float32)
    if tr.sampled_probs:
        a, b, e = _tops(np.array(tr.sampled_probs), k)
        g = tr.generated_from
        st[g:], sp[g:], se[g:] = a, b, e
    return Sample(tr.text, tr.generated_from, frozenset(tr.generated_from + p for p, _ in s.forced), p_char,
                  _row0(mt, 0), _row0(mp, np.nan), _row0(me, np.nan), st, sp, se, tr.h.astype(np.float32),
                  None if tr.c is None else tr.c.astype(np.float32))


def mean_sampled_p(s: Sample) -> float | None:
    """The mean probability of the sampled characters (None when nothing was sampled)."""
    return float(np.mean(s.p_char[s.generated_from:])) if len(s.text) > s.generated_from else None


# ---- one position ---------------------------------------------------------------------------------------------
@dataclass
class Position:
    """The distributions behind the character at one position.

    Attributes:
        index: the position in the text.
        char: the character there.
        source: "prime" (read, not sampled), "sampled", or "forced" (chosen by hand: a branch).
        model_top: the model's distribution (temperature 1), (character, probability), most likely first.
        sampled_top: the distribution actually sampled from (after T, top-k, top-p); None where none was.
        model_entropy: the model's distribution's entropy, nats.
        sampled_entropy: the sampled distribution's entropy, nats; None where none was.
        p_char: the model's probability of the character that appeared.
        surprisal_bits: -log2 p_char.
        model_choices: exp(model_entropy): about how many characters the model hesitates between.
    """

    index: int
    char: str
    source: str
    model_top: list[tuple[str, float]]
    sampled_top: list[tuple[str, float]] | None
    model_entropy: float
    sampled_entropy: float | None
    p_char: float
    surprisal_bits: float
    model_choices: float


def position(lm: CharLM, s: Sample, i: int) -> Position | None:
    """The distributions that produced text[i]; None for i = 0 (nothing precedes it)."""
    if not 1 <= i < len(s.text):
        return None
    gen = i >= s.generated_from
    src = "forced" if i in s.forced else "sampled" if gen else "prime"
    pc, h = float(s.p_char[i]), float(s.model_entropy[i])
    return Position(i, s.text[i], src, _top(lm, s.model_top[i], s.model_top_p[i]),
                    _top(lm, s.sampled_top[i], s.sampled_top_p[i]) if gen else None, h,
                    float(s.sampled_entropy[i]) if gen else None, pc, -math.log2(pc) if pc > 0 else math.inf,
                    math.exp(h))


def _top(lm: CharLM, ids: np.ndarray, ps: np.ndarray) -> list[tuple[str, float]]:
    return [(lm.itos[j], float(p)) for j, p in zip(ids, ps)]


# ---- a passage analysed: unit ranking and gate saturation -----------------------------------------------------
def excerpt(lm: CharLM) -> str:
    """The validation excerpt as far as this model may read it (characters outside its vocabulary left out)."""
    return "".join(c for c in EXCERPT.read_text(encoding="utf-8") if c in lm.stoi)[:passage_limit(lm)]


def analyse_sample(lm: CharLM, s: Sample) -> PassageAnalysis:
    """The sample's own units and gates, from its states (no rerun)."""
    return analyse(lm, s.text, (s.h, s.c))


def analyse_passage(lm: CharLM, passage: str, progress: Callable[[float], None] | None = None) -> PassageAnalysis:
    """Units and gates over a passage, run from the start state; `progress(fraction done)` while it is read."""
    return analyse(lm, passage, on_progress=progress and (lambda done, total: progress(done / total)))


def span_choices(a: PassageAnalysis) -> list[int]:
    """The "over the first N characters" options; 0 stands for the whole passage."""
    return [n for n in a.saturation if n < a.chars] + [0]


def forget_saturation(a: PassageAnalysis) -> list[tuple[int, float, float]]:
    """(layer, mean fraction of steps below 0.1, above 0.9) of the forget (LSTM) or update (GRU) gates over the
    whole passage; layers count from 1."""
    return [(k + 1, float(lo.mean()), float(hi.mean())) for k, layer in enumerate(a.saturation[a.chars])
            for g, (lo, hi) in layer.items() if g in ("f", "z")]


# ---- the model card's numbers ---------------------------------------------------------------------------------
@dataclass
class Loss:
    """A model's loss per character, in three units.

    Attributes:
        nats: cross-entropy per character, nats.
        bits: the same, bits.
        perplexity: exp(nats).
    """

    nats: float
    bits: float
    perplexity: float


def validation_loss(card: dict) -> Loss | None:
    """The card's validation loss in nats, bits and perplexity; None unless it is a plausible number."""
    val = card.get("val_loss")
    if isinstance(val, (int, float)) and not isinstance(val, bool) and 0 <= val < 50:
        return Loss(val, val / math.log(2), math.exp(val))
    return None
