"""Every lesson, once, in the order a lecture takes them: its page, title, icon, sidebar section, minutes and line
in the lesson plan, and the questions it offers the class, each with its maker and its chart at the reveal. The
lesson path (ui/path.py), the welcome page and the Class page (ui/rooms.py, ui/questions/link.py) read this list."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ui.lessons import (
    gates as gates_words,
    gradients as gradients_words,
    gradients_frames,
    hello as hello_words,
    recurrences as recurrences_words,
    scalar as scalar_words,
    states as states_words,
    vector as vector_words,
)
from ui.questions import gates, gradients, hello, recurrences, sample, scalar, states, vector
from ui.questions.base import Ask
from ui.urlstate import Param


@dataclass(frozen=True)
class Lesson:
    url: str  # url_path; the page script is app_pages/<url>.py
    title: str
    icon: str
    section: str  # sidebar heading
    minutes: int  # about how long it takes in a lecture
    what: str  # one line for the lesson plan
    asks: dict[str, Ask] = field(default_factory=dict)  # question id -> the class question; the first is the default
    link: Callable[[Any], list[Param]] = lambda lm: []  # the page's link names (given its model), as its questions
    # read a link exactly as the page does
    model: Callable[[], Any] | None = None  # what the questions read beside the link (the sampling page's model)
    shorter: bool = False  # the lesson a 50-minute lecture leaves for reading afterwards (see `plan`)
    # the page's scrubbed sliders as it opens, on a projector (True) or not: their frames are computed as a server
    # starts (ui/live/scrub.py warm)
    scrubbed: Callable[[bool], list] | None = None

    @property
    def script(self) -> str:  # as st.Page and st.page_link name it
        return f"app_pages/{self.url}.py"


def _sample_scrubs(room: bool) -> list:
    """The sampling page's Position and Temperature as it opens (imported when asked: the shipped model loads)."""
    from ui.sample.follow import default_scrubs

    return default_scrubs(room)


# The problem before the cure: the plain recurrence, how its gradients fade or blow up, then the gated cells.
LESSONS = [
    Lesson("scalar", "One unit by hand", ":material/edit:", "1 · The recurrence", 8,
           "one number of memory: step hₜ by hand, see it fade or flood, find where it settles",
           {"state": Ask("hₜ for these weights (a number)", scalar.state, scalar.chart_state),
            "settle": Ask("Where does the state settle? (a number)", scalar.settle, scalar.chart_settle),
            "fate": Ask("Once the inputs stop: fade, settle, flip or grow?", scalar.fate, scalar.chart_settle)},
           lambda lm: scalar_words.PARAMS, scrubbed=scalar_words.default_scrubs),
    Lesson("vector", "The cell, step by step", ":material/grid_on:", "1 · The recurrence", 7,
           "the same step with vectors: the six moves of one step, states over time, a check against PyTorch",
           {"unit": Ask("Which unit of h_T is largest?", vector.largest_unit),
            "params": Ask("How many parameters in the cell?", vector.parameters),
            "range": Ask("Which values can hₜ take?", vector.state_range)},
           lambda lm: vector_words.PARAMS, scrubbed=vector_words.default_scrubs),
    Lesson("gradients", "Gradients through time", ":material/trending_down:", "2 · The problem", 10,
           "why plain RNNs forget: gradients that vanish or explode, and clipping",
           {"threshold": Ask("‖∂h_T/∂h₀‖ above or below 10⁻³?", gradients.threshold, gradients.chart_threshold),
            "explode": Ask("‖∂h_T/∂h₀‖ above or below 1?", gradients.above_one),
            "clip": Ask("What does clipping do to this gradient?", gradients.clipped)},
           lambda lm: gradients_words.PARAMS, scrubbed=gradients_frames.default_scrubs),
    Lesson("gates", "Gates: LSTM and GRU", ":material/valve:", "3 · The cure", 8,
           "gates that decide what to keep: the LSTM's cell path, the GRU, three cells side by side",
           {"memory": Ask("Which cell still holds x₁ after 50 steps?", gates.memory, gates.chart_memory),
            "gate": Ask("A gate's value at step t (a number)", gates.gate_value),
            "kept": Ask("What share of c₀ survives 10 steps? (a number)", gates.kept)},
           lambda lm: gates_words.PARAMS, scrubbed=gates_words.default_scrubs),
    Lesson("recurrences", "Recurrence returns", ":material/linear_scale:", "3 · The cure", 10,
           "linear recurrences that train in parallel: minGRU, the LRU, selective state spaces, the scan",
           {"linear": Ask("hₜ of the linear recurrence (a number)", recurrences.linear),
            "steady": Ask("Where does it settle under x = 1? (a number)", recurrences.steady),
            "parallel": Ask("Which recurrence runs in parallel?", recurrences.parallel)},
           lambda lm: recurrences_words.PARAMS, scrubbed=recurrences_words.default_scrubs,
           shorter=True),  # past the argument (the problem, then the cure): the one a 50-minute lecture can leave for
    # reading
    Lesson("states", "Using the states", ":material/call_split:", "4 · Putting it to work", 6,
           "classifier or language model, the padding trap, reading both ways, counting parameters",
           {"params": Ask("How many parameters? (a number)", states.parameters),
            "output": Ask("What share sits in the output layer? (a number)", states.output_share),
            "padding": Ask("Which state does out[:, -1] hold?", states.padded)},
           lambda lm: states_words.PARAMS),
    Lesson("hello", 'Train "hello" yourself', ":material/school:", "4 · Putting it to work", 5,
           "the smallest language model, trained in front of you on a word you choose",
           {"softmax": Ask("Softmax: the first probability (a number)", hello.first_probability, hello.chart_softmax),
            "sampled": Ask("Share of samples not the most likely (a number)", hello.not_most_likely),
            "temp": Ask("The first probability at temperature τ (a number)", hello.hotter)},
           lambda lm: hello_words.PARAMS, scrubbed=hello_words.default_scrubs),
    Lesson("sample", "Sample a trained model", ":material/auto_stories:", "4 · Putting it to work", 6,
           "a Shakespeare LSTM writes; look inside at probabilities, units and gates",
           {"next": Ask("Which character comes next?", sample.next_char),
            "prob": Ask("With what probability? (a number)", sample.next_probability),
            "temp": Ask("Temperature: the favourite's probability?", sample.temperature)},
           sample.link, sample.model, scrubbed=_sample_scrubs),
]


def plan(minutes: int | None = None) -> list[Lesson]:
    """The lessons of a lecture: all of them (about 60 minutes), or for a `minutes`-long one those left once the
    lessons marked `shorter` are set aside, if that is needed to fit."""
    if minutes is None or sum(ls.minutes for ls in LESSONS) <= minutes:
        return list(LESSONS)
    return [ls for ls in LESSONS if not ls.shorter]


def lesson(url: str) -> Lesson | None:
    """The lesson at this url path; None for the welcome and Class pages (and any other)."""
    return next((ls for ls in LESSONS if ls.url == url), None)


def asking() -> list[Lesson]:
    """The lessons that offer the class a question, in lesson order."""
    return [ls for ls in LESSONS if ls.asks]
