"""What the sampling page shows: a sample kept compactly (top-k distributions, states) and cached per server, one
position's distributions, the text's shading, the model's own description, link values, work limits scaled by the
model's cost per character, and passages analysed for units and gates (rnnviz.charlm.inspect)."""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from rnnviz import resources
from rnnviz.charlm import CharLM
from rnnviz.charlm.checkpoint import SHIPPED_COST_PER_CHAR
from rnnviz.charlm.inspect import (  # noqa: F401
    FEATURES,
    GATE_NAMES,
    SPANS,
    PassageAnalysis,
    UnitHit,
    analyse,
    connectivity,
    forget_means,
    rank_units,
)
from rnnviz.lessons.cache import SharedCache
from rnnviz.nn.sampling import entropies

TEMPS = (0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 1.0, 1.2, 1.5, 2.0, 3.0)
TOP = 10  # how many of each distribution are kept and shown
MAX_SEED = 1_000_000
SHIPPED_COST = SHIPPED_COST_PER_CHAR  # multiply-adds per character of the shipped model (2 x 512 LSTM, 65 chars)
SAMPLE_BUDGET = 2_506 * SHIPPED_COST  # multiply-adds one sample may cost: the shipped model's 500 + 2,000 characters
PASSAGE_BUDGET = 4_000 * SHIPPED_COST  # one passage analysis (the whole excerpt, for the shipped model)
PROB_BUDGET = 4_000_000  # characters x vocabulary held while a sample is drawn (float64: 32 MB per copy)
MAX_BRANCHES = 50
SHADES = ("probability", "surprisal", "hidden unit", "connectivity")
EXCERPT = resources.path("shakespeare_excerpt.txt")  # validation text the passage analyses read
PASSAGES_SHOWN = {"excerpt": "a passage of the play (validation text)", "sample": "this sample"}


def label(ch: str) -> str:
    """A visible stand-in for whitespace: newline ↵, space ␣ (as on the hello page; a middle dot reads as a full
    stop on a projector), tab →."""
    return {"\n": "↵", " ": "␣", "\t": "→"}.get(ch, ch)


def temperature_sentence(t: float) -> str:
    return f"Temperature {t:g}: " + ("sharper than the model: safer, more repetitive." if t < 1 else
                                     "the model's own distribution." if t == 1 else "flatter: more surprises, more typos.")


# ---- what a link may say ------------------------------------------------------------------------------------
def one_of(values) -> Callable[[str], float]:
    """Parser for a select-slider value: a number that is exactly one of `values` (else ValueError)."""
    def parse(s: str) -> float:
        v = float(s)
        if v not in values:
            raise ValueError(s)
        return next(x for x in values if x == v)
    return parse


def parse_branches(s: str) -> dict[int, str]:
    """'20.120,45.10' -> {20: 'x', 45: '\\n'}: generated position . code point of the forced character."""
    out = {}
    for part in filter(None, s.split(",")):
        pos, code = part.split(".")
        pos, code = int(pos), int(code)
        if not (0 <= pos < 2000 and 0 <= code < 0x110000) or 0xD800 <= code < 0xE000 or len(out) >= MAX_BRANCHES:
            raise ValueError(s)
        out[pos] = chr(code)
    return out


def dump_branches(forced: dict[int, str]) -> str:
    return ",".join(f"{pos}.{ord(ch)}" for pos, ch in sorted(forced.items()))


# ---- the model's own description ----------------------------------------------------------------------------
def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _show(v: object, limit: int = 80) -> str:
    """A card value as short text, whatever it is (a 5,000-digit number or a long string included)."""
    try:
        s = str(v)
    except (ValueError, OverflowError):
        return "?"
    return s if len(s) <= limit else s[:limit] + "…"


def describe(card: dict, vocab_size: int) -> str:
    """'A two-layer LSTM (512 units per layer, 65 characters) trained on …', from the loaded model's card (unescaped)."""
    L, H = card["num_layers"], card["hidden_size"]
    depth = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight")[L] if L < 9 else str(L)
    corpus = card.get("corpus")
    return (f"A {depth}-layer {str(card['cell']).upper()} ({_count(H, 'unit')} per layer, {_count(vocab_size, 'character')})"
            + (f" trained on {_show(corpus)}" if isinstance(corpus, str) and corpus else ""))


def card_facts(card: dict, vocab_size: int) -> list[str]:
    """The model card as plain sentences (the page escapes them): sizes, training, validation loss."""
    facts = [f"{str(card['cell']).upper()}, {_count(card['num_layers'], 'layer')} of {_count(card['hidden_size'], 'unit')}, "
             f"embeddings of {card['embed_size']}, a vocabulary of {_count(vocab_size, 'character')}."]
    if "steps" in card:
        get = lambda k: _show(card.get(k, "?"))  # noqa: E731
        facts.append(f"Trained on {get('corpus')} for {get('steps')} steps ({get('minutes')} min) on {get('device')} "
                     f"with torch {get('torch_version')}.")
    val = card.get("val_loss")
    if isinstance(val, (int, float)) and not isinstance(val, bool) and 0 <= val < 50:
        facts.append(f"Validation loss {val:.4f} nats per character ({val / math.log(2):.3f} bits), perplexity "
                     f"{math.exp(val):.2f}, read as one stream from a zero state.")
    return facts


# ---- limits: work and memory scale with the model --------------------------------------------------------------
def max_chars(lm: CharLM) -> int:
    """The most characters (prime + sampled) one sample may hold for this model: the shipped model's 2,506, fewer
    for a model that costs more per character or has a larger vocabulary."""
    return int(min(2_506, SAMPLE_BUDGET // lm.cost_per_char, PROB_BUDGET // lm.vocab_size))


def most_chars(lm: CharLM, prime: str) -> int:
    """The most characters this model may sample after `prime` (below 1: the prime alone is too long)."""
    return min(2000, max_chars(lm) - len(prime))


def passage_limit(lm: CharLM) -> int:
    """The most characters a passage analysis (unit ranking, gate saturation) reads for this model."""
    return int(min(4_000, PASSAGE_BUDGET // lm.cost_per_char))


# ---- a sample, kept compactly ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Settings:
    """Everything that decides a sample; equal settings give the same text."""

    prime: str
    n: int
    temperature: float
    top_k: int | None  # 1 = greedy
    top_p: float | None
    seed: int
    forced: tuple[tuple[int, str], ...] = ()  # (generated position, character), teacher-forced


@dataclass
class Sample:
    """A drawn text with what the page shows of it; arrays are per character i (row 0: nothing precedes it)."""

    text: str
    generated_from: int  # index where generation began (len(prime))
    forced: frozenset  # absolute positions whose character was forced
    p_char: np.ndarray  # (T,) float32: the model's probability (temperature 1) of text[i]; NaN at 0
    model_top: np.ndarray  # (T, TOP) int32: the most likely characters of the model's distribution for text[i]
    model_top_p: np.ndarray  # (T, TOP) float32
    model_entropy: np.ndarray  # (T,) float32, nats
    sampled_top: np.ndarray  # (T, TOP) int32: of the distribution actually sampled from (generated positions)
    sampled_top_p: np.ndarray  # (T, TOP) float32; NaN where nothing was sampled
    sampled_entropy: np.ndarray  # (T,) float32; NaN where nothing was sampled
    h: np.ndarray  # (T, L, H) float32: every layer's state after each character
    c: np.ndarray | None  # (T, L, H) cell state (LSTM)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in vars(self).values() if isinstance(a, np.ndarray)) + 4 * len(self.text)


def _tops(dists: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top-k ids and probabilities (stable order) and the entropy of each row of (T, V)."""
    order = np.argsort(-dists, axis=1, kind="stable")[:, :k]
    ent = entropies(dists).astype(np.float32) + np.float32(0)  # + 0 turns -0.0 into 0.0
    return order.astype(np.int32), np.take_along_axis(dists, order, 1).astype(np.float32), ent


def draw_sample(lm: CharLM, s: Settings, on_progress: Callable[[str], None] | None = None) -> Sample:
    """Sample with `CharLM.generate_trace` (same seed, same text) and keep only what is shown: the top TOP of each
    distribution as float32, entropies, and the states. `on_progress` every 50 generated characters."""
    tr = lm.generate_trace(s.prime, s.n, s.temperature, s.top_k, s.top_p, s.seed, forced=dict(s.forced),
                           on_progress=on_progress)
    T, k = len(tr.text), min(TOP, lm.vocab_size)
    pad = lambda a, fill: np.concatenate([np.full((1,) + a.shape[1:], fill, a.dtype), a])  # noqa: E731 - row 0
    mt, mp, me = _tops(tr.probs[:-1], k)
    ids = np.array([lm.stoi[ch] for ch in tr.text])
    p_char = pad(tr.probs[np.arange(T - 1), ids[1:]].astype(np.float32), np.nan)
    st, sp, se = np.zeros((T, k), np.int32), np.full((T, k), np.nan, np.float32), np.full(T, np.nan, np.float32)
    if tr.sampled_probs:
        a, b, e = _tops(np.array(tr.sampled_probs), k)
        g = tr.generated_from
        st[g:], sp[g:], se[g:] = a, b, e
    return Sample(tr.text, tr.generated_from, frozenset(tr.generated_from + p for p, _ in s.forced), p_char,
                  pad(mt, 0), pad(mp, np.nan), pad(me, np.nan), st, sp, se, tr.h.astype(np.float32),
                  None if tr.c is None else tr.c.astype(np.float32))


def check(lm: CharLM, prime: str, n: int, forced: dict[int, str]) -> tuple[tuple, list[str]]:
    """The forced characters that still apply (inside the sample, in the vocabulary), and what is wrong with the
    settings, in words (empty when nothing is)."""
    bad = sorted({c for c in prime if c not in lm.stoi})
    problems = ["The prime text is empty."] if not prime else []
    problems += ["The model has never seen " + ", ".join(repr(c) for c in bad[:10]) + "; remove it from the prime."] if bad else []
    problems += [f"This model may read at most {max_chars(lm):,} characters here; shorten the prime."] \
        if len(prime) >= max_chars(lm) else []
    return tuple(sorted((k, v) for k, v in forced.items() if k < n and v in lm.stoi)), problems


def is_long(lm: CharLM, s: Settings) -> bool:
    """Worth a progress bar (and a point where a newer click can stop it): over a quarter of the work budget."""
    return (len(s.prime) + s.n) * lm.cost_per_char > SAMPLE_BUDGET / 4


def sample_for(model_id: str, lm: CharLM, s: Settings, session: dict,
               progress: Callable[[float], None] | None = None, ahead: bool = False) -> Sample:
    """The shipped model's samples are drawn once per server (every visitor shares them); an upload's are kept in
    its visitor's session (`session`, e.g. st.session_state), the last one only. `progress(fraction done)`.
    The next seed's sample is then drawn ahead (see draw_ahead) on a visitor's first look at the page, and after
    each "Sample again" (`ahead`): the two moments a click on Sample again is likeliest to follow."""
    on_progress = (lambda so_far: progress(min(1.0, (len(so_far) - len(s.prime)) / max(s.n, 1)))) if progress else None
    if model_id == "shipped":
        smp = SAMPLES.get((model_id, s), lambda: draw_sample(lm, s, on_progress), lambda v: v.nbytes)
        if ahead or not session.get("sample.looked"):  # a class on one link: drawn once per server for them all
            session["sample.looked"] = True
            draw_ahead(model_id, lm, s)
        return smp
    if session.get("sample.sample", (None,))[0] != (model_id, s):
        session["sample.sample"] = ((model_id, s), draw_sample(lm, s, on_progress))
    return session["sample.sample"][1]


def draw_ahead(model_id: str, lm: CharLM, s: Settings) -> bool:
    """After "Sample again": the shipped model's sample for the next seed, drawn in the background (one at a time per
    server), so that a visitor clicking through samples waits for the first one only."""
    nxt = replace(s, seed=s.seed + 1)
    if model_id != "shipped" or s.top_k == 1 or nxt.seed > MAX_SEED or is_long(lm, nxt):
        return False  # greedy: every seed gives the same text; long: whoever waits for it should see its progress
    return SAMPLES.fill_ahead((model_id, nxt), lambda: draw_sample(lm, nxt), lambda v: v.nbytes)


def summary(s: Sample) -> str:
    """How much of the text was read and how much sampled, and how likely the sampled part was."""
    g = s.generated_from
    return (f"Prime (read, not sampled): {g} characters; then {len(s.text) - g} sampled. Mean probability of the "
            f"sampled characters {float(np.mean(s.p_char[g:])):.3f}." if len(s.text) > g else "")


# ---- one position ---------------------------------------------------------------------------------------------
@dataclass
class Position:
    """The distributions behind the character at one position."""

    index: int
    char: str
    source: str  # "prime" (read, not sampled), "sampled", or "forced" (chosen by hand: a branch)
    model_top: list[tuple[str, float]]  # the model's distribution (temperature 1), most likely first
    sampled_top: list[tuple[str, float]] | None  # the distribution actually sampled from (after T, top-k, top-p)
    model_entropy: float  # nats
    sampled_entropy: float | None
    p_char: float  # the model's probability of the character that appeared
    surprisal_bits: float  # -log2 p_char


def position(lm: CharLM, s: Sample, i: int) -> Position | None:
    """The distributions that produced text[i]; None for i = 0 (nothing precedes it)."""
    if not 1 <= i < len(s.text):
        return None
    gen = i >= s.generated_from
    src = "forced" if i in s.forced else "sampled" if gen else "prime"
    top = lambda ids, ps: [(lm.itos[j], float(p)) for j, p in zip(ids, ps)]  # noqa: E731
    pc = float(s.p_char[i])
    return Position(i, s.text[i], src, top(s.model_top[i], s.model_top_p[i]),
                    top(s.sampled_top[i], s.sampled_top_p[i]) if gen else None, float(s.model_entropy[i]),
                    float(s.sampled_entropy[i]) if gen else None, pc, -math.log2(pc) if pc > 0 else math.inf)


def sampled_name(info: Position) -> str | None:
    return None if info.sampled_top is None else "overruled by hand" if info.source == "forced" else "sampled from"


def top_rows(info: Position) -> list[tuple[str, float, float | None]]:
    """(character label, model p, sampled p or None) for the model's most likely characters."""
    sampled = dict(info.sampled_top or [])
    return [(label(c), p, sampled.get(c, 0.0) if info.sampled_top else None) for c, p in info.model_top]


def describe_position(info: Position) -> str:
    """One sentence about a position, in markdown (the character is quoted by the caller's escaping)."""
    how = {"prime": "read from the prime", "sampled": "sampled", "forced": "forced by hand (a branch)"}[info.source]
    surprise = f"{info.surprisal_bits:.2f} bits" if math.isfinite(info.surprisal_bits) else "infinite"
    return (f"{how}. The model gave it p = **{info.p_char:.3f}**: a surprisal of **{surprise}** "
            f"(−log₂ p; 1 bit = as surprising as a coin toss).")


def entropy_sentence(info: Position) -> str:
    """The entropies of the position's distributions, in nats (natural log; eᴴ is about how many characters the
    model hesitates between)."""
    m = f"**{info.model_entropy:.3f}** nats"
    tail = (f" (entropy H, how unsure a distribution is, in nats: natural-log units; eᴴ ≈ "
            f"{math.exp(info.model_entropy):.1f} is about how many characters the model hesitates between).")
    if info.sampled_entropy is None:
        return f"Entropy of the model's distribution: {m}" + tail
    return (f"Entropy: {m} in the model's distribution, **{info.sampled_entropy:.3f}** nats in the one it was "
            f"{'chosen against' if info.source == 'forced' else 'sampled from'}" + tail)


# ---- shading --------------------------------------------------------------------------------------------------
@dataclass
class Shading:
    values: np.ndarray  # (T,) one number per character; NaN = not shaded
    lo: float
    hi: float
    signed: bool  # diverging scale (hidden units) rather than sequential
    titles: list[str]  # hover text per character
    caption: str  # what the colours mean
    ends: tuple[str, str] = ("likely", "unlikely")  # names of the scale's two ends
    unread_after: int | None = None  # characters after this one are faded (not read before the prediction)


def shading(mode: str, lm: CharLM, s: Sample, i: int, unit: tuple[int, str, int] = (0, "h", 0)) -> Shading:
    """Values for the text's colours: probability or surprisal of each character, a hidden unit's value after
    each character, or the connectivity of the prediction of text[i] to every character read before it."""
    T = len(s.text)
    chars = [repr(label(ch)) for ch in s.text]
    if mode == "hidden unit":
        layer, kind, u = unit
        acts = (s.c if kind == "c" and s.c is not None else s.h)[:, layer, u]
        lim = max(1e-6, float(np.abs(acts).max()))
        return Shading(acts, -lim, lim, True, [f"{c}: {kind}[{layer + 1}][{u}] = {v:+.3f}" for c, v in zip(chars, acts)],
                       f"Blue: {kind} of unit {u} in layer {layer + 1} positive, purple: negative, after each character "
                       f"(strongest ±{lim:.3f}).", ("−", "+"))
    if mode == "connectivity":
        conn = np.full(T, np.nan)
        if i >= 1:
            with np.errstate(all="ignore"):  # an unstable uploaded model's gradients overflow
                conn[:i] = connectivity(lm, s.text, i - 1, (s.h, s.c))
            conn[~np.isfinite(conn)] = np.nan
            if np.isnan(conn[:i]).all():
                return Shading(conn, 0.0, 1.0, False, [f"{c}: not finite" for c in chars],
                               f"Connectivity of the prediction of character {i}: this model's gradients overflow "
                               "(they are not finite numbers), so there is nothing to shade.", ("none", "most"), i)
        top = float(np.nanmax(conn)) if i >= 1 else 1.0
        where = int(np.nanargmax(conn)) if i >= 1 else 0
        titles = [f"{c}: ‖∂ log p / ∂e‖ = {v:.3g}" if j < i else f"{c}: read after position {i}" if j > i else
                  f"{c}: the character predicted" for j, (c, v) in enumerate(zip(chars, conn))]
        return Shading(conn, 0.0, max(top, 1e-12), False, titles,
                       f"Connectivity of the prediction of character {i} (outlined): how much each character read "
                       f"before it moved log p of what came, the length of the gradient ‖∂ log p / ∂e‖ with respect "
                       f"to its embedding e. Darkest: {top:.3g} at position {where} ({label(s.text[where])}); "
                       f"characters after it were not read yet.", ("none", "most"), i)
    if mode == "surprisal":
        with np.errstate(divide="ignore"):
            bits = -np.log2(s.p_char.astype(np.float64))
        return Shading(bits, 0.0, 8.0, False, [f"{c}: {b:.2f} bits" for c, b in zip(chars, bits)],
                       "Darker: more surprising. Surprisal −log₂ p in bits (0 = certain, 8 or more darkest).", ("0 bits", "8+"))
    return Shading(1 - s.p_char.astype(np.float64), 0.0, 1.0, False,
                   [f"{c}: p = {p:.3f}" for c, p in zip(chars, s.p_char)],
                   "Darker: less likely. Each character is shaded by 1 − p, the probability the model (temperature 1) "
                   "gave it before it appeared.")


# ---- hidden units that track something ------------------------------------------------------------------------
def unit_rows(hits: list[UnitHit]) -> list[dict]:
    """The ranking as table rows: strength |r| drawn as a bar, the sign said in words."""
    return [{"feature": h.feature, "unit": f"layer {h.layer + 1} {h.kind}[{h.unit}]", "strength": abs(h.r),
             "r": f"{h.r:+.3f}".replace("-", "−"), "direction": "rises with it" if h.r >= 0 else "falls with it",
             "what": FEATURES[h.feature]} for h in hits]


# ---- a passage analysed: unit ranking and gate saturation -----------------------------------------------------------
def analysis_for(model_id: str, lm: CharLM, smp: Sample, over: str, session: dict,
                 progress: Callable[[float], None] | None = None) -> PassageAnalysis:
    """The sample (its own states: no rerun), or the excerpt analysed once per server for the shipped model (pinned:
    visitors' uploads cannot evict it) and once per session for an upload (`session`, e.g. st.session_state).
    `progress(fraction done)` while the excerpt is read: a point where a newer click can stop the work."""
    if over == "sample":  # kept for the session while the sample is the same object
        if session.get("sample.own", (None,))[0] is not smp:
            session["sample.own"] = (smp, analyse(lm, smp.text, (smp.h, smp.c)))
        return session["sample.own"][1]
    passage = "".join(c for c in EXCERPT.read_text(encoding="utf-8") if c in lm.stoi)[:passage_limit(lm)]
    work = lambda: analyse(lm, passage, on_progress=progress and (lambda done, total: progress(done / total)))  # noqa: E731
    if model_id == "shipped":
        return PASSAGES.get((model_id, passage), work, pinned=True)
    if session.get("sample.analysis", (None,))[0] != (model_id, passage):
        session["sample.analysis"] = ((model_id, passage), work())
    return session["sample.analysis"][1]


def unit_state(hits: list[UnitHit], rows: list[int | None]) -> dict:
    """The sampling page's state that shades the text by the unit in the chosen row (and asks for a full rerun)."""
    return {f"sample.{k}": v for h in [hits[r] for r in rows[:1] if r is not None] for k, v in
            (("shade", "hidden unit"), ("layer", h.layer + 1), ("kind", h.kind), ("unit", h.unit), ("_app", 1))}


def span_choices(a: PassageAnalysis) -> list[int]:
    """The "over the first N characters" options; 0 stands for the whole passage."""
    return [n for n in a.saturation if n < a.chars] + [0]


def ranking_caption(a: PassageAnalysis) -> str:
    return (f"Over {a.chars:,} characters: r is the correlation between a unit's value and the feature; the bar is its "
            "size |r|, its sign says whether the unit rises or falls with it. Hover over a feature for what it means.")


def saturation_caption(a: PassageAnalysis) -> str:
    return (f"Mean over units, over all {a.chars:,} characters, forget gates (update gates of a GRU): {forget_means(a)}. "
            "A dot at the right is a gate almost always closed (below 0.1), at the top one almost always open (above 0.9).")


SAMPLES = SharedCache(160 * 2 ** 20)  # the shipped model's samples (states included: ~8 MB per 500 characters)
PASSAGES = SharedCache(0)  # the shipped model's passage analyses, pinned
