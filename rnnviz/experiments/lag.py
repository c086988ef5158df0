"""Learning the lag: how far back can a cell learn to reach? The task: read a stream of random symbols and, after k
more symbols, name the first one. There is one thing to keep, so memory size is not the limit; what is tested is
whether the gradient that teaches it reaches back k steps. Each cell (a vanilla RNN, an LSTM with its forget-gate
bias at 0 and at the +1 the gates page teaches, a GRU, and the linear recurrences minGRU and LRU), sized to about the
same parameter count, is trained by `python -m rnnviz.lag` in torch, each lag k from scratch on streams whose lags are
drawn from 1 .. k (a curriculum inside every batch: the short ones carry a gradient from the first step), then scored
at exactly lag k on fresh held-out streams; `--staged` takes one model through the lags in order instead.

The results ship as JSON (the command, seeds, budget and times with them) and seed 0's trained rnn / lstm / gru (at
the longest lag) as a small safetensors file; the pages read both without torch (their words: ui/lessons/gradients.py,
ui/lessons/gates.py).
"""
from __future__ import annotations

import functools
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from rnnviz import resources
from rnnviz.nn.cells import get

RESULTS = resources.path("lag_results.json")
WEIGHTS = resources.path("lag_models.safetensors")
TAUGHT_FORGET_BIAS = 1.0  # the gates page's default b_f, the +1 of Jozefowicz et al. 2015 (a test keeps them equal)
ROWS = {  # result key: (registry cell, the forget-gate bias it starts from, or None for a cell without one)
    "rnn": ("rnn", None), "lstm_f0": ("lstm", 0.0), "lstm": ("lstm", TAUGHT_FORGET_BIAS), "gru": ("gru", None),
    "mingru": ("mingru", None), "lru": ("lru", None)}
CELLS = ("rnn", "lstm", "gru")  # the three cells the page compares first (the LSTM at the taught bias)
SHIPPED = CELLS  # rows whose trained weights (seed 0) ship for the three-cells view


def first_symbol_task(rng: np.random.Generator, batch: int, lag: int, symbols: int,
                      curriculum: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Streams x (batch, lag + 1) of random symbols; `read` (batch,): the index of the step at which each stream is
    asked (its own lag, drawn from 1 .. lag with the curriculum, else `lag`); targets: the first symbol x[:, 0]."""
    read = rng.integers(1, lag + 1, batch) if curriculum else np.full(batch, lag)
    x = rng.integers(0, symbols, (batch, lag + 1))
    return x, read, x[:, 0].copy()


def readout_size(row: str, hidden_size: int, symbols: int) -> int:
    """What the output layer reads: the hidden state, or for the LRU its output y (the input's size)."""
    return symbols if ROWS[row][0] == "lru" else hidden_size


def param_count(row: str, hidden_size: int, symbols: int) -> int:
    """One-hot symbols -> cell -> a linear layer to the symbols, as torch counts it (both bias vectors)."""
    r = readout_size(row, hidden_size, symbols)
    return get(ROWS[row][0]).param_count(symbols, hidden_size) + r * symbols + symbols


def equal_sizes(symbols: int, lstm_hidden: int, rows=tuple(ROWS)) -> dict[str, int]:
    """Hidden sizes giving each row the parameter count nearest the LSTM's with `lstm_hidden` units."""
    target = param_count("lstm", lstm_hidden, symbols)
    return {r: min(range(1, 16 * lstm_hidden), key=lambda H: abs(param_count(r, H, symbols) - target)) for r in rows}


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


def aim_lags(results: dict, level: float = 0.9, rows: tuple[str, ...] = ("lstm", "gru")) -> list[int]:
    """The lags at which every seed of each of `rows` reaches `level` while the vanilla RNN's mean over its seeds
    stays under twice chance: the experiment's aim (`vanilla_over` says whether single seeds passed that line)."""
    chance = 1 / results["task"]["symbols"]
    ok = np.all([accuracy(results, r).min(axis=0) >= level for r in rows], axis=0)
    ok &= accuracy(results, "rnn").mean(axis=0) < 2 * chance
    return [lag for lag, good in zip(results["lags"], ok) if good]


def vanilla_over(results: dict, lag: int) -> int:
    """How many of the vanilla RNN's seeds reached twice chance or more at `lag`."""
    acc = accuracy(results, "rnn")[:, results["lags"].index(lag)]
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


# ---- training (torch) -----------------------------------------------------------------------------------------------

def _model(row: str, hidden_size: int, symbols: int, seed: int):
    """A torch module: one-hot (B, T, S) -> readout features (B, T, r); the registry's own cells where torch has them,
    minGRU and the LRU written here from the registry's equations and initialised by its `init`."""
    import torch

    cell, bias = ROWS[row]
    kind = get(cell)
    if kind.torch_module:
        m = getattr(torch.nn, kind.torch_module)(symbols, hidden_size, batch_first=True)
        if bias is not None:  # b_ih's forget block = the bias, b_hh's = 0: their sum is what the gate sees
            H, k = hidden_size, kind.gates.index(kind.forget_gate)
            with torch.no_grad():
                m.bias_ih_l0[k * H:(k + 1) * H] = bias
                m.bias_hh_l0[k * H:(k + 1) * H] = 0.0
        return _First(m)
    init = {k: torch.from_numpy(np.asarray(v, np.float32))
            for k, v in kind.init(symbols, hidden_size, np.random.default_rng(seed)).items()}
    return {"mingru": _MinGRU, "lru": _LRU}[cell](init)


@functools.cache
def _torch_modules():
    """The torch modules training needs, defined on first use (serving imports this file without torch)."""
    import torch

    class First(torch.nn.Module):  # torch.nn.RNN/LSTM/GRU return (output, last state): the readout reads the output
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(x)[0]

    class MinGRU(torch.nn.Module):  # h_t = (1 - z_t) h_{t-1} + z_t h~_t, z and h~ from x_t alone
        def __init__(self, p):
            super().__init__()
            self.p = torch.nn.ParameterDict({k: torch.nn.Parameter(v) for k, v in p.items()})

        def forward(self, x):
            z = torch.sigmoid(x @ self.p["W_z"].T + self.p["b_z"])
            b = z * (x @ self.p["W_h"].T + self.p["b_h"])
            h, out = torch.zeros_like(b[:, 0]), []
            for t in range(x.shape[1]):
                h = (1 - z[:, t]) * h + b[:, t]
                out.append(h)
            return torch.stack(out, 1)

    class LRU(torch.nn.Module):  # h_t = lambda h_{t-1} + gamma B x_t; y_t = Re(C h_t) + D x_t
        def __init__(self, p):
            super().__init__()
            self.p = torch.nn.ParameterDict({k: torch.nn.Parameter(v) for k, v in p.items()})

        def forward(self, x):
            p = self.p
            mod, ph = torch.exp(-torch.exp(p["nu_log"])), torch.exp(p["theta_log"])
            lr, li = mod * torch.cos(ph), mod * torch.sin(ph)
            g = torch.exp(p["gamma_log"])
            br, bi = g * (x @ p["B_re"].T), g * (x @ p["B_im"].T)
            hr, hi, out = torch.zeros_like(br[:, 0]), torch.zeros_like(br[:, 0]), []
            for t in range(x.shape[1]):
                hr, hi = lr * hr - li * hi + br[:, t], lr * hi + li * hr + bi[:, t]
                out.append(hr @ p["C_re"].T - hi @ p["C_im"].T)
            return torch.stack(out, 1) + p["D"] * x

    return First, MinGRU, LRU


def _First(m):
    return _torch_modules()[0](m)


def _MinGRU(p):
    return _torch_modules()[1](p)


def _LRU(p):
    return _torch_modules()[2](p)


def train_one(row: str, hidden_size: int, lags: list[int], symbols: int, steps: int, batch: int, lr: float,
              seed: int, eval_streams: int = 1024, curve_lag: int | None = None, curve_every: int = 50,
              device: str = "cpu") -> dict:
    """Train one model on the lags in order (`steps` Adam steps each, gradient clipped at 1.0; one lag: from scratch).
    Returns the held-out accuracy at each stage's lag after that stage, the curve (accuracy at `curve_lag` every
    `curve_every` steps) and, as numpy float32, the trained weights."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    cell = _model(row, hidden_size, symbols, seed).to(device)
    out = torch.nn.Linear(readout_size(row, hidden_size, symbols), symbols).to(device)
    params = list(cell.parameters()) + list(out.parameters())
    opt = torch.optim.Adam(params, lr=lr)
    eye = torch.eye(symbols, device=device)

    def logits(x: np.ndarray, read: np.ndarray):
        feats = cell(eye[torch.from_numpy(x).to(device)])
        return out(feats[torch.arange(len(x), device=device), torch.from_numpy(read).to(device)])

    def score(lag: int, streams: int) -> float:
        x, read, y = first_symbol_task(np.random.default_rng(10 ** 6 + lag), streams, lag, symbols, False)
        with torch.no_grad():
            return float((logits(x, read).argmax(-1).cpu().numpy() == y).mean())

    acc, curve, step = [], [], 0
    for lag in lags:
        for _ in range(steps):
            x, read, y = first_symbol_task(rng, batch, lag, symbols)
            loss = torch.nn.functional.cross_entropy(logits(x, read), torch.from_numpy(y).to(device))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            step += 1
            if curve_lag is not None and step % curve_every == 0:
                curve.append(score(curve_lag, 256))
        acc.append(score(lag, eval_streams))
    sd = {f"cell.{k}": v for k, v in cell.state_dict().items()}
    sd.update({"out.weight": out.weight, "out.bias": out.bias})
    return {"accuracy": acc, "curve": curve, "weights": {k: v.detach().cpu().numpy().astype(np.float32)
                                                          for k, v in sd.items()}}


def torch_layout(weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A trained torch.nn.RNN/LSTM/GRU's state dict (as train_one returns it) in the registry's names."""
    names = {"cell.m.weight_ih_l0": "W_ih", "cell.m.weight_hh_l0": "W_hh", "cell.m.bias_ih_l0": "b_ih",
             "cell.m.bias_hh_l0": "b_hh", "out.weight": "W_y", "out.bias": "b_y"}
    return {names[k]: v for k, v in weights.items() if k in names}


def run(lags: list[int], steps: int, seeds: list[int], symbols: int = 8, lstm_hidden: int = 32, batch: int = 128,
        lr: float = 1e-2, rows: tuple[str, ...] = tuple(ROWS), curve_lag: int | None = None, curve_every: int = 50,
        staged: bool = False, device: str = "cpu", log=print) -> tuple[dict, dict[str, np.ndarray]]:
    """Every row on every seed and lag; the results as the pages read them, and seed `seeds[0]`'s trained weights
    (at the longest lag) of the SHIPPED rows (keys row.name, the registry's names). Each lag is trained from scratch
    on streams whose lags are drawn from 1 .. k, or with `staged` one model goes through the lags in order."""
    sizes = equal_sizes(symbols, lstm_hidden, rows)
    curve_lag = lags[-1] if curve_lag is None else curve_lag
    t0, c0 = time.time(), time.process_time()
    cells, curves, shipped = {}, {}, {}
    for row in rows:
        acc, cur, r0 = [], [], time.process_time()
        for seed in seeds:
            if staged:
                res = [train_one(row, sizes[row], lags, symbols, steps, batch, lr, seed, curve_lag=curve_lag,
                                 curve_every=curve_every, device=device)]
            else:
                res = [train_one(row, sizes[row], [k], symbols, steps, batch, lr, seed, device=device,
                                 curve_lag=curve_lag if k == curve_lag else None, curve_every=curve_every)
                       for k in lags]
            acc.append([a for r in res for a in r["accuracy"]])
            cur.append([a for r in res for a in r["curve"]])
            log(f"{row:>7} H={sizes[row]} seed {seed}: " + " ".join(f"{a:.3f}" for a in acc[-1])
                + f" ({time.time() - t0:.0f} s)")
            if seed == seeds[0] and row in SHIPPED:
                shipped.update({f"{row}.{k}": v for k, v in torch_layout(res[-1]["weights"]).items()})
        cell, bias = ROWS[row]
        cells[row] = {"cell": cell, "forget_bias": bias, "hidden_size": sizes[row],
                      "params": param_count(row, sizes[row], symbols), "accuracy": acc,
                      "cpu_seconds": round(time.process_time() - r0, 1)}
        curves[row] = cur
    n = len(next(iter(curves.values()))[0]) if curves else 0
    how = ("one model per row and seed goes through the lags in order (a staged curriculum), each stage's "
           "streams with lags drawn from 1 .. k" if staged else
           "each lag k trained from scratch on streams whose lags are drawn from 1 .. k (the short ones teach first)")
    results = {
        "task": {"name": "recall the first symbol", "symbols": symbols, "eval_streams": 1024,
                 "input": "one-hot symbols", "target": "the first symbol, read k steps after it", "curriculum": how,
                 "staged": staged},
        "lags": list(lags), "seeds": list(seeds), "taught_forget_bias": TAUGHT_FORGET_BIAS,
        "budget": {"steps_per_lag": steps, "steps": steps * len(lags), "batch": batch, "optimizer": "Adam", "lr": lr,
                   "clip": 1.0, "lstm_hidden": lstm_hidden},
        "cells": cells,
        "curve": {"lag": curve_lag, "step": [curve_every * (i + 1) for i in range(n)],
                  "stage_steps": steps if staged else None, "streams": 256, "accuracy": curves},
        "seconds": round(time.time() - t0, 1), "cpu_seconds": round(time.process_time() - c0, 1), "device": device}
    return results, shipped


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


def pick_device(name: str) -> str:
    """`auto`: CUDA where torch sees one, else the CPU."""
    import torch

    return ("cuda" if torch.cuda.is_available() else "cpu") if name == "auto" else name


def main(argv: list[str] | None = None) -> int:
    from rnnviz import cli

    ap = cli.parser("lag", __doc__)
    ap.add_argument("--lags", type=cli.positive_int, nargs="+", default=[8, 16, 32, 64, 128],
                    help="the curriculum's stages, in order; each is scored after its stage")
    ap.add_argument("--steps", type=cli.positive_int, default=300, help="Adam steps per stage, row and seed")
    ap.add_argument("--seeds", type=cli.count, nargs="+", default=[0, 1, 2], help="one run per seed")
    ap.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS), help="the cells to train")
    ap.add_argument("--symbols", type=cli.number(int, 2), default=8, help="the stream's alphabet (chance: 1/symbols)")
    ap.add_argument("--lstm-hidden", type=cli.positive_int, default=32,
                    help="the LSTM's size; the others match its parameter count")
    ap.add_argument("--batch", type=cli.positive_int, default=128, help="streams per Adam step")
    ap.add_argument("--lr", type=cli.positive, default=1e-2, help="Adam's learning rate")
    ap.add_argument("--staged", action="store_true", help="one model per row and seed through the lags in order, "
                    "instead of each lag from scratch")
    ap.add_argument("--curve-lag", type=cli.positive_int,
                    help="the lag whose accuracy is tracked during training (default: the last)")
    ap.add_argument("--curve-every", type=cli.positive_int, default=50,
                    help="steps between points of the learning curve")
    ap.add_argument("--threads", type=cli.positive_int, default=1, help="torch CPU threads")
    ap.add_argument("--device", default="cpu", help="cpu, cuda, or auto (CUDA where there is one)")
    ap.add_argument("--out", default=RESULTS.name,  # here, not into the package: an install's tree is not the user's
                    help="where the results go (default: ./lag_results.json); the app reads models/lag_results.json")
    ap.add_argument("--merge", nargs="+", metavar="JSON", help="join results of the same settings run for different "
                    "--rows (their weights: each JSON's name with .safetensors) into --out; nothing is trained "
                    "(default: train)")
    ap.add_argument("--weights", help="where seed 0's trained rnn/lstm/gru go (default: beside --out, "
                                      "lag_models.safetensors); the app reads models/lag_models.safetensors")
    args = ap.parse_args(argv)
    if any(lag < 1 for lag in args.lags) or args.steps < 1 or args.symbols < 2 or args.curve_every < 1:
        ap.error("lags, steps and --curve-every must be at least 1, symbols at least 2")
    if args.curve_lag is not None and args.curve_lag not in args.lags:
        ap.error(f"--curve-lag must be one of the lags ({', '.join(map(str, args.lags))})")
    weights = Path(args.weights) if args.weights else Path(args.out).with_name(WEIGHTS.name)
    if args.merge:
        res, shipped = merge(args.merge)
        res["merge"] = "python -m rnnviz.lag " + " ".join(sys.argv[1:] if argv is None else argv)
        return _write(res, shipped, Path(args.out), weights)
    import torch

    torch.set_num_threads(args.threads)
    device = pick_device(args.device)
    res, shipped = run(args.lags, args.steps, args.seeds, args.symbols, args.lstm_hidden, args.batch, args.lr,
                       tuple(args.rows), args.curve_lag, args.curve_every, args.staged, device)
    res["command"] = "python -m rnnviz.lag " + " ".join(sys.argv[1:] if argv is None else argv)
    res["torch"] = torch.__version__
    res["threads"] = args.threads
    return _write(res, shipped, Path(args.out), weights)


def _write(res: dict, shipped: dict[str, np.ndarray], out: Path, weights: Path) -> int:
    """The results as JSON, and the trained weights (if any) as safetensors readable by everyone."""
    out.write_text(json.dumps(res, indent=1) + "\n")
    if shipped:
        from safetensors.numpy import save_file

        save_file(shipped, str(weights), metadata={"command": res["command"], "symbols": str(res["task"]["symbols"])})
        os.chmod(weights, 0o644)  # safetensors writes 0600; a shipped file is for everyone to read
    print(f"wrote {out}" + (f" and {weights}" if shipped else "") + f" in {res['seconds']} s")
    return 0
