"""The sampling page's words, link values, session keys and cache policy (its numbers are rnnviz.lessons.sample's):
what a link may say, the model and each position in sentences, the shading's captions and hover texts, and which
samples and analyses are kept once per server (the shipped model's, every visitor shares them) or in the visitor's
session (an upload's), with the next seed's sample drawn ahead."""
from __future__ import annotations

import html
import logging
import math
import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, MutableMapping

import numpy as np

from rnnviz.charlm import SHIPPED_MODEL, CharLM, Clamp
from rnnviz.charlm.inspect import SPANS, PassageAnalysis, UnitHit
from rnnviz.figures.sample import SEQUENTIAL, SIGNED
from rnnviz.lessons import clamp as clamping, sample as lesson
from rnnviz.lessons.cache import SharedCache
from rnnviz.text import fmt
from ui.loaders import shipped_model
from ui.urlstate import Param, choice, dump_flag, flag, integer, number, text
from ui.widgets import md

P = "sample"  # the page's prefix of widget and session keys
SHADES = ("probability", "surprisal", "hidden unit", "connectivity")
VIEWS = {"units": "Hidden units that track something", "clamp": "Switch a unit off", "gates": "Gate saturation",
         "card": "Model card", "text": "Plain text"}
PASSAGES_SHOWN = {"excerpt": "a passage of the play (validation text)", "sample": "this sample"}
FEATURES = {  # what each feature of rnnviz.charlm.inspect.text_features means (the ranking's hover text)
    "newline": "the character is a line break",
    "position in line": "characters since the last line break",
    "speaker name": "inside a speaker's name (a line like 'ROMEO:' up to the colon)",
    "start of line": "the first character of a line",
    "inside quotes": "between an opening and a closing double quote",
    "space": "the character is a space",
    "vowel": "the character is a vowel",
    "uppercase": "the character is an uppercase letter",
}
Session = MutableMapping  # st.session_state, or a dict in a test


def label(ch: str) -> str:
    """A visible stand-in for whitespace: newline ↵, space ␣ (as on the hello page; a middle dot reads as a full
    stop on a projector), tab →."""
    return {"\n": "↵", " ": "␣", "\t": "→"}.get(ch, ch)


def temperature_sentence(t: float) -> str:
    return f"Temperature {t:g}: " + ("sharper than the model: safer, more repetitive." if t < 1 else
                                     "the model's own distribution." if t == 1 else
                                     "flatter: more surprises, more typos.")


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
        if not (0 <= pos < lesson.MAX_NEW and 0 <= code < 0x110000) or 0xD800 <= code < 0xE000 \
                or len(out) >= lesson.MAX_BRANCHES:
            raise ValueError(s)
        out[pos] = chr(code)
    return out


def dump_branches(forced: dict[int, str]) -> str:
    return ",".join(f"{pos}.{ord(ch)}" for pos, ch in sorted(forced.items()))




def from_0(hidden: int) -> tuple:
    """A unit's parser and writer for links: the page writes units from 1, a link keeps PyTorch's index from 0, as
    links did before the page counted from 1, so a link shared then (`unit=414`, c[414]) opens the same unit now."""
    parse = integer(0, hidden - 1)
    return (lambda s: parse(s) + 1), (lambda v: str(int(v) - 1))


def params(lm: CharLM) -> list[Param]:
    """The page's state a link carries: session key, name in the link, default, parser (and writer)."""
    spec = [("prime", "prime", "ROMEO:", text(500)), ("n", "n", 500, integer(1, lesson.MAX_NEW)),
            ("temp", "temp", 0.8, one_of(lesson.TEMPS)), ("top_k", "k", 0, integer(0, lm.vocab_size)),
            ("top_p", "p", 1.0, number(0.05, 1.0, 0.05)), ("greedy", "greedy", False, flag, dump_flag),
            ("seed", "seed", 1, integer(0, lesson.MAX_SEED)),
            ("forced", "branch", {}, parse_branches, dump_branches),
            ("pos", "pos", 6, integer(1, lesson.MAX_CHARS - 1)), ("shade", "shade", "probability", choice(SHADES)),
            ("state_open", "state", False, flag, dump_flag),
            ("layer", "layer", lm.num_layers, integer(1, lm.num_layers)), ("kind", "kind", "h", choice(["h", "c"])),
            ("unit", "unit", 1, *from_0(lm.hidden_size)), ("view", "view", "units", choice(VIEWS)),
            ("passage", "over", "excerpt", choice(list(PASSAGES_SHOWN))), ("span", "first", 0, one_of((0, *SPANS))),
            ("clamp_layer", "clayer", lm.num_layers, integer(1, lm.num_layers)),
            ("clamp_kind", "ckind", "h", choice(["h", "c"])),
            ("clamp_unit", "cunit", 1, *from_0(lm.hidden_size)),
            ("clamp_value", "cval", 0.0, number(-clamping.MAX_VALUE, clamping.MAX_VALUE, 0.1)),
            ("cpos", "cpos", -1, integer(-1, lesson.MAX_CHARS - 1))]  # -1: the character the clamp moves most
    return [Param(f"{P}.{key}", *rest) for key, *rest in spec]


LABELS = {"prime": "Prime text", "n": "Characters", "temp": "Temperature", "k": "Top-k (0 = off)",
          "p": "Top-p (1 = off)", "greedy": "Greedy", "seed": "Seed", "branch": "Branch from here", "pos": "Position",
          "shade": "Shade by", "layer": "Layer", "kind": "State", "unit": "Unit", "view": "Look inside",
          "state": "The hidden state after this character", "over": "Over",
          "first": "Over the first", "clayer": "Clamp layer", "ckind": "Clamp state", "cunit": "Clamp unit",
          "cval": "Clamp to", "cpos": "the character clicked in the free text"}  # each link name's control, as a
# notice names it (cpos: a click in the clamp view's free text, which has no label of its own)
LOOK_URLS = ("view", "over", "first", "clayer", "ckind", "cunit", "cval", "cpos")  # what "Look inside" publishes


def fit_to(lm: CharLM, session: Session) -> None:
    """Bring k, the layer, the unit and the length within what this model allows (an upload may be smaller or
    costlier than the shipped model)."""
    for key, most in (("top_k", lm.vocab_size), ("layer", lm.num_layers), ("unit", lm.hidden_size),
                      ("n", max(2, lesson.most_chars(lm, session[f"{P}.prime"]))),
                      ("clamp_layer", lm.num_layers), ("clamp_unit", lm.hidden_size)):
        session[f"{P}.{key}"] = min(session[f"{P}.{key}"], most)
    if not lm.cell_type.has_cell_state:
        session[f"{P}.clamp_kind"] = "h"


def check(lm: CharLM, prime: str, n: int, forced: dict[int, str]) -> tuple[tuple, list[str]]:
    """The forced characters that still apply, and what is wrong with the settings, in words (empty if nothing)."""
    bad = lesson.unknown_chars(lm, prime)
    problems = ["The prime text is empty."] if not prime else []
    if bad:
        problems.append("The model has never seen " + ", ".join(repr(c) for c in bad[:10])
                        + f"; remove {'them' if len(bad) > 1 else 'it'} from the prime.")
    if len(prime) >= lesson.max_chars(lm):
        problems.append(f"This model may read at most {lesson.max_chars(lm):,} characters here; shorten the prime.")
    return lesson.forced_within(lm, n, forced), problems


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
    """'A two-layer LSTM (512 units per layer, 65 characters) trained on …', from the model's card (unescaped)."""
    L, H = card["num_layers"], card["hidden_size"]
    depth = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight")[L] if L < 9 else str(L)
    corpus = card.get("corpus")
    size = f"{_count(H, 'unit')} per layer, {_count(vocab_size, 'character')}"
    trained = f" trained on {_show(corpus)}" if isinstance(corpus, str) and corpus else ""
    return f"A {depth}-layer {str(card['cell']).upper()} ({size})" + trained


def introduction(lm: CharLM) -> str:
    """The page's first words, in markdown: what the loaded model is and what the page shows of it."""
    return (md(describe(lm.card, lm.vocab_size)) + " writes one character at a time. Each character is shaded by how "
            "unlikely the model found it; click any character to see the distribution it was drawn from, or force a "
            "different one.")


def card_facts(card: dict, vocab_size: int) -> list[str]:
    """The model card as plain sentences (the page escapes them): sizes, training, validation loss."""
    facts = [f"{str(card['cell']).upper()}, {_count(card['num_layers'], 'layer')} of "
             f"{_count(card['hidden_size'], 'unit')}, embeddings of {card['embed_size']}, a vocabulary of "
             f"{_count(vocab_size, 'character')}."]
    if "steps" in card:
        get = lambda k: _show(card.get(k, "?"))  # noqa: E731
        facts.append(f"Trained on {get('corpus')} for {get('steps')} steps ({get('minutes')} min) on {get('device')} "
                     f"with torch {get('torch_version')}.")
    loss = lesson.validation_loss(card)
    if loss is not None:
        facts.append(f"Validation loss {loss.nats:.4f} nats per character ({loss.bits:.3f} bits), perplexity "
                     f"{loss.perplexity:.2f}, read as one stream from a zero state.")
    return facts


# ---- a sample: kept per server (the shipped model) or per session (an upload) -----------------------------------
SAMPLES = SharedCache(160 * 2 ** 20)  # the shipped model's samples (states included: ~8 MB per 500 characters)
PASSAGES = SharedCache(0)  # the shipped model's passage analyses, pinned


def sample_for(model_id: str, lm: CharLM, s: lesson.Settings, session: Session,
               progress: Callable[[float], None] | None = None, ahead: bool = False) -> lesson.Sample:
    """The shipped model's samples are drawn once per server (every visitor shares them); an upload's are kept in
    its visitor's session (`session`, e.g. st.session_state), the last one only. `progress(fraction done)`.
    The next seed's sample is then drawn ahead (see draw_ahead) on a visitor's first look at the page, and after
    each "Sample again" (`ahead`): the two moments a click on Sample again is likeliest to follow."""
    on_progress = None
    if progress:
        on_progress = lambda so_far: progress(min(1.0, (len(so_far) - len(s.prime)) / max(s.n, 1)))  # noqa: E731
    if model_id == "shipped":
        smp = SAMPLES.get((model_id, s), lambda: lesson.draw_sample(lm, s, on_progress), lambda v: v.nbytes)
        if ahead or not session.get(f"{P}.looked"):  # a class on one link: drawn once per server for them all
            session[f"{P}.looked"] = True
            draw_ahead(model_id, lm, s, analysed=session.get(f"{P}.passage") == "sample"
                       and session.get(f"{P}.view") not in ("text", "card"))
        return smp
    if session.get(f"{P}.sample", (None,))[0] != (model_id, s):
        session[f"{P}.sample"] = ((model_id, s), lesson.draw_sample(lm, s, on_progress))
    return session[f"{P}.sample"][1]


def draw_ahead(model_id: str, lm: CharLM, s: lesson.Settings, analysed: bool = False) -> bool:
    """After "Sample again": the shipped model's sample for the next seed, drawn in the background (one at a time per
    server), so that a visitor clicking through samples waits for the first one only; `analysed`: its units and gate
    saturation too (a visitor looking inside each new sample), kept as analysis_for keeps them."""
    nxt = replace(s, seed=s.seed + 1)
    if model_id != "shipped" or s.top_k == 1 or nxt.seed > lesson.MAX_SEED or lesson.is_long(lm, nxt):
        return False  # greedy: every seed gives the same text; long: whoever waits for it should see its progress

    def draw() -> lesson.Sample:
        smp = lesson.draw_sample(lm, nxt)
        if analysed:
            own_analysis(model_id, lm, smp)
        return smp
    return SAMPLES.fill_ahead((model_id, nxt), draw, lambda v: v.nbytes)


def summary(s: lesson.Sample) -> str:
    """How much of the text was read and how much sampled, and how likely the sampled part was."""
    g, mean = s.generated_from, lesson.mean_sampled_p(s)
    return (f"Prime (read, not sampled): {g} characters; then {len(s.text) - g} sampled. Mean probability of the "
            f"sampled characters {mean:.3f}." if mean is not None else "")


# ---- one position ---------------------------------------------------------------------------------------------
def sampled_name(info: lesson.Position) -> str | None:
    return None if info.sampled_top is None else "overruled by hand" if info.source == "forced" else "sampled from"


def top_rows(info: lesson.Position) -> list[tuple[str, float, float | None]]:
    """(character label, model p, sampled p or None) for the model's most likely characters."""
    sampled = dict(info.sampled_top or [])
    return [(label(c), p, sampled.get(c, 0.0) if info.sampled_top else None) for c, p in info.model_top]


def describe_position(info: lesson.Position) -> str:
    """One sentence about a position, in markdown (the character is quoted by the caller's escaping)."""
    how = {"prime": "read from the prime", "sampled": "sampled", "forced": "forced by hand (a branch)"}[info.source]
    b = info.surprisal_bits
    surprise = f"{fmt(b)} bits** ({fmt(b * math.log(2))} nats)" if math.isfinite(b) else "infinite**"
    return (f"{how}. The model gave it p = **{fmt(info.p_char)}**: a surprisal of **{surprise} "
            f"(−log₂ p; 1 bit = as surprising as a coin toss; 1 bit = ln 2 ≈ 0.693 nats).")


def _bits_nats(nats: float) -> str:
    """An entropy in bits, as the surprisal beside it, with nats after it: '**1.731 bits** (1.200 nats)'."""
    return f"**{fmt(nats / math.log(2))} bits** ({fmt(nats)} nats)"


def entropy_sentence(info: lesson.Position) -> str:
    """The entropies of the position's distributions, in bits like the surprisal beside them, and in nats (the
    loss's unit); eᴴ (H in nats) is about how many characters the model hesitates between."""
    m = _bits_nats(info.model_entropy)
    tail = (f" (entropy H, how unsure a distribution is: the mean surprisal. eᴴ ≈ {info.model_choices:.1f}, H in "
            "nats, or 2 to the power of H in bits, is about how many characters the model hesitates between).")
    if info.sampled_entropy is None:
        return f"Entropy of the model's distribution: {m}" + tail
    return (f"Entropy: {m} in the model's distribution, {_bits_nats(info.sampled_entropy)} in the one it was "
            f"{'chosen against' if info.source == 'forced' else 'sampled from'}" + tail)


def inspected(session: Session, length: int) -> int:
    """The character inspected, as an index into the text: the page's state and a link keep it from 0, clamped to
    the text (the first character has no prediction). The Position slider counts characters from 1, as the page's
    sentences do, on a key of its own, set here to the same character."""
    session[f"{P}.pos"] = i = min(max(1, session[f"{P}.pos"]), length - 1)
    session[f"{P}.char"] = i + 1
    return i


def char_moved(session: Session) -> None:
    """The Position slider moved: its character, counted from 1, as the index the page keeps."""
    session[f"{P}.pos"] = session[f"{P}.char"] - 1


def force_box(session: Session, i: int, char: str) -> None:
    """The "Force a character here" box starts on the character at position i, each time the position moves."""
    if session.get(f"{P}._force_at") != (i, char):
        session[f"{P}._force_at"], session[f"{P}.force_char"] = (i, char), char


# ---- shading: the numbers, with what the colours mean and each character's hover text -------------------------
@dataclass
class Shade:
    numbers: lesson.Shading
    titles: list[str]  # hover text per character
    caption: str  # what the colours mean
    ends: tuple[str, str] = ("likely", "unlikely")  # names of the scale's two ends


def shade(mode: str, lm: CharLM, s: lesson.Sample, i: int, unit: tuple[int, str, int] = (0, "h", 0),
          model_id: str | None = None, session: Session | None = None) -> Shade:
    """The text's colours by `mode` (one of SHADES): probability or surprisal of each character, a hidden unit's
    value after each character (`unit`: layer and unit from 0, as rnnviz indexes them; written from 1), or the
    connectivity of the prediction of text[i] to every character before it (kept as connectivity_for keeps it when
    the model's id and the visitor's session are given, else computed)."""
    chars = [repr(label(ch)) for ch in s.text]
    if mode == "hidden unit":
        layer, kind, u = unit
        sh = lesson.unit_shading(s, layer, kind, u)
        return Shade(sh, [f"{c}: {kind} of unit {u + 1} = {v:+.3f}" for c, v in zip(chars, sh.values)],
                     f"Grey: {kind} of unit {u + 1} in layer {layer + 1} positive, purple: negative, after each "
                     f"character (strongest ±{fmt(sh.hi)}). {UNITS_FROM_1}", ("−", "+"))
    if mode == "connectivity":
        sh = lesson.connectivity_shading(lm, s, i) if session is None else connectivity_for(model_id, lm, s, i, session)
        if i >= 1 and sh.peak is None:
            return Shade(sh, [f"{c}: not finite" for c in chars],
                         f"Connectivity of the prediction of character {i + 1}: this model's gradients overflow "
                         "(they are not finite numbers), so there is nothing to shade.",
                         ("none", "most"))
        top, where = (1.0, 0) if sh.peak is None else (float(sh.values[sh.peak]), sh.peak)
        titles = [f"{c}: ‖∂ log p / ∂e‖ = {v:.3g}" if j < i else f"{c}: read after character {i + 1}" if j > i else
                  f"{c}: the character predicted" for j, (c, v) in enumerate(zip(chars, sh.values))]
        return Shade(sh, titles, f"Connectivity of the prediction of character {i + 1} (outlined): how much each "
                     f"character read before it moved log p of what came, the length of the gradient ‖∂ log p / ∂e‖ "
                     f"with respect to its embedding e. The scale is set for this position: 0 to {top:.3g}, the "
                     f"largest, at character {where + 1} ({label(s.text[where])}); another position has its own, so "
                     "compare positions by the numbers (hover), not the shades. Characters after it were not read "
                     "yet.", ("0", f"{top:.3g}"))
    if mode == "surprisal":
        sh = lesson.surprisal_shading(s)
        return Shade(sh, [f"{c}: {b:.2f} bits" for c, b in zip(chars, sh.values)],
                     "Darker: more surprising. Surprisal −log₂ p in bits (0 = certain, 8 or more darkest).",
                     ("0 bits", "8+"))
    return Shade(lesson.probability_shading(s), [f"{c}: p = {fmt(p)}" for c, p in zip(chars, s.p_char)],
                 "Darker: less likely. Each character is shaded by 1 − p, the probability the model (temperature 1) "
                 "gave it before it appeared.")


def legend_markup(caption: str, lo_label: str, hi_label: str, signed: bool = False, font_scale: float = 1.0,
                  note: str = "") -> str:
    """A small colour ramp with its two ends named, then what the colours mean, and a note below (all escaped)."""
    ramp = ", ".join(f"{c} {s * 100:.0f}%" for s, c in (SIGNED if signed else SEQUENTIAL))
    e = lambda s: html.escape(s, quote=True)  # noqa: E731
    return (f'<div style="font-size:{13.5 * font_scale:.1f}px;line-height:1.4;color:#444;margin-top:4px">'
            f'<span style="white-space:nowrap">{e(lo_label)} <span style="display:inline-block;width:90px;'
            f'height:0.8em;vertical-align:middle;border:1px solid #bbb;background:linear-gradient(90deg,{ramp})">'
            f'</span> {e(hi_label)}</span> &nbsp;{e(caption)}'
            + (f'<div style="color:#666;margin-top:6px">{e(note)}</div>' if note else "") + "</div>")


# ---- connectivity: kept per server (the shipped model) or per session (an upload), the next position ahead -------
CONNECTIVITY = SharedCache(16 * 2 ** 20)  # the shipped model's, by text and position (at most ~20 KB each)
KEPT_PER_SESSION = 8  # an upload's: the positions a visitor looked at last


def connectivity_for(model_id: str, lm: CharLM, smp: lesson.Sample, i: int, session: Session) -> lesson.Shading:
    """The connectivity shading of the prediction of text[i]: one backward pass through everything read before it
    (0.14 s at character 350 on the shipped model), so it is kept. For the shipped model it is kept once per server
    (a class looking at one link computes it once), and the neighbouring position, the next one in the direction the
    visitor last moved, is computed ahead in the background (one at a time per server): a visitor stepping through
    positions with the arrow keys finds each one ready. An upload's last few are kept in its visitor's session."""
    key, last = (model_id, smp.text, i), session.get(f"{P}._conn_at")
    session[f"{P}._conn_at"] = i

    def work(at: int) -> Callable[[], lesson.Shading]:
        def compute() -> lesson.Shading:
            sh = lesson.connectivity_shading(lm, smp, at)
            sh.values.setflags(write=False)  # shared by every visitor: none may change another's
            return sh
        return compute
    if model_id != "shipped":
        kept = session.setdefault(f"{P}.conn", {})
        if key not in kept:
            kept[key] = work(i)()
            for old in list(kept)[:-KEPT_PER_SESSION]:
                del kept[old]
        return kept[key]
    sh = CONNECTIVITY.get(key, work(i), lambda v: v.values.nbytes)
    nxt = i - 1 if last == i + 1 else i + 1  # the way the visitor was going; forwards to begin with
    if 1 <= nxt < len(smp.text):
        CONNECTIVITY.fill_ahead((model_id, smp.text, nxt), work(nxt), lambda v: v.values.nbytes, delay=0.05)
    return sh


# ---- a passage analysed: kept per server, per session, or with the sample ------------------------------------
OWN = SharedCache(24 * 2 ** 20)  # the shipped model's samples analysed (~0.3 MB each)


def own_analysis(model_id: str, lm: CharLM, smp: lesson.Sample) -> PassageAnalysis:
    """The shipped model's sample analysed, once per server: it depends on the text alone (the states are the
    model's run over it), so every visitor whose sample reads the same shares it."""
    def analysed() -> PassageAnalysis:
        a = lesson.analyse_sample(lm, smp)
        for arr in [x for span in a.saturation.values() for layer in span for pair in layer.values() for x in pair] \
                + [x for layer in a.closed for x in layer.values()]:
            arr.setflags(write=False)  # shared by every visitor: none may change another's
        return a
    return OWN.get((model_id, smp.text), analysed)


_WARM = {"started": False}
_WARM_LOCK = threading.Lock()
WARM_DELAY = 1.0  # s: the first page is drawn before the work starts (a Python thread shares the interpreter)


def warm_up() -> bool:
    """Once per server, after its first run (whatever page): the shipped model's excerpt analysed in a thread of its
    own, as the sampling page's first look inside needs it (3.3 s here, 6-11 s on a loaded machine: a new server's
    first visitor to that page waited for it with nothing cached). A visitor asking sooner computes it, and the
    thread then finds it done (SharedCache: one computation per key); one asking while the thread reads waits for it
    (an empty progress bar, which a newer click cannot stop). Whether this call started the thread."""
    with _WARM_LOCK:
        if _WARM["started"]:
            return False
        _WARM["started"] = True

    def work():
        try:
            time.sleep(WARM_DELAY)
            lm = shipped_model(str(SHIPPED_MODEL))
            passage = lesson.excerpt(lm)
            PASSAGES.get(("shipped", passage), lambda: lesson.analyse_passage(lm, passage), pinned=True)
        except Exception:  # nobody waits for it: the page computes it when asked, and shows any error then
            logging.getLogger(__name__).exception("warming up the sampling page failed")
    threading.Thread(target=work, name="rnnviz-warm-up", daemon=True).start()
    return True


def analysis_for(model_id: str, lm: CharLM, smp: lesson.Sample, over: str, session: Session,
                 progress: Callable[[float], None] | None = None) -> PassageAnalysis:
    """The sample (its own states: no rerun; once per server for the shipped model, see own_analysis), or the excerpt
    analysed once per server for the shipped model (pinned: visitors' uploads cannot evict it) and once per session
    for an upload (`session`, e.g. st.session_state).
    `progress(fraction done)` while the excerpt is read: a point where a newer click can stop the work."""
    if over == "sample" and model_id == "shipped":
        return own_analysis(model_id, lm, smp)
    if over == "sample":  # kept for the session while the sample is the same object
        if session.get(f"{P}.own", (None,))[0] is not smp:
            session[f"{P}.own"] = (smp, lesson.analyse_sample(lm, smp))
        return session[f"{P}.own"][1]
    passage = lesson.excerpt(lm)
    work = lambda: lesson.analyse_passage(lm, passage, progress)  # noqa: E731
    if model_id == "shipped":
        if progress and (model_id, passage) not in PASSAGES:  # a bar from the start: the server's warm-up may be
            progress(0.0)  # reading it (see warm_up), and a visitor waiting for that sees no progress of their own
        return PASSAGES.get((model_id, passage), work, pinned=True)
    if session.get(f"{P}.analysis", (None,))[0] != (model_id, passage):
        session[f"{P}.analysis"] = ((model_id, passage), work())
    return session[f"{P}.analysis"][1]


def unit_name(h: UnitHit) -> str:
    """'layer 2 c unit 415': units count from 1 on the page (rnnviz and PyTorch index them from 0: c[414])."""
    return f"layer {h.layer + 1} {h.kind} unit {h.unit + 1}"


def unit_choice(h: UnitHit) -> str:
    return f"{unit_name(h)} ({h.feature})"


def unit_rows(hits: list[UnitHit]) -> list[dict]:
    """The ranking as table rows: strength |r| drawn as a bar, the sign said in words."""
    return [{"feature": h.feature, "unit": unit_name(h), "strength": abs(h.r), "r": f"{h.r:+.3f}".replace("-", "−"),
             "direction": "rises with it" if h.r >= 0 else "falls with it", "what": FEATURES[h.feature]} for h in hits]


def unit_state(hits: list[UnitHit], rows: list[int | None]) -> dict:
    """The page's state that shades the text by the unit in the chosen row (and asks for a full rerun)."""
    return {f"{P}.{k}": v for h in [hits[r] for r in rows[:1] if r is not None] for k, v in
            (("shade", "hidden unit"), ("layer", h.layer + 1), ("kind", h.kind), ("unit", h.unit + 1), ("_app", 1))}


def spans(a: PassageAnalysis, session: Session) -> list[int]:
    """The "over the first N characters" options for this passage; a span it does not reach becomes the whole."""
    options = lesson.span_choices(a)
    session[f"{P}.span"] = session[f"{P}.span"] if session[f"{P}.span"] in options else 0
    return options


UNITS_FROM_1 = ("Units count from 1, as on every page; PyTorch indexes them from 0, so unit 415 here is c[414] in "
                "PyTorch (h[0] is unit 1).")


def ranking_caption(a: PassageAnalysis) -> str:
    return (f"Over {a.chars:,} characters: r is the correlation between a unit's value and the feature; the bar is "
            "its size |r|, its sign says whether the unit rises or falls with it. Hover over a feature for what it "
            f"means. {UNITS_FROM_1} A correlation says what a unit follows, not that the model uses it: \"Switch a "
            "unit off\" tests that." + (f" {note}" if (note := shared_units_note(a.hits)) else ""))


def shared_units_note(hits: list[UnitHit], one: str = "speaker name", other: str = "uppercase") -> str | None:
    """When the units that track speaker names are among those that track uppercase letters, say so: in the play a
    speaker's name is written in capitals ('ROMEO:'), so one unit can seem to track both."""
    names = {unit_name(h) for h in hits if h.feature == one}
    both = sorted(names & {unit_name(h) for h in hits if h.feature == other})
    if not both:
        return None
    return (f"The \"{one}\" units are \"{other}\" units too ({', '.join(both)}): in the play a speaker's name is "
            "written in capitals (ROMEO:), so a unit that follows capitals follows names, and this ranking cannot "
            "tell which of the two it tracks.")


def forget_means(a: PassageAnalysis) -> str:
    """'layer 1: 0.166 of steps below 0.1, 0.542 above 0.9; ...' for the forget (LSTM) or update (GRU) gate."""
    return "; ".join(f"layer {k}: {fmt(lo)} of steps below 0.1, {fmt(hi)} above 0.9"
                     for k, lo, hi in lesson.forget_saturation(a))


SATURATION_ALT = "gate saturation: one dot per unit and gate, at the fraction of steps below 0.1 and above 0.9"
CLOSED_TITLE = "Share of units with the gate closed (< 0.1)"
CLOSED_ALT = "share of units with a closed gate at each stretch of the text, per layer and gate"


def saturation_title(n: int) -> str:
    return f"Each unit's gates over the first {n:,} characters"


def saturation_caption(a: PassageAnalysis) -> str:
    return (f"Mean over units, over all {a.chars:,} characters, forget gates (update gates of a GRU): "
            f"{forget_means(a)}. A dot at the right is a gate almost always closed (below 0.1), at the top one almost "
            "always open (above 0.9).")


# ---- switch a unit off: the same sample with one unit clamped ------------------------------------------------
CLAMPS = SharedCache(48 * 2 ** 20)  # the shipped model's clamp experiments (~0.7 MB per 500 characters)
REFERENCES = SharedCache(2 * 2 ** 20)  # the free model's next-seed text, the reference a clamp is measured beside
STATISTIC_NAMES = {  # what rnnviz.lessons.clamp.STATISTICS measures for each finder feature, and its unit
    "newline": ("line breaks per 100 characters", ""),
    "position in line": ("mean length of a line of speech", ""),
    "speaker name": ("speaker names ('ROMEO:' lines)", ""),
    "start of line": ("lines ended", ""),
    "inside quotes": ("characters inside quotes", "%"),
    "space": ("spaces", "%"),
    "vowel": ("vowels", "%"),
    "uppercase": ("uppercase letters", "%"),
}
CLAMP_CONTRAST = (
    "The finder above ranks units by **correlation**: a unit whose value rises and falls with the position in the "
    "line. That alone does not say the model **uses** it. Here you **intervene**: hold one unit at a value at every "
    "character and sample again with the same seed. If the predictions and the text change, the unit is part of how "
    "the model writes (causal evidence); if nothing changes, the correlation was a by-product. Two units that "
    "correlate equally well can matter very differently.")
CLAMP_KL_ALT = "KL divergence between the free and the clamped model's next-character distributions at each character"


def clamp_of(session: Session) -> Clamp:
    """The clamp the controls describe (layers and units count from 1 on the page, from 0 in rnnviz)."""
    return Clamp(session[f"{P}.clamp_layer"] - 1, session[f"{P}.clamp_kind"], session[f"{P}.clamp_unit"] - 1,
                 float(session[f"{P}.clamp_value"]))


def clamp_name(c: Clamp) -> str:
    return f"layer {c.layer + 1} {c.kind} unit {c.unit + 1}"


def clamp_for(model_id: str, lm: CharLM, s: lesson.Settings, smp: lesson.Sample, c: Clamp, session: Session,
              progress: Callable[[float], None] | None = None) -> clamping.ClampEffect:
    """The sample beside the same sample with `c` held: once per server for the shipped model (every visitor shares
    it), the last one in the visitor's session for an upload. The work of about three samples, each within the
    page's sample budget: the clamped draw, the clamped model reading the first text, and the next seed's free
    text (the shipped model's is usually drawn ahead already)."""
    ref = replace(s, seed=s.seed + 1 if s.seed < lesson.MAX_SEED else s.seed - 1)
    key = (model_id, s, c)
    if model_id == "shipped":
        reference = (SAMPLES.get((model_id, ref), lambda: lesson.draw_sample(lm, ref), lambda v: v.nbytes).text
                     if (model_id, ref) in SAMPLES else
                     REFERENCES.get((model_id, ref), lambda: _free_text(lm, ref), lambda v: 4 * len(v)))
        return CLAMPS.get(key, lambda: clamping.clamp_effect(lm, s, smp, c, reference, progress), lambda v: v.nbytes)
    if session.get(f"{P}.clamped", (None,))[0] != key:
        session[f"{P}.clamped"] = (key, clamping.clamp_effect(lm, s, smp, c, _free_text(lm, ref), progress))
    return session[f"{P}.clamped"][1]


def _free_text(lm: CharLM, s: lesson.Settings) -> str:
    return lm.generate_trace(s.prime, s.n, s.temperature, s.top_k, s.top_p, s.seed, keep_states=False,
                             forced=dict(s.forced)).text


def clamp_finder_hits(hits: list[UnitHit], c: Clamp) -> list[UnitHit]:
    """The finder's rows for the clamped unit (empty when the finder did not rank it)."""
    return [h for h in hits if (h.layer, h.kind, h.unit) == (c.layer, c.kind, c.unit)]


def clamp_summary(e: clamping.ClampEffect, seed: int) -> str:
    """What the clamp changed, in markdown: where the texts part ways, the KL over the text."""
    kl = e.kl[1:]
    held = f"With **{clamp_name(e.clamp)} = {e.clamp.value:g}** at every character".replace("-", "−")
    where = ("the text is the same" if e.first_change is None else
             f"the text (seed {seed}) is the same up to character {e.first_change}, then parts ways")  # from 1
    if not len(kl):
        return f"{held}, {where}."
    top = int(np.nanargmax(kl)) + 1
    return (f"{held}, {where}. On the first text, KL(before ‖ after) is **{fmt(np.nanmean(kl), 4)}** nats per "
            f"character on average, largest **{fmt(kl[top - 1])}** at character {top + 1} ({label(e.before[top])}): "
            "how far the clamp moves the model's next-character distribution, character by character, reading the same "
            "text.")


def clamp_range(e: clamping.ClampEffect) -> str:
    """The unit's own values in the free run, so a value to clamp to can be chosen within them."""
    v = e.unit_before
    return (f"In the free run, {clamp_name(e.clamp)} goes from {float(v.min()):+.3f} to {float(v.max()):+.3f} "
            f"(mean {float(v.mean()):+.3f}). Held near its mean, a unit changes little; its ends show what it "
            "does.").replace("-", "−")


def _stat(v: float, unit: str) -> str:
    return "none" if math.isnan(v) else f"{v:,.1f}{unit}"


def statistic_rows(e: clamping.ClampEffect, tracked: list[UnitHit]) -> list[tuple[str, ...]]:
    """(feature, statistic, before, after, the next seed unclamped, p of the first text's characters with the feature:
    free → clamped) per feature; the features the finder says this unit tracks come first, marked with their r."""
    r = {h.feature: h.r for h in tracked}
    order = sorted(e.statistics, key=lambda f: f not in r)
    p = lambda f: "none" if math.isnan(e.char_p[f][0]) else " → ".join(map(fmt, e.char_p[f]))  # noqa: E731
    return [(f + (f" (r = {r[f]:+.2f})".replace("-", "−") if f in r else ""), STATISTIC_NAMES[f][0],
             *(_stat(v, STATISTIC_NAMES[f][1]) for v in e.statistics[f]), p(f)) for f in order]


def statistics_caption(seed: int, tracked: list[UnitHit]) -> str:
    what = ("The finder ranked this unit for " + ", ".join(sorted({h.feature for h in tracked})) + ": its rows come "
            "first. " if tracked else "The finder did not rank this unit among the top three for any feature. ")
    return (what + f"Measured on the whole texts (prime included): before (seed {seed}), after (seed {seed}, unit "
            f"clamped), and the free model with seed {seed + 1}. Any change, even a tiny one, makes the two texts part "
            "ways within a few dozen characters (one draw is sensitive to everything), so compare the change with "
            "how much the next seed alone moves the numbers. The last column does not depend on the draw: the mean "
            "probability the free and the clamped model give the first text's own characters of that kind (its line "
            "breaks, for position in line), both reading that text.")


CLAMP_VALUE_HELP = ("The value the unit is held at after every character, the start included. 0 switches it off; a "
                    "hidden state h stays within −1 and 1 by itself (tanh), a cell state c can go further.")
CLAMP_KIND_HELP = ("h: the hidden state, what the layer above, the next character and the prediction read. c: an "
                   "LSTM's cell state, its memory, held after each character, so the next character reads the value "
                   "(the unit's h at that character was already made from the memory just written).")
BEFORE_TITLE = "**Before** (free), shaded by how much the clamp moves the prediction of each character:"
BEFORE_ALT = ("The free sample, each character shaded by KL(before ‖ after). Click a character to compare its "
              "distributions.")
KL_CAPTION = ("Darker: the clamped model's distribution for this character differs more from the free one's, "
              "KL(before ‖ after) in nats, both reading the same text. Click a character to see both.")
AFTER_TITLE = "**After** (the unit clamped, same seed); faded where it is still the same text:"
KL_TITLE = "KL per character"
STATISTICS_HEAD = ("feature the finder looks for", "measured in the text as", "before", "after", "next seed",
                   "p of its characters")


def clamp_state(hits: list[UnitHit], row: int | None) -> dict:
    """The clamp controls set to the finder's unit in `row` (nothing when none is chosen)."""
    if row is None:
        return {}
    h = hits[row]
    return {f"{P}.clamp_layer": h.layer + 1, f"{P}.clamp_kind": h.kind, f"{P}.clamp_unit": h.unit + 1}


def clamp_rows(lm: CharLM, e: clamping.ClampEffect, i: int, top: int = 8) -> list[tuple[str, float, float]]:
    """(character label, free p, clamped p) for the characters most likely in either distribution at position i."""
    pb, pa = e.p_before[i], e.p_after[i]
    ids = np.argsort(-np.maximum(pb, pa), kind="stable")[:top]
    return [(label(lm.itos[j]), float(pb[j]), float(pa[j])) for j in ids]


def position_sentence(lm: CharLM, e: clamping.ClampEffect, i: int) -> str:
    """One character of the first text: its KL, and the probability the free and the clamped model gave it."""
    j = lm.stoi[e.before[i]]
    return (f"Character **{i + 1}**: {md(repr(label(e.before[i])))}, KL(before ‖ after) = **{fmt(e.kl[i], 4)}** nats; "
            f"p = {fmt(e.p_before[i, j])} free, {fmt(e.p_after[i, j])} clamped.")
