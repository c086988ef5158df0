"""Text helpers every page shares: how numbers are written (fmt, power_text, format_norm; in written arithmetic,
plus and times), Unicode sub- and superscripts, reading a typed sequence of numbers (parse_sequence, which raises
InputError saying what is wrong), and a visitor's text without direction controls (strip_bidi)."""
from __future__ import annotations

import math
import re

# Unicode's direction controls (embeddings, overrides, isolates, marks): invisible, and one can reverse the text after
# it, so a visitor's text shown to others is shown without them.
BIDI_CONTROLS = re.compile("[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]")
VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥"}  # characters that would print as nothing, as they are drawn
MAX_STEPS = 200  # longest typed sequence
MAX_ABS_INPUT = 100.0  # largest |x| typed


class InputError(ValueError):
    """Text that does not describe a sequence of numbers."""


def parse_sequence(text: str, max_len: int = MAX_STEPS, max_abs: float = MAX_ABS_INPUT, name: str = "input sequence",
                   ) -> list[float]:
    """'1, 0, 0' or '1 0 0' -> [1.0, 0.0, 0.0]; anything else raises InputError saying what is wrong, calling the
    text by `name` (the scores of a softmax are not an input sequence)."""
    parts = [p for p in re.split(r"[,\s;]+", text.strip()) if p] if text is not None else []
    if not parts:  # nothing, or only separators (',' once gave [] and every page that read it failed)
        raise InputError(f"The {name} is empty: type numbers separated by commas, e.g. 1, 0, 0.")
    if len(parts) > max_len:
        raise InputError(f"The {name} has {len(parts)} numbers; the limit is {max_len}.")
    out = []
    for k, p in enumerate(parts, 1):
        try:
            v = float(p)
        except ValueError:
            shown = p if len(p) <= 20 else p[:20] + "…"
            raise InputError(f"Item {k}, {shown!r}, is not a number.") from None
        if not math.isfinite(v):
            raise InputError(f"Item {k} is {p}: each number must be finite.")
        if abs(v) > max_abs:
            raise InputError(f"Item {k} is {v:g}; each number is limited to ±{max_abs:g}.")
        out.append(v)
    return out


def strip_bidi(text: str) -> str:
    """`text` without Unicode's direction controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C)."""
    return BIDI_CONTROLS.sub("", text)


def fmt(v: float, digits: int = 3, sig: int = 3) -> str:
    """The one way a number is written: at least `digits` decimals (the notes print 0.762, 0.500) and at least `sig`
    significant figures, so a small value keeps its digits (0.00138, not 0.001) and a written product reads true;
    below 0.001 or from 10,000 up, a power of ten (6.92 × 10⁻⁴, 8.00 × 10⁻¹³). Zero is 0.000, never '-0.000'."""
    v = float(v)
    if not math.isfinite(v):
        return "∞" if v > 0 else "−∞" if v < 0 else "NaN"
    if v == 0:
        return f"{0:.{digits}f}"
    e = int(f"{v:.{sig - 1}e}".split("e")[1])  # the exponent after rounding: 9.9996e-4 is 1.00e-3
    if -3 <= e < 4:
        decimals = max(digits, sig - 1 - e)
        return f"{v:.{decimals}f}"
    m, ex = f"{v:.{sig - 1}e}".split("e")
    return f"{m} × 10{sup(int(ex))}"


def plus(v: float, digits: int = 3) -> str:
    """A term added in a written sum: '+ 0.381', and a negative one as subtracted, '- 10.000' (never '+ -10.000');
    the hyphen is fmt's own minus sign, so a row reads alike throughout."""
    return ("- " + fmt(-v, digits)) if v < 0 else ("+ " + fmt(v, digits))


def times(factor: str) -> str:
    """A written number after '×': a negative one in parentheses, '10 × (-1.000)', never '10 × -1.000'."""
    return f"({factor})" if factor.startswith("-") else factor


_SUB = str.maketrans("0123456789+-−=()txhjkn", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₜₓₕⱼₖₙ")


def sub(s: str) -> str:
    """Unicode subscripts for table headers and plain text: sub('t-1') -> 'ₜ₋₁'."""
    return str(s).translate(_SUB)


_SUP = str.maketrans("0123456789-−", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁻")


def sup(s: object) -> str:
    """Unicode superscripts: sup(-7) -> '⁻⁷'."""
    return str(s).translate(_SUP)


def power_text(v: float) -> str:
    """fmt with 4 decimals and 4 significant figures: 0.2100, 1.200 × 10⁻⁷ (a product of many factors)."""
    return fmt(v, 4, 4)


def format_norm(log10_value: float, narrow: bool = False) -> str:
    """A norm given by its exact log10, in one format for every norm on the page: 3 significant digits, plain from
    0.001 to 999, else a power of ten as fmt writes it (also far beyond float64: '2.50 × 10⁻⁴⁵⁰'); '0' for zero.
    `narrow` (a metric in a narrow column): the power of ten with 2 digits and no spaces, '8.1×10⁻¹⁶'."""
    v = float(log10_value)
    if math.isnan(v) or v == -math.inf:
        return "0"
    if v == math.inf:
        return "∞"
    plain = f"{10 ** v:#.3g}".rstrip(".") if -3 <= v < 3 else "e"  # '1.00', '56.9', '123', '0.0346'
    if "e" not in plain:
        return plain
    e, digits = math.floor(v), 1 if narrow else 2
    m = round(10 ** (v - e), digits)
    if m >= 10:
        m, e = m / 10, e + 1
    return f"{m:.{digits}f}×10{sup(e)}" if narrow else f"{m:.2f} × 10{sup(e)}"
