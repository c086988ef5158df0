"""The hello page's words, controls and the per-server cache of trained models (its numbers are
rnnviz/lessons/hello.py): the budget and status sentences, the step table, the temperature and softmax notes, and
what a drag of Temperature shows (its frames: ui/live/scrub.py)."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np
import pandas as pd

from rnnviz.figures.hello import char_steps_figure, softmax_bars
from rnnviz.lessons.cache import SharedCache
from rnnviz.lessons.hello import (
    MAX_TEXT,
    MIN_COUNTED,
    VISIBLE,
    WORK_BUDGET,
    CharRNNWeights,
    CharSteps,
    TrainResult,
    read,
    sample,
    step_work,
    steps_within_budget,
    train,
    vocabulary,
)
from rnnviz.lessons.presets import SOFTMAX_SCORES, SOFTMAX_WORD
from rnnviz.live.frames import SPAN
from rnnviz.live.words import Shown
from rnnviz.nn.sampling import sampling_distribution, softmax
from rnnviz.text import fmt, parse_sequence
from ui.controls import Control, Controls
from ui.live.scrub import Scrub
from ui.live.steps import fingerprint
from ui.urlstate import font_scale, text
from ui.widgets import TEXT_ROWS, markdown_table, md

P = "hello"
TEMPERATURES = (0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0)  # the sampling slider's notches


def visible(c: str) -> str:
    """A character as it can be seen: a space as ␣, a line break as ↵, a tab as ⇥."""
    return VISIBLE.get(c, c)


CONTROLS = Controls(
    P,
    Control("text", "Training text", "hello", kind="area", url="text", max_chars=MAX_TEXT, widget_kw={"height": 90},
            help="Any short text, up to 2,000 characters. Inputs are its characters; each target is the next one."),
    Control("H", "Hidden size H", 3, lo=1, hi=32, url="H", scrub=True, help="How many numbers the model may remember."),
    Control("steps", "Training steps", 300, lo=0, hi=1000, step=10, url="steps",
            help="Adam updates on the whole text."),
    Control("seed", "Seed", 0, kind="number", lo=0, hi=10_000, url="seed",
            help="Seeds the initial weights and the sampling."),
    # no widget: whether Train's model is on the page, which a shared link retrains on open (to the same weights); a
    # notice about a bad value names the Train button
    Control("trained", "Train", False, kind="toggle", url="trained"),
    Control("temp", "Temperature", 1.0, kind="select", options=TEMPERATURES, url="temp", scrub=True,
            help="Scores are divided by the temperature before the softmax: below 1 the distribution sharpens toward "
                 "the top choice, above 1 it flattens toward uniform."),
    Control("n", "Characters to sample", 30, lo=1, hi=200, url="n", scrub=True),
    # the first character fed in; "": the text's first. The link's, kept apart from the widget's state (`start_pick`,
    # whose options are the typed text's characters: app_pages/hello.py start_pick)
    Control("start", "Start from", "", kind="selectbox", url="start", parse=text(1), help="The first character fed in.",
            widget_kw={"format_func": visible}),
    Control("scores", "Scores to turn into probabilities", ", ".join(f"{v:g}" for v in SOFTMAX_SCORES), kind="text",
            url="scores", max_chars=400, help="The notes' example: scores 1.0, 2.2, −3.0, 4.1 over h, e, l, o."),
)
PARAMS = CONTROLS.params


@dataclass(frozen=True)
class TrainSetup:
    """What Train fits, as the controls hold it: the text, the hidden size, the steps and the seed of the weights."""

    text: str
    H: int
    steps: int
    seed: int


def intro_text() -> str:
    """The page's opening lines: the example it opens on, its sizes read from the defaults (they read "three hidden
    units" beside a slider set to 5, as if they were the setting's)."""
    word, H = CONTROLS["text"].default, CONTROLS["H"].default
    return (f"It opens on the notes' example: “{word}”, {len(vocabulary(word))} one-hot letters, {H} hidden units. "
            "The smallest language model there is: press **Train** and watch the loss fall; then read the table to "
            "see how the two l's of hello get different predictions. Replace hello with your own short text and train "
            "again.")


def budget_message(text: str, hidden_size: int, steps: int, budget: int = WORK_BUDGET) -> str | None:
    """What the budget caps for this setup, in words; None when it fits."""
    allowed = steps_within_budget(text, hidden_size, steps, budget)
    if allowed >= steps:
        return None
    V, n = len(vocabulary(text)), len(text)
    return (f"Training is capped at {allowed:,} of the {steps:,} steps asked: this server allows vocabulary × "
            f"text length × hidden size × steps up to {budget:,} per click (vocabulary and hidden size counted as at "
            f"least {MIN_COUNTED}), and one step here is {max(V, MIN_COUNTED)} × {n:,} × "
            f"{max(hidden_size, MIN_COUNTED)} = {step_work(V, n, hidden_size):,}. A shorter text, fewer distinct "
            "characters or a smaller hidden size allow more steps.")



TRAINED = SharedCache(32 * 2 ** 20)  # Train's results, shared by every visitor of a server


def train_shared(s: TrainSetup, callback: Callable[[int, float], None] | None = None) -> TrainResult:
    """`train`, run once per server for the same settings (they give the same weights): pressing Train again, or a
    class opening one shared link, costs nothing. The result is shared: its arrays are read-only."""
    return TRAINED.get_arrays(s, lambda: train(s.text, s.H, s.steps, seed=s.seed, callback=callback),
                              lambda r: [a for a in vars(r.weights).values() if isinstance(a, np.ndarray)],
                              lambda r: 8 * len(r.losses))




def vocab_display(vocab: list[str], fits: int = 4, listed: int = 24) -> tuple[str, str | None]:
    """The vocabulary for its metric, '{h, e, l, o}' with invisible characters drawn visibly, up to `fits` characters
    (a metric a third of the column wide holds four at 1280 px: '{a, b, c, d, e}' was cut to '{a, b, c, d…', and
    '7 characters' to '7 charact…'); else their number, with the set (up to `listed`) in the note, which also names
    the invisible characters' glyphs."""
    braces = "{" + ", ".join(visible(c) for c in vocab) + "}"
    names = {" ": "␣ is the space", "\n": "↵ a line break", "\t": "⇥ a tab"}
    shown = [names[c] for c in names if c in vocab]
    listing = "{" + ", ".join(md(visible(c)) for c in vocab) + "}"  # visitor text, inert in the note's markdown
    count = f"{len(vocab):,} characters"
    notes = [f"The vocabulary: {count}" + (f", {listing}." if len(vocab) <= listed else ".")] if len(vocab) > fits \
        else []
    notes += ["In the vocabulary, " + ", ".join(shown) + "."] if shown else []
    return braces if len(vocab) <= fits else f"{len(vocab):,}", " ".join(notes) or None


def status(s: TrainSetup, result: TrainResult | None, label: str | None = None, final: float | None = None,
           brief: bool = False) -> str:
    """What the model on the page is: trained on what, how long, from which start; or untrained (markdown).
    `label` names the text (already escaped for markdown by the caller), e.g. its first characters in quotes.
    `final` is the trained weights' loss as the page's Loss metric shows it (4 decimals); without it, the last
    training step's, which was computed before that step's update. `brief` (a projector): what a nat is left to the
    Loss metric's help, so the sampling chart below shares the first screen with its Temperature slider."""
    text, hidden_size, seed = s.text, s.H, s.seed
    n, V = len(text), len(vocabulary(text))
    what = f"{label or 'the training text'} ({n:,} characters, {V} distinct)"
    if result is not None and not result.losses:  # Train pressed with Training steps = 0
        return (f"**Trained for 0 steps**: *Training steps* is 0, so Train kept the random weights (seed {seed}) and "
                f"its guesses still owe nothing to the text. Set *Training steps* above 0 and press **Train** to fit a "
                f"{hidden_size}-unit RNN to {what}.")
    if result is None:
        return (f"**Untrained**: random weights (seed {seed}, PyTorch's initialisation), so its guesses owe nothing "
                f"to the text: the best guess in each row is whichever letter those random numbers happen to favour. "
                f"Press **Train** to fit a {hidden_size}-unit RNN to {what}.")
    capped = f" (capped from {result.asked:,})" if result.asked > len(result.losses) else ""
    end = fmt(result.losses[-1]) if final is None else fmt(final, 4)
    return (f"**Trained** on {what}: {len(result.losses):,} steps{capped} of Adam on the whole text, starting from "
            f"random weights (seed {seed}), in {result.seconds:.1f} s. Loss went from {fmt(result.losses[0])} to "
            f"{end} nats per character" + ("." if brief else " (the average −ln p of each next character; nats "
                                             f"are natural-log units, ln 2 ≈ {math.log(2):.2f} nats is one bit)."))


def step_table(steps: CharSteps, vocab: list[str]) -> dict[str, list]:
    """Per step: input, target (visible glyphs), the probability the model gives the target, its best guess."""
    p = steps.probs[np.arange(len(steps.targets)), [vocab.index(c) for c in steps.targets]]
    return {"input": [visible(c) for c in steps.inputs], "target": [visible(c) for c in steps.targets],
            "p(target)": np.round(p, 3), "model's best guess": [visible(vocab[i]) for i in steps.probs.argmax(axis=1)]}


def step_frame(steps: CharSteps, vocab: list[str]) -> pd.DataFrame:
    """The step table as the page draws it: a row per step, numbered from 1."""
    return pd.DataFrame(step_table(steps, vocab), index=pd.Index(range(1, len(steps.inputs) + 1), name="step"))


TABLE_DIGITS = 3  # the step table's decimals


def metrics(steps: CharSteps, vocab: list[str]) -> list[tuple[str, str, str | None]]:
    """The three metrics over the model's read of the text: (label, value, help) each."""
    return [("Loss", fmt(steps.loss, 4), "Mean cross-entropy of each next character, in nats (natural-log units): "
             "−ln p(target), averaged."),
            ("Perplexity = exp(loss)", f"{steps.perplexity:.3f}",
             "As if the model chose uniformly among this many characters; 1 is perfect."),
            ("Vocabulary", vocab_display(vocab)[0], None)]


STATUS_WORDS, METRIC_WORDS, TABLE_WORDS = "words-hello-status", "words-hello-metrics", "words-hello-table"
STEPS_FIG_MAX = 24  # the per-step chart is drawn for texts of at most this many steps


def steps_width(room: bool) -> int:
    """The per-step chart's width, as the page lays it out."""
    return 672 if room else 720


def model_scrubs(s: TrainSetup, label: str | None, fs: float, room: bool) -> list[Scrub]:
    """The hidden size H of the untrained model, whose drag the per-step chart follows, and with it the status
    sentence, the metrics and the step table: each frame the page's own for the weights seeded at that size (a read of
    the text, about a ms). The sample further down greys until the release: its start, length and temperature are the
    sampling part's, which reruns alone, so frames made here would keep a temperature changed since. None for a
    trained model: a drag of H leaves it (the release shows the untrained model at the new size), which these frames
    could show but not the loss curve's going."""
    @lru_cache(maxsize=SPAN)  # a set's frames (SPAN at most), then their words: each size's weights and read once
    def steps(v: float) -> tuple[CharSteps, list[str]]:
        w = train(s.text, int(v), 0, seed=s.seed).weights
        return read(s.text, w), w.vocab

    def said(v: float) -> dict:
        st_, vocab = steps(v)
        frame = step_frame(st_, vocab)
        return {STATUS_WORDS: status(TrainSetup(s.text, int(v), s.steps, s.seed), None, label, brief=room),
                METRIC_WORDS: [p for label_, value, _ in metrics(st_, vocab) for p in (label_, value)],
                TABLE_WORDS: markdown_table(frame, TABLE_DIGITS) if len(frame) <= TEXT_ROWS else Shown(stale=True),
                SAMPLE_WORDS: Shown(stale=True)}
    charted = len(s.text) - 1 <= STEPS_FIG_MAX
    build = (lambda v: char_steps_figure(*steps(v), fs, width=steps_width(room))) if charted else None
    return [Scrub(CONTROLS.key("H"), f"{P}.steps_fig" if charted else STATUS_WORDS,
                  (s.text, s.steps, s.seed, label, fs, room), s.H, *CONTROLS["H"].span, build, words=said)]


def throttled(report: Callable[[int, float], None], seconds: float = 0.25) -> Callable[[int, float], None]:
    """A progress callback that passes a report on at most every `seconds` (none at all for a short run), so the
    browser is not sent a redraw for every ten steps."""
    import time

    last = [time.perf_counter()]

    def cb(step: int, loss: float) -> None:
        now = time.perf_counter()
        if now - last[0] >= seconds:
            last[0] = now
            report(step, loss)
    return cb


def temperature_sentence(p1: np.ndarray, pt: np.ndarray, temp: float) -> str:
    """The probabilities at temperature 1 and at the slider's temperature (markdown); at 1 they are the same, so
    they are printed once."""
    listed = lambda p: "**(" + ", ".join(fmt(v) for v in p) + ")**"  # noqa: E731
    if temp == 1:  # as many bold runs as at other temperatures: a drag writes those over these (ui/live/words.js)
        return f"At temperature 1: {listed(p1)}. Below 1 sharpens them, above 1 flattens them: **move the slider**."
    return f"At temperature 1: {listed(p1)}. At {temp:g}: {listed(pt)}."


def softmax_note(scores, probs, notes_scores, notes_printed) -> str | None:
    """When the scores are the notes' example: the notes print the probabilities with two decimals (and not all
    rounded the same way); say so next to the page's three."""
    if tuple(float(v) for v in scores) != tuple(notes_scores):
        return None
    return ("The notes print these as (" + ", ".join(f"{v:.2f}" for v in notes_printed) + "), two decimals and "
            "roughly rounded; to three decimals they are (" + ", ".join(f"{v:.3f}" for v in probs) + ").")


TEMP_WORDS, SAMPLE_WORDS = "words-hello-temp", "words-hello-sample"  # the containers of the words a drag writes


def score_labels(scores: np.ndarray) -> list[str]:
    """The softmax chart's bars: the notes' word's letters for as many scores, else #1, #2, ..."""
    letters = vocabulary(SOFTMAX_WORD)
    return letters if len(scores) == len(letters) else [f"#{k + 1}" for k in range(len(scores))]


def softmax_chart(labels: list[str], scores: np.ndarray, temp: float, fs: float):
    """The bars of softmax(scores / temp), beside those at temperature 1 (hidden at 1, where they are the same)."""
    return softmax_bars(labels, sampling_distribution(scores, temp), softmax(scores), "temperature 1",
                        f"temperature {temp:g}", fs, title=f"softmax(scores / {temp:g})", compare_shown=temp != 1)


def sampled(w: CharRNNWeights, start: str, n: int, temp: float, seed: int) -> str:
    """What the page prints under Sample: the start and the n characters sampled after it."""
    return start + sample(w, start, n, temp, seed=seed)


def code_pieces(code: str) -> list[str]:
    """st.code's text as the browser holds it (rnnviz/live/words.py pieces, for a code block): a text node a line,
    each with its line break but the last, blank lines left out."""
    return [line for line in re.split(r"(?<=\n)", code) if line.strip()]


def temp_scrubs(w: CharRNNWeights, start: str, n: int, seed: int, scores: np.ndarray, temp: float,
                fs: float) -> list[Scrub]:
    """The Temperature slider, whose drag the softmax chart follows, the sentence under it and the sample with it:
    each frame the page's own chart and words at a notch. Its range input holds the notch's position among
    TEMPERATURES (0 to 9; CONTROLS["temp"].span), not the temperature, so the frames are at positions. And the
    number of characters to sample, whose drag the sample follows (a few ms a notch)."""
    labels, p1 = score_labels(scores), softmax(scores)

    def at(v: float) -> float:
        return TEMPERATURES[round(v)]

    def said(v: float) -> dict[str, str | list[str]]:
        t = at(v)
        return {TEMP_WORDS: temperature_sentence(p1, sampling_distribution(scores, t), t),
                SAMPLE_WORDS: code_pieces(sampled(w, start, n, t, seed))}
    setting = (fingerprint(w), start, n, seed, tuple(labels), tuple(float(v) for v in scores), fs)  # the model by value
    return [Scrub(CONTROLS.key("temp"), f"{P}.softmax", setting, float(TEMPERATURES.index(temp)),
                  *CONTROLS["temp"].span, lambda v: softmax_chart(labels, scores, at(v), fs), words=said),
            # Characters to sample: the sample alone follows (no chart), each notch's as the page prints it
            Scrub(CONTROLS.key("n"), SAMPLE_WORDS, (fingerprint(w), start, temp, seed), n, *CONTROLS["n"].span,
                  None, words=lambda v: {SAMPLE_WORDS: code_pieces(sampled(w, start, v, temp, seed))})]


def quoted(text: str) -> str | None:
    """How the status sentence names a short text of one line: in quotes (escaped for markdown)."""
    return f"“{md(text)}”" if len(text) <= 40 and "\n" not in text else None


def default_scrubs(room: bool) -> list[Scrub]:
    """The page's scrubbed sliders as it opens (see ui/lessons/scalar.py default_scrubs): the untrained model."""
    d = CONTROLS.defaults()
    w = train(d["text"], d["H"], 0, seed=d["seed"]).weights
    s = TrainSetup(d["text"], d["H"], d["steps"], d["seed"])
    fs = font_scale(room)
    return model_scrubs(s, quoted(s.text), fs, room) + temp_scrubs(
        w, d["start"] or w.vocab[0], d["n"], d["seed"], np.array(parse_sequence(d["scores"])), d["temp"], fs)
