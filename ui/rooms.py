"""The Class page's words, keys and state: which questions each lesson page offers and how they read, the lesson
link a question is built from (the same query names the pages write), the join link's QR code, and the reveal.
Numbers come from rnnviz.rooms.questions; rooms live in rnnviz.rooms.store (Redis when RNNVIZ_REDIS_URL is set).
"""
from __future__ import annotations

import io
import os
import re
import time
import urllib.parse
from dataclasses import dataclass
from typing import Callable

import numpy as np
import segno
import streamlit as st

from rnnviz.charlm import SHIPPED_MODEL
from rnnviz.figures import gradients as gradient_figures, hello as hello_figures, scalar as scalar_figures
from rnnviz.figures.base import COLORS
from rnnviz.lessons import gradients as gradients_lesson
from rnnviz.lessons.hello import vocabulary
from rnnviz.lessons.presets import SOFTMAX_WORD
from rnnviz.lessons.scalar import iterate_silence, run_scalar
from rnnviz.lessons.vector import encode_word, parse_vectors, parse_vocab
from rnnviz.nn.cells import get as get_cell
from rnnviz.nn.sampling import softmax
from rnnviz.rooms import questions as Q
from rnnviz.rooms.figure import answers_on, reveal_figure, tally_on
from rnnviz.rooms.store import (
    MAX_SETUP,
    MAX_TEXT,
    BadVoter,
    Question,
    RoomError,
    RoomStore,
    RoomView,
    TooLong,
    clean_code,
)
from rnnviz.text import InputError, fmt, parse_sequence, sub
from ui.lessons import (
    gates as gates_words,
    gradients as gradients_words,
    hello as hello_words,
    recurrences as recurrences_words,
    sample as sample_words,
    scalar as scalar_words,
    states as states_words,
    vector as vector_words,
)
from ui.urlstate import Param, control_name, font_scale, name_controls, page_setup, text
from ui.widgets import plot

P = "class"  # session and widget keys: class.*
MODEL = SHIPPED_MODEL  # as the sampling page loads it: the clone's models/, or an install's rnnviz/models/
KEY_CODE, KEY_TOKEN, KEY_VOTER = f"{P}.code", f"{P}.token", f"{P}.voter"
VISITOR_COOKIE = "rnnviz_visitor"  # nginx's per-browser cookie (deploy/nginx.conf.template), when behind it
THIS_PAGE = "app_pages/class_room.py"
REFRESH_S = 1.5  # the projector's count and the phones' question refresh this often (the issue asks within 2 s)
MESSAGE_S = 8.0  # a refusal stays this long on a page that redraws itself
LESSON_NAMES = {"scalar": "One unit by hand", "vector": "The cell, step by step", "gradients": "Gradients through time",
                "gates": "Gates: LSTM and GRU", "states": "Using the states", "hello": 'Train "hello" yourself',
                "sample": "Sample a trained model", "recurrences": "Recurrence returns"}


def _setup(params) -> dict:
    return {p.url: (p.default, p.parse) for p in params}


# Each page's link names with the page's own defaults and parsers (its Param list in ui/lessons), so a question reads
# a link exactly as the page does.
PARAMS = {"scalar": scalar_words.PARAMS, "vector": vector_words.PARAMS, "gradients": gradients_words.PARAMS,
          "gates": gates_words.PARAMS, "states": states_words.PARAMS, "hello": hello_words.PARAMS,
          "recurrences": recurrences_words.PARAMS}
SETUPS = {lesson: _setup(params) for lesson, params in PARAMS.items()}


def bad_names(lesson: str, bad: list[str], lm=None) -> str:
    """The link names `bad` as the lesson page's own notice names them: each control's label, its link name after."""
    params = PARAMS.get(lesson) or (sample_words.params(lm) if lm is not None else [Param("sample.prime", "prime",
                                                                                            "", text(500))])
    if lesson == "sample":  # the sampling page registers its labels on arrival; the Class page may come first
        name_controls({p.key: sample_words.LABELS[p.url] for p in params if p.url in sample_words.LABELS})
    by_url = {p.url: p for p in params}
    return ", ".join(control_name(by_url[u]) for u in bad)


def setups(lesson: str, lm=None) -> dict:
    """The page's link names; the sampling page's depend on its model (its k, layers and units)."""
    if lesson == "sample":
        return _setup(sample_words.params(lm)) if lm is not None else {"prime": ("ROMEO:", text(500))}
    return SETUPS[lesson]


INTRO = ("Open a room, show its code or QR code, and every phone in the hall can answer the question you ask from a "
         "lesson page's setup. No accounts; answers are anonymous and gone after 12 hours.")
CELL_NAMES = {"rnn": "vanilla RNN", "lstm": "LSTM", "gru": "GRU"}


@dataclass(frozen=True)
class Made:
    prompt: str
    labels: tuple[str, ...]  # option labels (choice) or () for a number
    answer: Q.Answer
    truth_text: str  # the answer in words, for the reveal


def read_link(lesson: str, link: str, lm=None) -> tuple[dict, list[str]]:
    """The lesson page's setup from its link (or the bare query): each value parsed as the page parses it; values
    missing or refused take the page's default. Also the names refused."""
    raw = link.strip()
    query = urllib.parse.urlsplit(raw).query if "?" in raw or "://" in raw else raw
    given = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
    out, bad = {}, []
    for name, (default, parse) in setups(lesson, lm).items():
        out[name] = default
        if name in given:
            try:
                out[name] = parse(given[name])
            except (ValueError, TypeError, OverflowError):
                bad.append(name)
    return out, bad


def link_query(lesson: str, s: dict, lm=None) -> str:
    """The setup as a link query (only values that differ from the page's defaults), for the CSV and the reveal."""
    default = setups(lesson, lm)
    return urllib.parse.urlencode({k: v for k, v in s.items()
                                   if v != default[k][0] and isinstance(v, (str, int, float))})


def _inputs(s: dict) -> tuple[np.ndarray, str]:
    if s["in"] == "chars":
        return encode_word(s["word"], parse_vocab(s["vocab"])), f"the word “{s['word']}”"
    x = parse_vectors(s["vec"])
    return x, f"{len(x)} typed input vectors"


def _scalar_setup(s: dict) -> tuple[list[float], str]:
    x = parse_sequence(s["x"])
    return x, (f"One unit, hₜ = tanh(wₓ·xₜ + wₕ·hₜ₋₁ + b) with wₓ = {s['wx']:g}, wₕ = {s['wh']:g}, b = {s['b']:g}, "
               f"h₀ = {s['h0']:g}, inputs x = {', '.join(f'{v:g}' for v in x)}.")


def q_scalar_state(s: dict, lm=None) -> Made:
    x, setup = _scalar_setup(s)
    t = min(s["t"] or len(x), len(x))
    a = Q.scalar_state(x, s["wx"], s["wh"], s["b"], s["h0"], t)
    return Made(f"{setup} What is h{sub(t)}? (a number between −1 and 1)", (), a, f"h{sub(t)} = {fmt(a.truth)}")


def q_scalar_settle(s: dict, lm=None) -> Made | None:
    x, setup = _scalar_setup(s)
    a = Q.scalar_settle(x, s["wx"], s["wh"], s["b"], s["h0"])
    if a is None:
        return None
    return Made(f"{setup} After the last input the inputs stop (x = 0 from then on). Where does h settle?", (), a,
                f"h settles at {fmt(a.truth)}")


def q_vector_unit(s: dict, lm=None) -> Made | None:
    x, what = _inputs(s)
    if not 2 <= s["H"] <= 12 or s["w"] != "generate":  # hand-edited weights are not in the link
        return None
    a = Q.vector_largest_unit(x, s["H"], s["K"], s["seed"], s["rho"])
    labels = tuple(f"unit {u}" for u in a.options)
    return Made(f"A vector RNN with H = {s['H']} units (seed {s['seed']}, ρ = {s['rho']:g}) reads {what}. "
                f"Which unit of the last state h_T is largest?", labels, a,
                f"unit {a.options[int(a.truth)]} (h_T = {', '.join(fmt(v) for v in a.facts)})")


def q_gradient(s: dict, lm=None) -> Made:
    a = Q.gradient_threshold(s["H"], s["T"], s["w"], s["by"], s["bf"], s["bz"], s["xs"], s["seed"])
    size = "σₘₐₓ" if s["by"] == "sigma" else "ρ"
    return Made(f"A vanilla RNN with H = {s['H']} units, Wₕₕ scaled to {size} = {s['w']:g}, inputs × {s['xs']:g}, "
                f"seed {s['seed']}. Will ‖∂h{sub(s['T'])}/∂h₀‖ be above or below 10⁻³?", ("above 10⁻³", "below 10⁻³"),
                a, f"{'above' if a.truth == 0 else 'below'}: 10^{a.facts[0]:.1f}")


def q_gates_memory(s: dict, lm=None) -> Made:
    a = Q.gates_memory(s["H"], s["seed"], s["rho"], s["bf"])
    logs = ", ".join(f"{CELL_NAMES[c]} 10^{v:.1f}" for c, v in zip(a.options, a.facts))
    return Made(f"A vanilla RNN, an LSTM (forget bias {s['bf']:g}) and a GRU, H = {s['H']}, each Wₕₕ at ρ = "
                f"{s['rho']:g}, read 50 random inputs. Which cell still holds x₁ after 50 steps (the largest "
                f"‖∂h₅₀/∂h₁‖)?", tuple(CELL_NAMES[c] for c in a.options), a,
                f"{CELL_NAMES[a.options[int(a.truth)]]} ({logs})")


def q_gate_value(s: dict, lm=None) -> Made:
    x, what = _inputs(s)
    t = min(s["t"], len(x))
    a = Q.gate_value(s["cell"], x, s["H"], s["seed"], s["rho"], s["bf"], t)
    forget = get_cell(s["cell"]).forget_gate is not None
    gate = "forget gate f" if forget else "update gate z"
    bias = f", forget bias {s['bf']:g}" if forget else ""
    return Made(f"An {CELL_NAMES[s['cell']]} with H = {s['H']} (seed {s['seed']}, ρ = {s['rho']:g}{bias}) "
                f"reads {what}. "
                f"What is the first unit's {gate}{sub('t')} at step {t}? (between 0 and 1)", (), a,
                f"{gate}{sub(t)} = {fmt(a.truth)}")


def q_params(s: dict, lm=None) -> Made:
    a = Q.parameter_count(s["task"], s["cell"], s["d"], s["H"], s["V"], s["K"], s["emb"], s["L"], s["bi"])
    what = (f"a language model over V = {s['V']:,} tokens, embeddings of {s['d']}" if s["task"] == "lm" else
            f"a classifier of {s['d']}-d inputs into K = {s['K']} classes")
    cell = states_words.CELL_LABELS[s["cell"]]
    return Made(f"A {s['L']}-layer {'bidirectional ' if s['bi'] else ''}{cell} with H = {s['H']}, "
                f"{what}. How many parameters does it have? (within 10 % counts as right)", (), a,
                f"{int(a.truth):,} parameters")


def q_linear(s: dict, lm=None) -> Made:
    x = parse_sequence(s["x"])
    t = min(s["t"], len(x))
    a = Q.linear_state(x, s["a"], s["b"], t)
    return Made(f"The linear recurrence hₜ = a·hₜ₋₁ + b·xₜ with a = {s['a']:g}, b = {s['b']:g}, h₀ = 0, inputs x = "
                f"{', '.join(f'{v:g}' for v in x)}. What is h{sub(t)}? (no tanh: it can leave [−1, 1])", (), a,
                f"h{sub(t)} = {fmt(a.truth)}")


def q_softmax(s: dict, lm=None) -> Made:
    scores = parse_sequence(s["scores"], max_len=64, name="list of scores")
    a = Q.softmax_first(scores)
    return Made(f"Scores {', '.join(f'{v:g}' for v in scores)} go through a softmax. What probability does the "
                f"first one get? (between 0 and 1)", (), a, f"p = {fmt(a.truth)}")


def _char(c: str) -> str:
    return {"\n": "a line break ↵", " ": "a space ␣"}.get(c, f"“{c}”")


def q_next_char(s: dict, lm=None) -> Made:
    a = Q.next_character(lm, s["prime"])
    return Made(f"The Shakespeare LSTM has read “{s['prime']}”. Which character does it find most likely next?",
                tuple(_char(c) for c in a.options), a,
                f"{_char(a.options[int(a.truth)])}, p = {fmt(a.facts[int(a.truth)])}")


def q_next_prob(s: dict, lm=None) -> Made:
    a = Q.next_probability(lm, s["prime"])
    return Made(f"The Shakespeare LSTM has read “{s['prime']}”. What probability does it give its most likely next "
                f"character? (between 0 and 1)", (), a, f"p = {fmt(a.truth)} for {_char(lm.itos[int(a.facts[0])])}")


MAKERS: dict[str, dict[str, tuple[str, Callable]]] = {  # lesson -> question id -> (menu label, maker)
    "scalar": {"state": ("hₜ for these weights (a number)", q_scalar_state),
               "settle": ("Where does the state settle? (a number)", q_scalar_settle)},
    "vector": {"unit": ("Which unit of h_T is largest?", q_vector_unit)},
    "gradients": {"threshold": ("‖∂h_T/∂h₀‖ above or below 10⁻³?", q_gradient)},
    "gates": {"memory": ("Which cell still holds x₁ after 50 steps?", q_gates_memory),
              "gate": ("A gate's value at step t (a number)", q_gate_value)},
    "recurrences": {"linear": ("hₜ of the linear recurrence (a number)", q_linear)},
    "states": {"params": ("How many parameters? (a number)", q_params)},
    "hello": {"softmax": ("Softmax: the first probability (a number)", q_softmax)},
    "sample": {"next": ("Which character comes next?", q_next_char),
               "prob": ("With what probability? (a number)", q_next_prob)},
}


# -- the reveal on the lesson's own chart: what the page draws for this setup, with the class's answers on it ------
Rounds = dict  # round -> the class's answers (numbers, or choice indices)
REVEAL_HEIGHT = 440  # the lesson's chart on the projector's first screen, under the one line of results


def chart_scalar_state(s: dict, q: Question, rounds: Rounds, fs: float):
    x = parse_sequence(s["x"])
    t = min(s["t"] or len(x), len(x))
    trace = run_scalar(np.asarray(x, float), s["wx"], s["wh"], s["b"], s["h0"])
    fig = answers_on(scalar_figures.states_over_time(trace.h[:, 0], x, None, fs), t, rounds, q.truth,
                     f"exact h{sub(t)}")
    return fig.update_layout(height=REVEAL_HEIGHT).update_yaxes(range=[-1.1, 1.1])  # every answer tanh allows


def chart_scalar_settle(s: dict, q: Question, rounds: Rounds, fs: float):
    x = parse_sequence(s["x"])
    h = run_scalar(np.asarray(x, float), s["wx"], s["wh"], s["b"], s["h0"]).h[:, 0]
    h = np.r_[h, iterate_silence(float(h[-1]), s["wh"], s["b"], 12)[1:]]  # the inputs stop: the silent steps
    fig = scalar_figures.states_over_time(h, list(x) + [0.0] * 12, None, fs)
    fig = answers_on(fig, len(h) + 1, rounds, q.truth, "where h settles")
    return fig.update_layout(height=REVEAL_HEIGHT).update_yaxes(range=[-1.1, 1.1])


def _decay(s: dict, T: int, by: str, scale: float, xs: float, bz: float, fs: float):
    """The gradients page's decay chart for this setup, with the three cells' curves the questions are about."""
    cmp = gradients_words.compared(s["H"], T, scale, s["bf"], xs, s["seed"], by, bz)
    curves = {k: v for k, v in gradients_lesson.curves(cmp).items() if k in ("rnn", "lstm", "gru")}
    fig = gradient_figures.gradient_decay(curves, font_scale=fs)
    return curves, fig.update_layout(height=REVEAL_HEIGHT + 60)


def _tally(q: Question, rounds: Rounds, names: tuple[str, ...]) -> str:
    """The class's votes, a line an option (the box tally_on adds in a strip under the chart): "LSTM: 12", or
    "LSTM: 12 → 20" over two rounds."""
    counts = [np.bincount(np.asarray(a, int), minlength=len(names)) for _, a in sorted(rounds.items())]
    head = "the class" + (f", rounds {' → '.join(str(r) for r in sorted(rounds))}" if len(rounds) > 1 else "")
    return "<br>".join([head] + [f"{o}: " + " → ".join(str(c[k]) for c in counts) for k, o in enumerate(names)])


def chart_gradient(s: dict, q: Question, rounds: Rounds, fs: float):
    curves, fig = _decay(s, s["T"], s["by"], s["w"], s["xs"], s["bz"], fs)
    fig.add_hline(y=1e-3, line=dict(color=COLORS["output"], width=2, dash="dot"), annotation_text="10⁻³")
    y = float(curves["rnn"][s["T"]])
    fig = answers_on(fig, s["T"], {}, 10 ** y, f"exact: {truth_text(q)}")
    return tally_on(fig, _tally(q, rounds, ("above", "below")), fs)


def chart_memory(s: dict, q: Question, rounds: Rounds, fs: float):
    curves, fig = _decay(s, 50, "rho", s["rho"], 1.0, 0.0, fs)  # as rnnviz.rooms.questions.gates_memory runs it
    y = float(curves[Q_CELLS.get(q.options[int(q.truth)], "lstm")][49])
    fig = answers_on(fig, 49, {}, 10 ** y, f"exact: {truth_text(q)}")
    return tally_on(fig, _tally(q, rounds, q.options), fs)


def chart_softmax(s: dict, q: Question, rounds: Rounds, fs: float):
    sc = parse_sequence(s["scores"], max_len=64, name="list of scores")
    vocab = vocabulary(SOFTMAX_WORD)
    labels = vocab if len(sc) == len(vocab) else [f"#{k + 1}" for k in range(len(sc))]
    fig = hello_figures.softmax_bars(labels, softmax(np.asarray(sc, float)), font_scale=fs, title="softmax(scores)")
    fig.update_layout(height=REVEAL_HEIGHT).update_yaxes(range=[0, 1.05])
    return answers_on(fig, labels[0], rounds, q.truth, "exact p")


Q_CELLS = {v: k for k, v in CELL_NAMES.items()}  # an option's label back to its cell
CHARTS = {("scalar", "state"): chart_scalar_state, ("scalar", "settle"): chart_scalar_settle,
          ("gradients", "threshold"): chart_gradient, ("gates", "memory"): chart_memory,
          ("hello", "softmax"): chart_softmax}


def make(lesson: str, qid: str, link: str, lm=None) -> tuple[Question | None, Made | None, str | None]:
    """The question for the store, its words, and a message when the link's setup cannot make it."""
    s, bad = read_link(lesson, link, lm)
    note = f"The link's value for {bad_names(lesson, bad, lm)} was not valid, so the page's default is used. " \
        if bad else ""
    try:
        made = MAKERS[lesson][qid][1](s, lm)
    except InputError as e:
        return None, None, f"{note}{e}"
    if made is None:
        return None, None, note + ("This setup has no single answer for that question (e.g. the state never "
                                   "settles, H is outside 2-12, or the weights were edited by hand); pick another "
                                   "question or change the setup.")
    a, setup = made.answer, link_query(lesson, s, lm)
    try:
        q = Question(made.prompt, a.kind, a.truth, made.labels, a.lo, a.hi, a.tol, lesson, setup, qid)
    except TooLong:  # a long input sequence or text: said, not a traceback
        return None, None, note + (f"This setup is too long to ask about: its question would run to "
                                   f"{len(made.prompt):,} characters (a phone shows at most {MAX_TEXT}) and its link "
                                   f"to {len(setup):,} (at most {MAX_SETUP:,}). Shorten the input sequence or the "
                                   "text, then ask again.")
    return q, made, note or None


def plain(s: str) -> str:
    """Text for st.markdown with every markdown character escaped: a link's word or prime shows as typed."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~$:])", r"\\\1", s)


def voter(ss, store: RoomStore, code: str) -> str:
    """This phone's voter token, issued by the room: behind nginx derived from the browser's own cookie (another tab
    or a reload is the same voter); else the token a reloaded page carries in its link (`me`, signed: an edited one
    is refused), else a new one, written into the link."""
    if KEY_VOTER not in ss:
        cookie = st.context.cookies.get(VISITOR_COOKIE) if st.context.cookies else None
        ss[KEY_VOTER] = (None if cookie else st.query_params.get("me")) or store.issue_voter(code, cookie)
        st.query_params["me"] = ss[KEY_VOTER]  # a reload keeps the same voter (one vote per round)
    return ss[KEY_VOTER]


def enter(ss, store: RoomStore, code: str) -> RoomView | None:
    """A phone's look at the room: given a voter token and counted in once, then each refresh only reads the room.
    None after saying why not; an edited link is forgotten, and Join again gives this phone a fresh token."""
    try:
        view = store.view(code, counts=False) if ss.get(f"{P}.in.{code}") else store.join(code, voter(ss, store, code))
        ss[f"{P}.in.{code}"] = True
        return view
    except RoomError as e:
        st.warning(e.message, icon=":material/info:")
        if isinstance(e, BadVoter):
            ss.pop(KEY_VOTER, None)
            st.page_link(THIS_PAGE, label="Join again", query_params={"room": code})
        return None


def vote(store: RoomStore, code: str, number: int, rnd: int, value) -> None:
    """A tap on a choice (its index), or the Vote button (value: the number box's key, read now, not at drawing). A
    refusal is said under the Vote button, by the box it is about: said at the top, "Please enter a number" read as a
    refusal of the number typed (the box had refused an answer out of range, and held none)."""
    ss = st.session_state
    value = ss.get(value) if isinstance(value, str) else value
    try:
        store.vote(code, ss[KEY_VOTER], number, rnd, value)
    except RoomError as e:
        return say(e.message, "vote")
    ss[mine_key(code, number, rnd)] = value


def act(fn, *args) -> None:
    """A button's store call; a refusal or an outage becomes a message on the next runs, never a traceback."""
    st.session_state.pop(f"{P}.msg", None)
    try:
        fn(*args)
    except RoomError as e:
        say(e.message)


def say(message: str, where: str = "") -> None:
    """A message for the page's next runs (show_message)."""
    st.session_state[f"{P}.msg"] = (message, time.monotonic(), where)


def show_message(where: str = "") -> None:
    """The last refusal, for MESSAGE_S: a phone's view redraws itself every REFRESH_S, and a message shown once was
    gone in under half a second. Shown in one place, where it was said (`say`'s `where`): the join form's under
    the form, the others at the top (shown in both, a wrong code read twice on a phone)."""
    got = st.session_state.get(f"{P}.msg")
    if got and time.monotonic() - got[1] >= MESSAGE_S:
        st.session_state.pop(f"{P}.msg", None)
    elif got and got[2] == where:
        st.warning(got[0], icon=":material/info:")


def mine_key(code: str, number: int, rnd: int) -> str:
    """The session key of this phone's answer to question `number`, round `rnd`."""
    return f"{P}.mine.{code}.{number}.{rnd}"


def my_answer(ss, store: RoomStore, code: str, number: int, rnd: int):
    """This phone's answer for the round: the one it gave in this session, else the one the room holds for its voter
    (a phone that reloaded, or another tab of the same voter, is a session with the same voter: it shows its answer,
    not the question again). Asked at each refresh until there is one: one read; a room that cannot say (an outage)
    leaves the question up, and the vote then says why."""
    key = mine_key(code, number, rnd)
    if key not in ss:
        try:
            if (v := store.mine(code, ss[KEY_VOTER], number, rnd)) is not None:
                ss[key] = v
        except RoomError:
            pass
    return ss.get(key)


def join_form(ss, store: RoomStore, where: str) -> None:
    """A box for the code on the projector and Join: a phone that came to the page without the room's link or QR
    code (or typed a wrong code) gets in from here."""
    with st.form(f"{P}.join.{where}", border=False, enter_to_submit=True):
        typed = st.text_input("Room code (on the projector)", key=f"{P}.typed.{where}", max_chars=12,
                              placeholder="6 letters and digits")
        go = st.form_submit_button("Join", key=f"{P}.join_btn.{where}", type="primary", width="stretch")
    if go:
        try:
            code = clean_code(typed)
            store.view(code, counts=False)  # a room that exists, else the same message as its link would give
        except RoomError as e:
            say(e.message, "join")  # kept MESSAGE_S: on a phone this box is redrawn every REFRESH_S
        else:
            for key in [k for k in ss if k == KEY_VOTER or k.startswith(f"{P}.in.")]:
                del ss[key]  # a voter token is one room's: the new room issues its own
            st.query_params.clear()
            st.query_params["room"] = code
            st.rerun(scope="app")
    show_message("join")


def qr_png(url: str, px: int = 12) -> bytes:
    """The join link as a PNG QR code, `px` pixels per module (about 400 px across for a short link)."""
    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="png", scale=px, border=2)
    return buf.getvalue()


def page_url(this_url: str, page: str, query: str) -> str:
    """The address of one of this server's pages (its url path), with a query: under the public address where the
    launcher names one (`rnnviz.serve --public-url`, or its --server-name), else under the address this browser used."""
    public = os.environ.get("RNNVIZ_PUBLIC_URL")
    parts = urllib.parse.urlsplit(public or this_url or "http://localhost:8501")  # None: no browser asked (AppTest)
    base = parts.path.rstrip("/") if public else ""
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, f"{base}/{page}", query, ""))


def join_url(this_url: str, code: str) -> str:
    """The students' link: this server's Class page with ?room=CODE."""
    return page_url(this_url, "class_room", f"room={code}")


def answer_text(q: Question, v: float) -> str:
    return q.options[int(v)] if q.kind == "choice" else fmt(v)


def truth_text(q: Question) -> str:
    return q.options[int(q.truth)] if q.kind == "choice" else fmt(q.truth)


def moved_text(q: Question, r1: Q.Round, r2: Q.Round | None) -> str:
    """One line for the projector: how many were right, and after the discussion."""
    line = f"Round 1: **{r1.right} of {r1.n}** right"
    if q.kind == "number" and r1.n:
        line += f" (within {fmt(q.tol) if q.tol < 1000 else f'{q.tol:,.0f}'}; median miss {fmt(r1.median_error)})"
    if r2 is not None:
        line += f". After discussing: **{r2.right} of {r2.n}** right"
        if q.kind == "number" and r2.n:
            line += f" (median miss {fmt(r2.median_error)})"
    return line + "."


def csv_rows(rows: list[dict]) -> bytes:
    import pandas as pd

    cols = ["question", "lesson", "prompt", "setup", "round", "answer", "truth", "count"]
    return pd.DataFrame(rows, columns=cols).to_csv(index=False).encode()


def lesson_chart(q: Question, answers: Rounds, fs: float):
    """The lesson page's own chart for the question's setup with the class's answers on it; None for a question
    without one (the histogram stands alone) or a setup that no longer draws."""
    draw = CHARTS.get((q.lesson, q.qid))
    if draw is None:
        return None
    try:
        return draw(read_link(q.lesson, q.setup)[0], q, answers, fs)
    except (InputError, ValueError, KeyError, IndexError):
        return None


def draw_reveal(store: RoomStore, token: str, view: RoomView) -> None:
    """How many were right, then the class's answers, each round so far, against the exact answer: on the lesson's
    own chart where the question has one (the histogram folded below it), else as a histogram or bars."""
    q, code, fs = view.question, view.code, font_scale()
    answers = {r: store.answers(code, token, view.number, r) for r in range(1, view.round + 1)}
    rounds = {r: Q.summarise(q.kind, q.truth, q.tol, a, q.lo, q.hi, len(q.options)) for r, a in answers.items()}
    st.markdown(f"The exact answer: **{plain(truth_text(q))}**. " + moved_text(q, rounds[1], rounds.get(2)))
    labels = [f"{o} ✓" if i == int(q.truth) else o for i, o in enumerate(q.options)] if q.kind == "choice" else None
    hist = reveal_figure(labels, {r: (s.counts, s.edges) for r, s in rounds.items()}, q.truth,
                         f"exact: {truth_text(q)}", int(q.truth) if q.kind == "choice" else None, font_scale=fs)
    alt = f"answers per round against the exact answer {truth_text(q)}"
    chart = lesson_chart(q, answers, fs)
    if chart is None:
        plot(hist, key=f"{P}.reveal", alt=alt)
        return
    plot(chart, key=f"{P}.reveal_lesson", alt=f"the lesson's chart with the class's {alt}")
    with st.expander("The same answers as a histogram, round by round"):
        plot(hist, key=f"{P}.reveal", alt=alt)


def resume(ss, store: RoomStore, params) -> None:
    """A lecturer's bookmarked link (?host=CODE&key=TOKEN) gives this browser its room back after a reload; both
    leave the address bar at once (a projector shows it)."""
    code, key = params.get("host"), params.get("key")
    if not (code and key):
        return
    del params["host"], params["key"]
    try:
        store.answers(code, key, 0, 1)  # only the room's token may read its answers
        ss[KEY_CODE], ss[KEY_TOKEN] = clean_code(code), key
    except RoomError:
        say("That lecturer link does not open a room (wrong key, or the room has expired).")


def keep_link(url: str, code: str, token: str) -> None:
    """The lecturer's own link, folded away: it steers the room, so it is for this browser's bookmarks only."""
    with st.expander("Keep control after a reload"):
        st.caption("Bookmark this link for yourself; never show it to the class: whoever has it steers the room.")
        st.code(url.split("?")[0] + f"?host={code}&key={token}", language=None)


def ask_link(url_path: str) -> None:
    """On a lesson page in classroom mode: the Class page, with this page's first question and its setup as it is
    when pressed. A button, not a link: a link's address is written when app.py's foot is drawn, and most settings
    rerun only their own part of the page, so a link asked about the setup before them."""
    if url_path in MAKERS and st.button("Ask the class", key="app.ask", icon=":material/groups:", type="tertiary"):
        st.switch_page(THIS_PAGE, query_params={"classroom": "1", "ask": url_path, "setup": page_setup()})


def take_ask(ss, store: RoomStore, params) -> None:
    """Arriving from a lesson page's Ask the class: that page's first question and setup are picked (a room is
    opened if this browser has none); the lecturer checks it and presses Ask the class."""
    lesson, setup = params.get("ask"), params.get("setup", "")
    if lesson is None:
        return
    for name in ("ask", "setup"):
        params.pop(name, None)
    if lesson not in MAKERS:
        return
    link = page_url(st.context.url, lesson, setup)  # the box asks for the page's link: a whole one, not a query
    ss[f"{P}.lesson"], ss[f"{P}.question"], ss[f"{P}.link"] = lesson, next(iter(MAKERS[lesson])), link[:4000]
    ss[f"{P}.asking"] = True  # the ask panel opens
    if KEY_CODE not in ss:
        try:
            ss[KEY_CODE], ss[KEY_TOKEN] = store.open_room()
        except RoomError as e:
            say(e.message)
