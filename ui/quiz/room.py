"""The concept quiz in a class room: each item asked as a room question whose setup names the round and the item, so
the results are read back from the room's own export (a reload loses nothing); then the class's normalized gain per
item and overall, the misconceptions that persisted, and the same as a CSV."""
from __future__ import annotations

import math
import urllib.parse

from rnnviz.rooms.quiz import ClassGain, class_gain, persisting
from rnnviz.rooms.room import Question
from rnnviz.text import strip_bidi
from ui.quiz.items import ITEMS, Item

LESSON = "quiz"  # a quiz question's `lesson` in the room (no lesson page: the reveal is the histogram)
ROUNDS = {"pre": "before the lecture", "post": "after the lecture"}
COLUMNS = ["item", "prompt", "pre", "answers_pre", "post", "answers_post", "g", "persisted"]  # shares right, 0 to 1


def question(k: int, rnd: str) -> Question:
    """Item k (0-based) as a room question for round `rnd` ("pre" or "post")."""
    item = ITEMS[k]
    return Question(f"Quiz, {ROUNDS[rnd]}: {k + 1} of {len(ITEMS)}. {item.prompt}", "choice", float(item.right),
                    item.options, lesson=LESSON, setup=urllib.parse.urlencode({"round": rnd, "item": item.id}),
                    qid=item.id)


def answers(rows: list[dict]) -> dict[str, dict[str, list[int]]]:
    """Round -> item id -> the class's answers (option indices), from a room's export rows: first-round votes of the
    last time each item was asked in each round."""
    by_id = {it.id: it for it in ITEMS}
    last: dict[tuple[str, str], int] = {}
    for r in rows:
        if r["lesson"] == LESSON and r["round"] == 1:
            s = dict(urllib.parse.parse_qsl(r["setup"]))
            if s.get("round") in ROUNDS and s.get("item") in by_id:
                last[(s["round"], s["item"])] = max(last.get((s["round"], s["item"]), 0), r["question"])
    out: dict[str, dict[str, list[int]]] = {rnd: {} for rnd in ROUNDS}
    for r in rows:
        s = dict(urllib.parse.parse_qsl(r["setup"])) if r["lesson"] == LESSON and r["round"] == 1 else {}
        if s and last.get((s.get("round"), s.get("item"))) == r["question"]:
            item = by_id[s["item"]]
            out[s["round"]].setdefault(item.id, []).extend([item.options.index(r["answer"])] * int(r["count"]))
    return out


def gain(got: dict[str, dict[str, list[int]]]) -> ClassGain:
    return class_gain([got["pre"].get(it.id, []) for it in ITEMS], [got["post"].get(it.id, []) for it in ITEMS],
                      [it.right for it in ITEMS], [len(it.options) for it in ITEMS])


def pct(v: float) -> str:
    return "–" if math.isnan(v) else f"{100 * v:.0f} %"


def g_text(v: float) -> str:
    return "–" if math.isnan(v) else f"{v:.2f}"


def persisted(item: Item, k: int, cg: ClassGain) -> str:
    it = cg.items[k]
    return "; ".join(f"{item.misconceptions[o]} ({pct(it.post_counts[o] / it.n_post)})"
                     for o in persisting(it, item.right))


def report(cg: ClassGain) -> list[dict]:
    """One row an item, then the class's (shares right and g as numbers, NaN where unknown): the CSV's rows."""
    rows = [{"item": it.id, "prompt": it.prompt, "pre": g.pre, "answers_pre": g.n_pre, "post": g.post,
             "answers_post": g.n_post, "g": g.g, "persisted": persisted(it, k, cg)}
            for k, (it, g) in enumerate(zip(ITEMS, cg.items))]
    rows.append({"item": "class", "prompt": "the items answered in both rounds", "pre": cg.pre,
                 "answers_pre": sum(g.n_pre for g in cg.items), "post": cg.post,
                 "answers_post": sum(g.n_post for g in cg.items), "g": cg.g, "persisted": ""})
    return rows


def shown(rows: list[dict]) -> list[dict]:
    """The report as the page shows it: percentages, g to two places, a dash where unknown."""
    return [{"item": r["item"], "before": pct(r["pre"]), "after": pct(r["post"]), "g": g_text(r["g"]),
             "answers": f"{r['answers_pre']} / {r['answers_post']}", "misconceptions that persisted": r["persisted"]}
            for r in rows]


def csv_bytes(rows: list[dict]) -> bytes:
    import pandas as pd

    rows = [{k: strip_bidi(v) if isinstance(v, str) else v for k, v in r.items()} for r in rows]
    return pd.DataFrame(rows, columns=COLUMNS).to_csv(index=False, float_format="%.4f").encode()
