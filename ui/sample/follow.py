"""What follows a drag on the sampling page, where no chart does (ui/live/scrub.py: a Scrub without `build`). Position
moves the inspected character's words, its bars and the text's outline; Temperature and Top-p draw the sample at each
of their values: the text, the sentence under the slider, the legend's summary and the inspected character's words.
Each frame holds the page's own texts at that value (`position_texts`, `legend`, rnnviz.figures.sample.text_markup),
written over the page's in the browser (ui/live/words.js); the release's rerun draws the page as always."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from rnnviz import charlm
from rnnviz.figures import sample as figures
from rnnviz.lessons import sample as lesson
from rnnviz.lessons.cache import SharedCache
from rnnviz.live.words import Shown
from rnnviz.nn.sampling import SamplingSettings
from ui.live.scrub import Scrub
from ui.sample import P, cache, controls, shading, words
from ui.widgets import md

AT = f"{P}.at"  # the container of the inspected character's words
SAID = f"{P}.said"  # the temperature's sentence under the settings
LEGEND = f"{P}.legend"  # the shading's legend, with the sample's summary
TEXT = f"{P}.text"  # the text view's key (ui/textview.py)
# the samples a drag of Temperature or Top-p shows, without their states (the text, its probabilities and
# distributions: about 0.1 MB for 500 characters instead of 8), per server: drawing one again takes as long as the first
LIGHT = SharedCache(32 * 2 ** 20)
FOLLOWED = ("probability", "surprisal")  # the shadings a sample's frame draws (the others need states or gradients)


def position_texts(lm: charlm.CharLM, smp: lesson.Sample, i: int, fs: float) -> tuple[str, str, str]:
    """Character i (an index into the text) in words: its sentence (markdown), the distributions it was predicted and
    sampled from (a table of bars, HTML) and their entropies (markdown)."""
    info = lesson.position(lm, smp, i)
    return (f"Character **{i + 1}**: {md(repr(words.label(info.char)))}, {words.describe_position(info)}",
            figures.dist_markup(words.top_rows(info), "model (T = 1)", words.sampled_name(info), fs),
            words.entropy_sentence(info))


def legend(sh: shading.Shade, smp: lesson.Sample, fs: float) -> str:
    """The shading's legend (HTML): what the colours mean, the scale's two ends and the sample's summary."""
    return words.legend_markup(sh.caption, *sh.ends, sh.numbers.signed, fs, words.summary(smp))


def _at(lm: charlm.CharLM, smp: lesson.Sample, i: int, fs: float) -> Shown:
    return Shown.of(*position_texts(lm, smp, i, fs), html_at=(1,))


def position_scrubs(model_id: str, lm: charlm.CharLM, smp: lesson.Sample, s: SamplingSettings, i: int, shade: str,
                    fs: float) -> list[Scrub]:
    """The Position slider (from 1, as the page writes it; at character i, an index), whose drag the inspected
    character's words follow (`position_texts`, under AT: the sentences, and the bars with their numbers) and the
    text's outline with them. Shaded by connectivity, the text's colours and its legend's scale are the position's own
    (a gradient through the model each, never computed ahead), so they grey through the drag instead. About 0.2 ms
    and 0.8 kB a position."""
    last = len(smp.text) - 1

    def said(v: float) -> dict[str, Shown]:
        j = min(max(1, round(v) - 1), last)  # as controls.inspected clamps it
        if shade == "connectivity":  # the colours and the legend's scale are the position's own
            return {AT: _at(lm, smp, j, fs), TEXT: Shown(stale=True), LEGEND: Shown(stale=True)}
        return {AT: _at(lm, smp, j, fs), TEXT: Shown(mark=j)}
    C = controls.declared(lm)
    return [Scrub(C.key("char"), AT, (model_id, s, shade == "connectivity"), i + 1, C["char"].lo, max(3, last + 1), 1,
                  None, words=said)]


def _light(model_id: str, lm: charlm.CharLM, s: SamplingSettings) -> lesson.Sample:
    """The sample for `s`, without its states, kept in LIGHT."""
    return LIGHT.get((model_id, s), lambda: replace(lesson.draw_sample(lm, s), h=None, c=None), lambda v: v.nbytes)


def temperature_scrubs(model_id: str, lm: charlm.CharLM, smp: lesson.Sample, s: SamplingSettings, i: int,
                       shade: str, fs: float) -> list[Scrub]:
    """The Temperature select slider (its notches are its options' positions, Control.span), whose drag shows the
    sample drawn at each temperature: its text, the page's own markup (hover titles included: a key's rerun then finds
    it drawn; the outline stays on character i), the sentence under the slider and the legend's summary; and, an item of
    its own keyed by i (a move of Position leaves the texts' frames as they are), character i's words. A text shaded
    by a hidden unit or by connectivity needs each sample's states or gradients: it greys through the drag instead,
    its legend with it, while the words follow. Each value is a sample of its own (0.35 s for the shipped model's 500
    characters, 3.9 s for the 11 temperatures: once per setting and server, within a visitor's budget, in sets of
    three so that other visitors' fills take turns); greedy sampling writes the same text at every temperature, so
    only the sentence follows it; a long sample (lesson.is_long) is left to the release. An upload's samples and
    frames are kept per server as the shipped model's are, under its upload's ids (LIGHT, ui/live/scrub.py FRAMES:
    both bounded), which only its visitor's page names."""
    temps = controls.declared(lm)["temp"].options
    return _drawn("temp", "temperature", float(temps.index(s.temperature)), lambda v: temps[round(v)],
                  lambda t: {SAID: words.temperature_sentence(t)}, model_id, lm, smp, s, i, shade, fs)


def top_p_scrubs(model_id: str, lm: charlm.CharLM, smp: lesson.Sample, s: SamplingSettings, i: int,
                 shade: str, fs: float) -> list[Scrub]:
    """The Top-p slider (0.05 to 1, off at 1), whose drag shows the sample drawn at each p, as Temperature's does
    (`temperature_scrubs`): the text fills with the likeliest characters as p falls. 20 samples, 7 s for the shipped
    model's 500 characters, once per setting and server. Greedy sampling ignores p: nothing follows it there."""
    if s.greedy:
        return []
    return _drawn("top_p", "top_p", s.top_p or 1.0, lambda v: v if v < 1 else None, lambda p: {}, model_id, lm, smp,
                  s, i, shade, fs)


def _drawn(name: str, field: str, at: float, setting: Callable[[float], object], said: Callable[[object], dict],
           model_id: str, lm: charlm.CharLM, smp: lesson.Sample, s: SamplingSettings, i: int, shade: str,
           fs: float) -> list[Scrub]:
    """The control `name`, whose drag shows the sample drawn with `field` of the settings at `setting(v)` (the slider
    at v), and the words `said(that)` beside the sample's: see temperature_scrubs."""
    if lesson.is_long(lm, s):
        return []

    def sample(v: float) -> lesson.Sample:
        u = setting(v)
        return smp if u == getattr(s, field) else _light(model_id, lm, replace(s, **{field: u}))

    def texts(v: float) -> dict[str, Shown | str]:
        if s.greedy:
            return said(setting(v))
        x = sample(v)
        out: dict[str, Shown | str] = {**said(setting(v)), TEXT: Shown(stale=True), LEGEND: Shown(stale=True)}
        if shade in FOLLOWED:
            sh = shading.shade(shade, lm, x, min(i, len(x.text) - 1))
            n = sh.numbers
            out[TEXT] = Shown(html=figures.text_markup(x.text, n.values, n.lo, n.hi, n.signed, sh.titles, None,
                                                       n.unread_after, fs))  # the page's markup, to the byte
            out[LEGEND] = Shown.of(legend(sh, x, fs), html_at=(0,))
        return out

    def character(v: float) -> dict[str, Shown]:
        x = sample(v)
        return {AT: _at(lm, x, min(i, len(x.text) - 1), fs)}
    C = controls.declared(lm)
    rest = tuple((k, v) for k, v in vars(s).items() if k != field)  # the setting: all but the one dragged
    span = C[name].span
    return [Scrub(C.key(name), TEXT, (model_id, rest, shade if shade in FOLLOWED else None), at, *span, None,
                  span=3, words=texts)] + ([] if s.greedy else [
        Scrub(C.key(name), AT, (model_id, rest, i), at, *span, None, span=3, words=character)])


def scrubs(model_id: str, lm: charlm.CharLM, smp: lesson.Sample, s: SamplingSettings, i: int, shade: str,
           fs: float) -> list[Scrub]:
    """The page's sliders that follow a drag: Position, Temperature and Top-p."""
    return (position_scrubs(model_id, lm, smp, s, i, shade, fs)
            + temperature_scrubs(model_id, lm, smp, s, i, shade, fs) + top_p_scrubs(model_id, lm, smp, s, i, shade, fs))


def default_scrubs(room: bool) -> list[Scrub]:
    """The three as the page opens with the shipped model, on a projector (`room`) or not: their frames are computed
    as a server starts (ui/live/scrub.py warm; Temperature's 3.9 s of samples once, and Top-p's nearest), as a class
    opens the same link."""
    from ui.loaders import shipped_model
    from ui.urlstate import font_scale

    lm = shipped_model(str(charlm.SHIPPED_MODEL))
    d = controls.declared(lm).defaults()
    s = controls.settings(d["prime"], d["n"], d["temp"], d["top_k"], d["top_p"], d["greedy"], d["seed"])
    smp = cache.kept_sample("shipped", lm, s, {})
    return scrubs("shipped", lm, smp, s, min(max(1, d["pos"]), len(smp.text) - 1), d["shade"], font_scale(room))
