"""Learning the lag, the results: the shipped JSON and trained cells as the pages read them (without torch), what
they say (how far each row reaches, the lags where the aim holds), and the join of runs made in parts."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from rnnviz import resources
from rnnviz.experiments.lag_task import CELLS, ROWS

RESULTS = resources.path("lag_results.json")
WEIGHTS = resources.path("lag_models.safetensors")


def load_results(path: Path | str = RESULTS) -> dict | None:
    """The shipped results (plain JSON), or None if there are none."""
    path = Path(path)
    return json.loads(path.read_text()) if path.exists() else None


def accuracy(results: dict, row: str) -> np.ndarray:
    """(seeds, lags) held-out accuracy of one row."""
    return np.asarray(results["cells"][row]["accuracy"], float)


def best_lag(results: dict, cell: str, level: float = 0.9) -> int | None:
    """The longest lag at which a row's mean accuracy reaches `level` at every lag up to it (None if not even the
    first)."""
    best = None
    for lag, acc in zip(results["lags"], accuracy(results, cell).mean(axis=0)):
        if acc < level:
            break
        best = lag
    return best


def aim_lags(results: dict, level: float = 0.9, rows: tuple[str, ...] = CELLS[1:]) -> list[int]:
    """The lags at which every seed of each of `rows` (the gated cells) reaches `level` while the vanilla RNN's mean
    over its seeds stays under twice chance: the experiment's aim (`vanilla_over` says whether single seeds passed
    that line)."""
    chance = 1 / results["task"]["symbols"]
    ok = np.all([accuracy(results, r).min(axis=0) >= level for r in rows], axis=0)
    ok &= accuracy(results, CELLS[0]).mean(axis=0) < 2 * chance
    return [lag for lag, good in zip(results["lags"], ok) if good]


def vanilla_over(results: dict, lag: int) -> int:
    """How many of the vanilla RNN's seeds reached twice chance or more at `lag`."""
    acc = accuracy(results, CELLS[0])[:, results["lags"].index(lag)]
    return int((acc >= 2 / results["task"]["symbols"]).sum())


def load_weights(path: Path | str = WEIGHTS) -> dict[str, dict[str, np.ndarray]] | None:
    """The shipped trained cells, {row: torch-layout float64 weights plus the output layer W_y, b_y}, or None."""
    path = Path(path)
    if not path.exists():
        return None
    from safetensors.numpy import load_file

    out: dict[str, dict[str, np.ndarray]] = {}
    for key, arr in load_file(str(path)).items():
        row, name = key.split(".", 1)
        out.setdefault(row, {})[name] = arr.astype(np.float64)
    return out


def merge(paths: list[Path | str]) -> tuple[dict, dict[str, np.ndarray]]:
    """Results of the same settings run for different --rows or --seeds (say as processes side by side), joined into
    one, with seed 0's trained weights (each part's JSON name with .safetensors). Every (row, seed, lag) is seeded on
    its own, so the join equals one run of all the rows and seeds; `command` says that run, `parts` the commands that
    ran, `seconds` the longest part's wall time and `cpu_seconds` their sum."""
    from safetensors.numpy import load_file

    parts = [json.loads(Path(p).read_text()) for p in paths]
    same = ("task", "lags", "budget", "taught_forget_bias", "device")
    if any(part[k] != parts[0][k] for part in parts for k in same):
        raise ValueError("the parts were not run with the same settings (" + ", ".join(same) + ")")
    seeds = sorted({s for part in parts for s in part["seeds"]})
    out = {k: parts[0][k] for k in same} | {"seeds": seeds}
    cells, curves = {}, {}
    for row in ROWS:
        got = {}  # seed -> (accuracy, curve) from whichever part ran it
        for part in parts:
            if row in part["cells"]:
                cells.setdefault(row, dict(part["cells"][row], cpu_seconds=0.0))
                cells[row]["cpu_seconds"] = round(cells[row]["cpu_seconds"] + part["cells"][row]["cpu_seconds"], 1)
                for i, seed in enumerate(part["seeds"]):
                    got[seed] = (part["cells"][row]["accuracy"][i], part["curve"]["accuracy"][row][i])
        if got and sorted(got) != seeds:
            raise ValueError(f"{row} was run for seeds {sorted(got)}, not all of {seeds}")
        if got:
            cells[row]["accuracy"] = [got[s][0] for s in seeds]
            curves[row] = [got[s][1] for s in seeds]
    out["cells"] = cells
    out["curve"] = dict(parts[0]["curve"], accuracy=curves)
    out["seconds"] = max(part["seconds"] for part in parts)
    out["cpu_seconds"] = round(sum(part["cpu_seconds"] for part in parts), 1)
    first = parts[0]["command"].split()
    cut = [i for i, w in enumerate(first) if w.startswith("--")]
    flags = [w for i, w in enumerate(first) if i >= 3 and not any(
        c <= i < (cut + [len(first)])[k + 1] for k, c in enumerate(cut) if first[c] in ("--rows", "--out", "--weights",
                                                                                         "--seeds"))]
    out["command"] = (" ".join(first[:3] + flags) + f" --seeds {' '.join(map(str, seeds))} --rows {' '.join(cells)}"
                      f" --out {RESULTS.parent.name}/{RESULTS.name}")
    out["parts"] = [part["command"] for part in parts]
    out["torch"], out["threads"] = parts[0]["torch"], parts[0]["threads"]
    shipped = {}
    for p, part in zip(paths, parts):
        w = Path(p).with_suffix(".safetensors")
        if w.exists() and part["seeds"][0] == seeds[0]:
            shipped.update(load_file(str(w)))
    return out, shipped
