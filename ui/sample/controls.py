"""The sampling page's controls: the state a link carries (session key, link name, default, parser), each link
name's control label, the options of its choices, and the session keys the controls set for each other (the inspected
position, the unit a ranking row picks, the clamp a finder row picks). Parsers: ui/sample/links.py."""
from __future__ import annotations

from rnnviz.charlm import CharLM, Clamp
from rnnviz.charlm.inspect import SPANS, PassageAnalysis, UnitHit
from rnnviz.lessons import clamp as clamping, sample as lesson
from ui.sample import P, Session
from ui.sample.links import dump_branches, from_0, one_of, parse_branches
from ui.urlstate import Param, choice, dump_flag, flag, integer, number, text

SHADES = ("probability", "surprisal", "hidden unit", "connectivity")
VIEWS = {"units": "Hidden units that track something", "clamp": "Switch a unit off", "gates": "Gate saturation",
         "card": "Model card", "text": "Plain text"}
# "Switch a unit off" opens on the shipped model's line-position unit: its top layer's c unit 415 (counted from 1),
# the finder's first for "position in line" over the excerpt (r = -0.86). Held at 0 it takes the line breaks away
# (p of the sample's own breaks 0.965 -> 0.095); unit 1, the default before, moved 0.0006 nats a character. On
# another model it is one unit among others (fit_to brings it within the model's size).
LINE_UNIT = 415
PASSAGES_SHOWN = {"excerpt": "a passage of the play (validation text)", "sample": "this sample"}


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
            ("clamp_kind", "ckind", "c" if lm.cell_type.has_cell_state else "h", choice(["h", "c"])),
            ("clamp_unit", "cunit", min(LINE_UNIT, lm.hidden_size), *from_0(lm.hidden_size)),
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
