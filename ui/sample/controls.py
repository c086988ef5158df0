"""The sampling page's controls: the state a link carries (session key, link name, default, parser), each link
name's control label, the options of its choices, and the session keys the controls set for each other (the inspected
position, the unit a ranking row picks, the clamp a finder row picks). Parsers: ui/sample/links.py."""
from __future__ import annotations

import functools

from rnnviz.charlm import CharLM, Clamp
from rnnviz.charlm.inspect import SPANS, PassageAnalysis, UnitHit
from rnnviz.lessons import clamp as clamping, sample as lesson
from rnnviz.nn.sampling import SamplingSettings
from ui.controls import Control, Controls
from ui.sample import P, Session
from ui.sample.links import dump_branches, from_0, parse_branches
from ui.urlstate import Param

SHADES = ("probability", "surprisal", "hidden unit", "connectivity")
VIEWS = {"units": "Hidden units that track something", "clamp": "Switch a unit off", "gates": "Gate saturation",
         "card": "Model card", "text": "Plain text"}
# "Switch a unit off" opens on the shipped model's line-position unit: its top layer's c unit 415 (counted from 1),
# the finder's first for "position in line" over the excerpt (r = -0.86). Held at 0 it takes the line breaks away
# (p of the sample's own breaks 0.965 -> 0.095); unit 1, the default before, moved 0.0006 nats a character. On
# another model it is one unit among others (fit_to brings it within the model's size).
LINE_UNIT = 415
PASSAGES_SHOWN = {"excerpt": "a passage of the play (validation text)", "sample": "this sample"}


def declared(lm: CharLM) -> Controls:
    """The page's controls for this model (its vocabulary, layers and units bound k, the layer and the unit)."""
    return _declared(lm.vocab_size, lm.num_layers, lm.hidden_size, lm.cell_type.has_cell_state)


def prime_only() -> list[Param]:
    """What a link carries of the page without a model to size the rest: the prime."""
    return _declared(1, 1, 1, False).params_of("prime")


@functools.lru_cache(maxsize=64)
def _declared(vocab: int, layers: int, hidden: int, cell_state: bool) -> Controls:
    unit, unit_dump = from_0(hidden)
    return Controls(
        P,
        Control("prime", "Prime text", "ROMEO:", kind="text", url="prime", max_chars=500,
                help="What the model reads before it writes."),
        Control("n", "Characters", 500, lo=1, hi=lesson.MAX_NEW, url="n"),  # its help names the limit for the prime
        Control("temp", "Temperature", 0.8, kind="select", options=lesson.TEMPS, url="temp", scrub=True,
                help="Scores are divided by this before the softmax."),
        Control("top_k", "Top-k (0 = off)", 0, kind="number", lo=0, hi=vocab, url="k",
                help="Keep only the k most likely characters."),
        Control("top_p", "Top-p (1 = off)", 1.0, lo=0.05, hi=1.0, step=0.05, url="p", scrub=True,
                help="Keep the fewest most likely characters whose probabilities add up to p."),
        Control("greedy", "Greedy", False, kind="toggle", url="greedy",
                help="Always the most likely character (the same as top-k = 1)."),
        Control("seed", "Seed", 1, kind="number", lo=0, hi=lesson.MAX_SEED, url="seed",
                help="The same seed gives the same text."),
        Control("forced", "Branch from here", {}, kind="text", url="branch", parse=parse_branches,
                dump=dump_branches),  # no box of its own: "Branch from here" sets it
        Control("pos", "Position", 6, lo=1, hi=lesson.MAX_CHARS - 1, url="pos"),  # drawn as `char`, from 1
        Control("char", "Position", 7, lo=2, hi=lesson.MAX_CHARS, scrub=True,
                help="Which character to inspect, counted from 1 (the first has no prediction to show)."),
        Control("shade", "Shade by", "probability", kind="segmented", options=SHADES, url="shade",
                help="What colours each character."),
        Control("state_open", "The hidden state after this character", False, kind="expander", url="state",
                widget_kw={"on_change": "rerun"}),
        Control("layer", "Layer", layers, kind="number", lo=1, hi=layers, url="layer"),
        Control("kind", "State", "h", kind="radio", options=("h", "c"), url="kind", widget_kw={"horizontal": True}),
        Control("unit", "Unit", 1, kind="number", lo=1, hi=hidden, url="unit", parse=unit, dump=unit_dump),
        Control("view", "Look inside", "units", kind="segmented", options=tuple(VIEWS), url="view",
                widget_kw={"format_func": VIEWS.get}),
        Control("passage", "Over", "excerpt", kind="radio", options=tuple(PASSAGES_SHOWN), url="over",
                widget_kw={"horizontal": True, "format_func": PASSAGES_SHOWN.get}),
        Control("span", "Over the first", 0, kind="select", options=(0, *SPANS), url="first",
                help="Where in the text to count: the first characters after the start, or all."),
        Control("clamp_layer", "Clamp layer", layers, kind="number", lo=1, hi=layers, url="clayer"),
        Control("clamp_kind", "Clamp state", "c" if cell_state else "h", kind="radio", options=("h", "c"),
                url="ckind", widget_kw={"horizontal": True}),
        Control("clamp_unit", "Clamp unit", min(LINE_UNIT, hidden), kind="number", lo=1, hi=hidden, url="cunit",
                parse=unit, dump=unit_dump),
        Control("clamp_value", "Clamp to", 0.0, lo=-clamping.MAX_VALUE, hi=clamping.MAX_VALUE, step=0.1,
                url="cval"),
        Control("cpos", "the character clicked in the free text", -1, lo=-1, hi=lesson.MAX_CHARS - 1,
                url="cpos"),  # a click in the clamp view's free text (no control of its own); -1: the character
        # the clamp moves most
    )


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


def settings(prime: str, n: int, temp: float, top_k: int, top_p: float, greedy: bool, seed: int,
             forced: tuple = ()) -> SamplingSettings:
    """The sampling settings the controls' values describe (top-k 0 and top-p 1 are off; greedy is top-k 1)."""
    return SamplingSettings(prime, n, temp, 1 if greedy else (top_k or None), top_p if top_p < 1 else None, int(seed),
                            forced)


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


# ---- session keys the controls set ------------------------------------------------------------------------
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


def unit_state(hits: list[UnitHit], rows: list[int | None]) -> dict:
    """The page's state that shades the text by the unit in the chosen row (and asks for a full rerun)."""
    return {f"{P}.{k}": v for h in [hits[r] for r in rows[:1] if r is not None] for k, v in
            (("shade", "hidden unit"), ("layer", h.layer + 1), ("kind", h.kind), ("unit", h.unit + 1), ("_app", 1))}


def spans(a: PassageAnalysis, session: Session) -> list[int]:
    """The "over the first N characters" options for this passage; a span it does not reach becomes the whole."""
    options = lesson.span_choices(a)
    session[f"{P}.span"] = session[f"{P}.span"] if session[f"{P}.span"] in options else 0
    return options


def clamp_of(session: Session) -> Clamp:
    """The clamp the controls describe (layers and units count from 1 on the page, from 0 in rnnviz)."""
    return Clamp(session[f"{P}.clamp_layer"] - 1, session[f"{P}.clamp_kind"], session[f"{P}.clamp_unit"] - 1,
                 float(session[f"{P}.clamp_value"]))


def clamp_state(hits: list[UnitHit], row: int | None) -> dict:
    """The clamp controls set to the finder's unit in `row` (nothing when none is chosen)."""
    if row is None:
        return {}
    h = hits[row]
    return {f"{P}.clamp_layer": h.layer + 1, f"{P}.clamp_kind": h.kind, f"{P}.clamp_unit": h.unit + 1}
