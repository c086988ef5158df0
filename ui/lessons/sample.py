"""The sampling page's words, link values, session keys and cache policy (its numbers are rnnviz.lessons.sample's):
what a link may say, the model and each position in sentences, the shading's captions and hover texts, and which
samples and analyses are kept once per server (the shipped model's, every visitor shares them) or in the visitor's
session (an upload's), with the next seed's sample drawn ahead."""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, replace
from typing import Callable, MutableMapping

from rnnviz.charlm import CharLM
from rnnviz.charlm.inspect import SPANS, PassageAnalysis, UnitHit
from rnnviz.figures.sample import SEQUENTIAL, SIGNED
from rnnviz.lessons import sample as lesson
from rnnviz.lessons.cache import SharedCache
from ui.urlstate import Param, choice, dump_flag, flag, integer, name_controls, number, text
from ui.widgets import md

P = "sample"  # the page's prefix of widget and session keys
SHADES = ("probability", "surprisal", "hidden unit", "connectivity")
VIEWS = {"units": "Hidden units that track something", "gates": "Gate saturation", "card": "Model card",
         "text": "Plain text"}
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


name_controls({  # each control's label, for notices about a link (tests check them against the page)
    f"{P}.prime": "Prime text", f"{P}.n": "Characters", f"{P}.temp": "Temperature", f"{P}.top_k": "Top-k (0 = off)",
    f"{P}.top_p": "Top-p (1 = off)", f"{P}.greedy": "Greedy", f"{P}.seed": "Seed", f"{P}.pos": "Position",
    f"{P}.shade": "Shade by", f"{P}.view": "Look inside", f"{P}.passage": "Over",
})


def params(lm: CharLM) -> list[Param]:
    """The page's state a link carries: session key, name in the link, default, parser (and writer)."""
    spec = [("prime", "prime", "ROMEO:", text(500)), ("n", "n", 500, integer(1, lesson.MAX_NEW)),
            ("temp", "temp", 0.8, one_of(lesson.TEMPS)), ("top_k", "k", 0, integer(0, lm.vocab_size)),
            ("top_p", "p", 1.0, number(0.05, 1.0, 0.05)), ("greedy", "greedy", False, flag, dump_flag),
            ("seed", "seed", 1, integer(0, lesson.MAX_SEED)),
            ("forced", "branch", {}, parse_branches, dump_branches),
            ("pos", "pos", 6, integer(1, lesson.MAX_CHARS - 1)), ("shade", "shade", "probability", choice(SHADES)),
            ("layer", "layer", lm.num_layers, integer(1, lm.num_layers)), ("kind", "kind", "h", choice(["h", "c"])),
            ("unit", "unit", 0, integer(0, lm.hidden_size - 1)), ("view", "view", "units", choice(VIEWS)),
            ("passage", "over", "excerpt", choice(list(PASSAGES_SHOWN))), ("span", "first", 0, one_of((0, *SPANS)))]
    return [Param(f"{P}.{key}", *rest) for key, *rest in spec]


def fit_to(lm: CharLM, session: Session) -> None:
    """Bring k, the layer, the unit and the length within what this model allows (an upload may be smaller or
    costlier than the shipped model)."""
    for key, most in (("top_k", lm.vocab_size), ("layer", lm.num_layers), ("unit", lm.hidden_size - 1),
                      ("n", max(2, lesson.most_chars(lm, session[f"{P}.prime"])))):
        session[f"{P}.{key}"] = min(session[f"{P}.{key}"], most)


def check(lm: CharLM, prime: str, n: int, forced: dict[int, str]) -> tuple[tuple, list[str]]:
    """The forced characters that still apply, and what is wrong with the settings, in words (empty if nothing)."""
    bad = lesson.unknown_chars(lm, prime)
    problems = ["The prime text is empty."] if not prime else []
    if bad:
        problems.append("The model has never seen " + ", ".join(repr(c) for c in bad[:10]) + "; remove it from the "
                        "prime.")
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
            draw_ahead(model_id, lm, s)
        return smp
    if session.get(f"{P}.sample", (None,))[0] != (model_id, s):
        session[f"{P}.sample"] = ((model_id, s), lesson.draw_sample(lm, s, on_progress))
    return session[f"{P}.sample"][1]


def draw_ahead(model_id: str, lm: CharLM, s: lesson.Settings) -> bool:
    """After "Sample again": the shipped model's sample for the next seed, drawn in the background (one at a time per
    server), so that a visitor clicking through samples waits for the first one only."""
    nxt = replace(s, seed=s.seed + 1)
    if model_id != "shipped" or s.top_k == 1 or nxt.seed > lesson.MAX_SEED or lesson.is_long(lm, nxt):
        return False  # greedy: every seed gives the same text; long: whoever waits for it should see its progress
    return SAMPLES.fill_ahead((model_id, nxt), lambda: lesson.draw_sample(lm, nxt), lambda v: v.nbytes)


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
    surprise = f"{b:.2f} bits** ({b * math.log(2):.2f} nats)" if math.isfinite(b) else "infinite**"
    return (f"{how}. The model gave it p = **{info.p_char:.3f}**: a surprisal of **{surprise} "
            f"(−log₂ p; 1 bit = as surprising as a coin toss; 1 bit = ln 2 ≈ 0.693 nats).")


def _bits_nats(nats: float) -> str:
    """An entropy in bits, as the surprisal beside it, with nats after it: '**1.731 bits** (1.200 nats)'."""
    return f"**{nats / math.log(2) + 0.0:.3f} bits** ({nats + 0.0:.3f} nats)"


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


def shade(mode: str, lm: CharLM, s: lesson.Sample, i: int, unit: tuple[int, str, int] = (0, "h", 0)) -> Shade:
    """The text's colours by `mode` (one of SHADES): probability or surprisal of each character, a hidden unit's
    value after each character, or the connectivity of the prediction of text[i] to every character before it."""
    chars = [repr(label(ch)) for ch in s.text]
    if mode == "hidden unit":
        layer, kind, u = unit
        sh = lesson.unit_shading(s, layer, kind, u)
        return Shade(sh, [f"{c}: {kind}[{layer + 1}][{u}] = {v:+.3f}" for c, v in zip(chars, sh.values)],
                     f"Grey: {kind} of unit {u} in layer {layer + 1} positive, purple: negative, after each "
                     f"character (strongest ±{sh.hi:.3f}). {UNITS_FROM_0}", ("−", "+"))
    if mode == "connectivity":
        sh = lesson.connectivity_shading(lm, s, i)
        if i >= 1 and sh.peak is None:
            return Shade(sh, [f"{c}: not finite" for c in chars], f"Connectivity of the prediction of character {i}: "
                         "this model's gradients overflow (they are not finite numbers), so there is nothing to shade.",
                         ("none", "most"))
        top, where = (1.0, 0) if sh.peak is None else (float(sh.values[sh.peak]), sh.peak)
        titles = [f"{c}: ‖∂ log p / ∂e‖ = {v:.3g}" if j < i else f"{c}: read after position {i}" if j > i else
                  f"{c}: the character predicted" for j, (c, v) in enumerate(zip(chars, sh.values))]
        return Shade(sh, titles, f"Connectivity of the prediction of character {i} (outlined): how much each "
                     f"character read before it moved log p of what came, the length of the gradient ‖∂ log p / ∂e‖ "
                     f"with respect to its embedding e. The scale is set for this position: 0 to {top:.3g}, the "
                     f"largest, at position {where} ({label(s.text[where])}); another position has its own, so "
                     "compare positions by the numbers (hover), not the shades. Characters after it were not read "
                     "yet.", ("0", f"{top:.3g}"))
    if mode == "surprisal":
        sh = lesson.surprisal_shading(s)
        return Shade(sh, [f"{c}: {b:.2f} bits" for c, b in zip(chars, sh.values)],
                     "Darker: more surprising. Surprisal −log₂ p in bits (0 = certain, 8 or more darkest).",
                     ("0 bits", "8+"))
    return Shade(lesson.probability_shading(s), [f"{c}: p = {p:.3f}" for c, p in zip(chars, s.p_char)],
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


# ---- a passage analysed: kept per server, per session, or with the sample ------------------------------------
def analysis_for(model_id: str, lm: CharLM, smp: lesson.Sample, over: str, session: Session,
                 progress: Callable[[float], None] | None = None) -> PassageAnalysis:
    """The sample (its own states: no rerun), or the excerpt analysed once per server for the shipped model (pinned:
    visitors' uploads cannot evict it) and once per session for an upload (`session`, e.g. st.session_state).
    `progress(fraction done)` while the excerpt is read: a point where a newer click can stop the work."""
    if over == "sample":  # kept for the session while the sample is the same object
        if session.get(f"{P}.own", (None,))[0] is not smp:
            session[f"{P}.own"] = (smp, lesson.analyse_sample(lm, smp))
        return session[f"{P}.own"][1]
    passage = lesson.excerpt(lm)
    work = lambda: lesson.analyse_passage(lm, passage, progress)  # noqa: E731
    if model_id == "shipped":
        return PASSAGES.get((model_id, passage), work, pinned=True)
    if session.get(f"{P}.analysis", (None,))[0] != (model_id, passage):
        session[f"{P}.analysis"] = ((model_id, passage), work())
    return session[f"{P}.analysis"][1]


def unit_name(h: UnitHit) -> str:
    return f"layer {h.layer + 1} {h.kind}[{h.unit}]"


def unit_choice(h: UnitHit) -> str:
    return f"{unit_name(h)} ({h.feature})"


def unit_rows(hits: list[UnitHit]) -> list[dict]:
    """The ranking as table rows: strength |r| drawn as a bar, the sign said in words."""
    return [{"feature": h.feature, "unit": unit_name(h), "strength": abs(h.r), "r": f"{h.r:+.3f}".replace("-", "−"),
             "direction": "rises with it" if h.r >= 0 else "falls with it", "what": FEATURES[h.feature]} for h in hits]


def unit_state(hits: list[UnitHit], rows: list[int | None]) -> dict:
    """The page's state that shades the text by the unit in the chosen row (and asks for a full rerun)."""
    return {f"{P}.{k}": v for h in [hits[r] for r in rows[:1] if r is not None] for k, v in
            (("shade", "hidden unit"), ("layer", h.layer + 1), ("kind", h.kind), ("unit", h.unit), ("_app", 1))}


def spans(a: PassageAnalysis, session: Session) -> list[int]:
    """The "over the first N characters" options for this passage; a span it does not reach becomes the whole."""
    options = lesson.span_choices(a)
    session[f"{P}.span"] = session[f"{P}.span"] if session[f"{P}.span"] in options else 0
    return options


UNITS_FROM_0 = ("This page counts units from 0, as PyTorch indexes them (h[0] is the first unit); the other pages "
                "count from 1 (u1).")


def ranking_caption(a: PassageAnalysis) -> str:
    return (f"Over {a.chars:,} characters: r is the correlation between a unit's value and the feature; the bar is "
            "its size |r|, its sign says whether the unit rises or falls with it. Hover over a feature for what it "
            f"means. {UNITS_FROM_0}" + (f" {note}" if (note := shared_units_note(a.hits)) else ""))


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
    return "; ".join(f"layer {k}: {lo:.3f} of steps below 0.1, {hi:.3f} above 0.9"
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
