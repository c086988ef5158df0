"""The sampling page's words: the model and each position in sentences, the ranking's and the gate saturation's
captions, and "Switch a unit off": what the clamp changed, its statistics, titles and help texts (markdown or
escaped by the caller). The numbers they say are rnnviz.lessons.sample's and rnnviz.lessons.clamp's."""
from __future__ import annotations

import html
import math

import numpy as np

from rnnviz.charlm import CharLM, Clamp
from rnnviz.charlm.inspect import PassageAnalysis, UnitHit
from rnnviz.figures.sample import SEQUENTIAL, SIGNED
from rnnviz.lessons import clamp as clamping, sample as lesson
from rnnviz.text import fmt
from ui.widgets import md

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


def label(ch: str) -> str:
    """A visible stand-in for whitespace: newline ↵, space ␣ (as on the hello page; a middle dot reads as a full
    stop on a projector), tab →."""
    return {"\n": "↵", " ": "␣", "\t": "→"}.get(ch, ch)


def temperature_sentence(t: float) -> str:
    return f"Temperature {t:g}: " + ("sharper than the model: safer, more repetitive." if t < 1 else
                                     "the model's own distribution." if t == 1 else
                                     "flatter: more surprises, more typos.")


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


# ---- a sample and one position --------------------------------------------------------------------------------
def summary(s: lesson.Sample) -> str:
    """How much of the text was read and how much sampled, and how likely the sampled part was."""
    g, mean = s.generated_from, lesson.mean_sampled_p(s)
    return (f"Prime (read, not sampled): {g} characters; then {len(s.text) - g} sampled. Mean probability of the "
            f"sampled characters {mean:.3f}." if mean is not None else "")


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


# ---- hidden units and gate saturation ------------------------------------------------------------------------
def unit_name(h: UnitHit) -> str:
    """'layer 2 c unit 415': units count from 1 on the page (rnnviz and PyTorch index them from 0: c[414])."""
    return f"layer {h.layer + 1} {h.kind} unit {h.unit + 1}"


def unit_choice(h: UnitHit) -> str:
    return f"{unit_name(h)} ({h.feature})"


def unit_rows(hits: list[UnitHit]) -> list[dict]:
    """The ranking as table rows: strength |r| drawn as a bar, the sign said in words."""
    return [{"feature": h.feature, "unit": unit_name(h), "strength": abs(h.r), "r": f"{h.r:+.3f}".replace("-", "−"),
             "direction": "rises with it" if h.r >= 0 else "falls with it", "what": FEATURES[h.feature]} for h in hits]


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


# ---- switch a unit off: what the clamp changed -----------------------------------------------------------------
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


def clamp_name(c: Clamp) -> str:
    return f"layer {c.layer + 1} {c.kind} unit {c.unit + 1}"


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
