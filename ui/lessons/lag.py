"""The lag experiment's words on the gradients page (its numbers: rnnviz/experiments/lag_results.py): what the task
is, which cell learned which lag over the seeds, when each learned, and where the shipped results came from. The
sentences are made from the results, so they always say what the charts show."""
from __future__ import annotations

import numpy as np

from rnnviz.experiments import lag_results
from rnnviz.experiments.lag_task import CELLS, ROWS
from rnnviz.nn.cells import get

LAG_ABOUT = (
    "How far back can each cell learn to reach? Each stream is k + 1 random symbols (of {symbols}); after the last "
    "one the cell must name the *first*. There is one thing to keep, so the size of the memory is not the limit: "
    "what is tested is whether the gradient that teaches it reaches k steps back. Every cell was sized to about the "
    "same number of parameters (the hidden size whose count, output layer included, comes closest to the LSTM's "
    "with H = {lstm_hidden}) and trained with Adam in PyTorch: {how}; then scored at exactly lag k on fresh "
    "streams. The LSTM runs twice: with its forget-gate bias at 0 and at the {taught:+g} the gates page teaches. "
    "Bars: the spread over seeds (lowest to highest); lines: their mean.")
LAG_MISSING = "No results shipped yet: `python -m rnnviz.lag` makes models/lag_results.json."


def lag_about(results: dict) -> str:
    """What the experiment is, with its task size, budget size and the taught forget-gate bias."""
    return LAG_ABOUT.format(symbols=results["task"]["symbols"], lstm_hidden=results["budget"]["lstm_hidden"],
                            taught=results.get("taught_forget_bias", 1.0), how=results["task"]["curriculum"])


def lag_name(results: dict, row: str) -> str:
    """A row's name in sentences: the LSTMs carry their forget-gate bias."""
    b = results["cells"][row].get("forget_bias")
    name = get(ROWS[row][0]).presentation.label
    return name + (f" ($b_f$ = {b:+g})" if b else " ($b_f$ = 0)" if b is not None else "")  # markdown


def pct(v: float) -> str:
    return f"{v:.0%}" if v in (0.0, 1.0) or 0.01 <= v <= 0.99 else f"{v:.1%}"


def seed_range(acc: np.ndarray) -> str:
    """A column of per-seed accuracies, as 'a–b' (or one number when they agree to the percent)."""
    lo, hi = pct(float(acc.min())), pct(float(acc.max()))
    return lo if lo == hi else f"{lo}–{hi}"


def lag_summary(results: dict, level: float = 0.9) -> str:
    """The results in words, every number read from the JSON: whether the aim was reached and where, how far each
    row reaches, what the forget-gate bias changed, and the linear recurrences' rows if present."""
    lags, rows = results["lags"], [r for r in ROWS if r in results["cells"]]
    chance = 1 / results["task"]["symbols"]
    acc = {r: lag_results.accuracy(results, r) for r in rows}
    plain, lstm, gru = CELLS  # the vanilla RNN, then the gated cells the aim is about
    aim = lag_results.aim_lags(results, level) if all(r in acc for r in CELLS) else []
    parts = []
    if aim:
        k = aim[-1]
        j, over = lags.index(k), lag_results.vanilla_over(results, k)
        n = len(results["seeds"])
        parts.append(f"**Gates win at lag {', '.join(map(str, aim))}.** At lag {k} the {lag_name(results, lstm)} "
                     f"scored {seed_range(acc[lstm][:, j])} and the {lag_name(results, gru)} "
                     f"{seed_range(acc[gru][:, j])} over the "
                     f"seeds, every seed at {level:.0%} or more, while the vanilla RNN's mean stayed under twice "
                     f"chance ({pct(2 * chance)}): {pct(float(acc[plain][:, j].mean()))}, its seeds "
                     f"{seed_range(acc[plain][:, j])}" + (f"; {over} of its {n} seeds reached {pct(2 * chance)} or "
                                                          "more, so it learns a little" if over else "") + ".")
    elif all(r in acc for r in CELLS):
        j = len(lags) - 1
        parts.append(f"**The aim was not reached at this budget** (the LSTM and the GRU at {level:.0%} or more for "
                     f"every seed at a lag where the vanilla RNN stays under twice chance, {pct(2 * chance)}). At the "
                     f"longest lag, {lags[j]}: " + ", ".join(f"{lag_name(results, r)} {seed_range(acc[r][:, j])}"
                                                             for r in (lstm, gru, plain)) + " over the seeds.")
    reach = []
    for r in rows:
        b = lag_results.best_lag(results, r, level)
        reach.append(f"{lag_name(results, r)} up to lag {b}" if b else f"{lag_name(results, r)} not even at lag "
                     f"{lags[0]}")
    parts.append(f"A mean accuracy of {level:.0%} or more at every lag from the shortest: " + "; ".join(reach) + ".")
    biased = sorted((r for r in acc if ROWS[r][1] is not None), key=lambda r: ROWS[r][1])  # one cell, two biases
    if len(biased) == 2:
        zero, taught = biased
        gap = acc[taught].mean(axis=0) - acc[zero].mean(axis=0)
        j = int(np.argmax(np.abs(gap)))
        if abs(gap[j]) >= 0.1:
            parts.append(f"The forget-gate bias matters: at lag {lags[j]} the {lag_name(results, zero)} scored "
                         f"{seed_range(acc[zero][:, j])} and the {lag_name(results, taught)} "
                         f"{seed_range(acc[taught][:, j])}.")
        else:
            parts.append(f"The forget-gate bias changed little here: the two LSTMs' means are within "
                         f"{max(abs(float(gap[j])), 0.005) * 100:.0f} percentage points at every lag.")
    lin = [r for r in acc if get(ROWS[r][0]).parallel]  # minGRU, the LRU
    if lin:
        parts.append("The linear recurrences, with one linear layer reading them: " + "; ".join(
            f"{lag_name(results, r)} at most {pct(float(acc[r].max()))} at any lag and seed" for r in lin) + ". "
            "Their gates (minGRU) or eigenvalues (LRU) do not see the state, so nothing marks the first symbol as "
            "the one to keep; in the papers they are stacked with nonlinear layers between.")
    return " ".join(parts)


def curve_summary(results: dict, level: float = 0.9) -> str:
    """When each row first reached `level` at the curve's lag, by the seeds' mean (or that it never did)."""
    cur = results["curve"]
    said = []
    for r in [r for r in ROWS if r in cur["accuracy"]]:
        mean = np.asarray(cur["accuracy"][r], float).mean(axis=0)
        hit = np.flatnonzero(mean >= level)
        said.append(f"{lag_name(results, r)} " + (f"at step {cur['step'][hit[0]]}" if hit.size else
                                                   f"never (best {pct(float(mean.max()))})"))
    stages = f", {cur['stage_steps']} steps per stage" if cur.get("stage_steps") else ""
    return (f"Accuracy at lag {cur['lag']} on {cur['streams']} fresh streams every {cur['step'][0]} steps of "
            f"training{stages}. The seeds' mean first reached {level:.0%}: " + "; ".join(said) + ".")


def provenance(results: dict) -> str:
    """Where the numbers come from: the exact command, time, torch version and seeds."""
    cpu = f", {results['cpu_seconds']:.0f} s of CPU" if "cpu_seconds" in results else ""
    b, where = results["budget"], results.get("device", "cpu")
    per = b.get("steps_per_lag", b["steps"])
    where = ("one CPU thread per process on a shared 2-core machine" if where == "cpu"
             and results.get("threads", 1) == 1 else where)
    parts = results.get("parts", [])
    split = (f" It ran as {len(parts)} processes side by side (by cell, or cell and seed), joined by "
             f"`{results['merge']}`; every cell, seed and lag is seeded on its own, so the one command gives the same "
             "numbers." if parts else "")
    return (f"Made by `{results['command']}` in {results['seconds']:.0f} s{cpu} (torch {results.get('torch', '?')}, "
            f"{where}); seeds {', '.join(map(str, results['seeds']))}; {per} Adam steps of {b['batch']} streams per "
            f"cell, lag and seed.{split} The page only reads models/lag_results.json.")
