"""Text helpers every page shares: how numbers are written (fmt, power_text, format_norm), Unicode sub- and
superscripts, and reading a typed sequence of numbers (parse_sequence, which raises InputError saying what is wrong)."""
from __future__ import annotations

import math
import re

VISIBLE = {" ": "␣", "\n": "↵", "\t": "⇥"}  # characters that would print as nothing, as they are drawn
MAX_STEPS = 200  # longest typed sequence
MAX_ABS_INPUT = 100.0  # largest |x| typed


class InputError(ValueError):
    """Text that does not describe a sequence of numbers."""


def parse_sequence(text: str, max_len: int = MAX_STEPS, max_abs: float = MAX_ABS_INPUT) -> list[float]:
    """'1, 0, 0' or '1 0 0' -> [1.0, 0.0, 0.0]; anything else raises InputError saying what is wrong."""
    if text is None or not text.strip():
        raise InputError("The input sequence is empty: type numbers separated by commas, e.g. 1, 0, 0.")
    parts = [p for p in re.split(r"[,\s;]+", text.strip()) if p]
    if len(parts) > max_len:
        raise InputError(f"The sequence has {len(parts)} numbers; the limit is {max_len}.")
    out = []
    for k, p in enumerate(parts, 1):
        try:
            v = float(p)
        except ValueError:
            shown = p if len(p) <= 20 else p[:20] + "…"
            raise InputError(f"Item {k}, {shown!r}, is not a number.") from None
        if not math.isfinite(v):
            raise InputError(f"Item {k} is {p}: inputs must be finite numbers.")
        if abs(v) > max_abs:
            raise InputError(f"Item {k} is {v:g}; inputs are limited to ±{max_abs:g}.")
        out.append(v)
    return out


def fmt(v: float, digits: int = 3) -> str:
    """Numbers as the notes print them: 3 decimals, no '-0.000'."""
    s = f"{v:.{digits}f}"
    return s[1:] if s.startswith("-") and float(s) == 0 else s


_SUB = str.maketrans("0123456789+-−=()txhjkn", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₜₓₕⱼₖₙ")


def sub(s: str) -> str:
    """Unicode subscripts for table headers and plain text: sub('t-1') -> 'ₜ₋₁'."""
    return str(s).translate(_SUB)


_SUP = str.maketrans("0123456789-−", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁻")


def sup(s: object) -> str:
    """Unicode superscripts: sup(-7) -> '⁻⁷'."""
    return str(s).translate(_SUP)


def power_text(v: float) -> str:
    """4 decimals for ordinary sizes, a power of ten otherwise: 1.200 × 10⁻⁷."""
    if v == 0 or 1e-3 <= abs(v) < 1e4:
        return f"{v:.4f}"
    m, e = f"{v:.3e}".split("e")
    return f"{m} × 10{sup(int(e))}"


def format_norm(log10_value: float) -> str:
    """A norm given by its exact log10, in one format for every norm on the page: 3 significant digits, plain from
    0.001 to 9999, else mantissa e exponent (also far beyond float64: '2.50e-450'); '0' for an exact zero."""
    v = float(log10_value)
    if math.isnan(v) or v == -math.inf:
        return "0"
    if v == math.inf:
        return "∞"
    if -3 <= v < 4:
        return f"{10 ** v:#.3g}".rstrip(".")  # '1.00', '56.9', '123', '0.0346'; never '1e+03' in this range
    e = math.floor(v)
    m = round(10 ** (v - e), 2)
    if m >= 10:
        m, e = m / 10, e + 1
    return f"{m:.2f}e{e:+03d}"
