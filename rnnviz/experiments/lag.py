"""Learning the lag: how far back can a cell learn to recall? A delayed-recall task (the input is a stream of random
symbols; the target at step t is the symbol read at step t - lag), for a vanilla RNN, an LSTM and a GRU with equal
parameter counts, trained in torch on the CPU by `python -m rnnviz.lag`. The results ship as JSON with the command,
seeds and budget; the gradients page reads them without torch (its words about them: ui/lessons/gradients.py).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from rnnviz import resources
from rnnviz.nn.params import classifier_params

RESULTS = resources.path("lag_results.json")
CELLS = ("rnn", "lstm", "gru")


def delayed_recall(rng: np.random.Generator, batch: int, length: int, lag: int,
                   symbols: int) -> tuple[np.ndarray, np.ndarray]:
    """Random symbol streams x (batch, length) and targets y with y[:, t] = x[:, t - lag]; -1 (not scored) for
    t < lag."""
    x = rng.integers(0, symbols, size=(batch, length))
    y = np.full((batch, length), -1)
    y[:, lag:] = x[:, :length - lag]
    return x, y


def param_count(cell: str, hidden_size: int, symbols: int) -> int:
    """One-hot symbols -> cell -> a linear layer to the symbols at every step, as torch counts it."""
    return classifier_params(cell, symbols, hidden_size, symbols)["total"]


def equal_sizes(symbols: int, lstm_hidden: int) -> dict[str, int]:
    """Hidden sizes giving each cell the parameter count nearest the LSTM's with `lstm_hidden` units."""
    target = param_count("lstm", lstm_hidden, symbols)
    return {c: min(range(1, 8 * lstm_hidden), key=lambda H: abs(param_count(c, H, symbols) - target)) for c in CELLS}


def load_results(path: Path | str = RESULTS) -> dict | None:
    """The shipped results (plain JSON), or None if there are none."""
    path = Path(path)
    return json.loads(path.read_text()) if path.exists() else None


def best_lag(results: dict, cell: str, level: float = 0.9) -> int | None:
    """The longest lag at which a cell's mean accuracy reaches `level` at every lag up to it (None if not even the
    first)."""
    best = None
    for lag, acc in zip(results["lags"], np.asarray(results["cells"][cell]["accuracy"], float).mean(axis=0)):
        if acc < level:
            break
        best = lag
    return best


# ---- training (torch, CPU) ------------------------------------------------------------------------------------------

def train_one(cell: str, hidden_size: int, lag: int, symbols: int, steps: int, batch: int, lr: float, seed: int,
              eval_streams: int = 256, scored: int = 32) -> float:
    """Train one cell on one lag with Adam (gradient clipped at 1.0); accuracy on fresh held-out streams."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    module = {"rnn": torch.nn.RNN, "lstm": torch.nn.LSTM, "gru": torch.nn.GRU}[cell]
    rnn = module(symbols, hidden_size, batch_first=True)
    out = torch.nn.Linear(hidden_size, symbols)
    params = list(rnn.parameters()) + list(out.parameters())
    opt = torch.optim.Adam(params, lr=lr)
    length = lag + scored  # every stream scores `scored` targets

    def logits(x: np.ndarray):
        return out(rnn(torch.nn.functional.one_hot(torch.from_numpy(x), symbols).float())[0])  # (B, L, symbols)

    for _ in range(steps):
        x, y = delayed_recall(rng, batch, length, lag, symbols)
        loss = torch.nn.functional.cross_entropy(logits(x).reshape(-1, symbols), torch.from_numpy(y).reshape(-1),
                                                 ignore_index=-1)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
    x, y = delayed_recall(np.random.default_rng(10**6 + seed), eval_streams, length, lag, symbols)
    with torch.no_grad():
        pred = logits(x).argmax(-1).numpy()
    mask = y >= 0
    return float((pred[mask] == y[mask]).mean())


def run(lags: list[int], steps: int, seeds: list[int], symbols: int = 8, lstm_hidden: int = 32, batch: int = 32,
        lr: float = 1e-2, log=print) -> dict:
    """Every cell on every lag and seed; the results as the page reads them."""
    sizes = equal_sizes(symbols, lstm_hidden)
    t0, c0 = time.time(), time.process_time()
    cells = {}
    for cell in CELLS:
        acc = []
        for seed in seeds:
            row = []
            for lag in lags:
                row.append(train_one(cell, sizes[cell], lag, symbols, steps, batch, lr, seed))
                log(f"{cell:>4} H={sizes[cell]} seed {seed} lag {lag:>3}: accuracy {row[-1]:.3f} "
                    f"({time.time() - t0:.0f} s)")
            acc.append(row)
        cells[cell] = {"hidden_size": sizes[cell], "params": param_count(cell, sizes[cell], symbols), "accuracy": acc}
    return {"task": {"name": "delayed recall", "symbols": symbols, "scored_per_stream": 32,
                     "eval_streams": 256, "input": "one-hot symbols", "target": "the symbol lag steps back"},
            "lags": list(lags), "seeds": list(seeds),
            "budget": {"steps": steps, "batch": batch, "optimizer": "Adam", "lr": lr, "clip": 1.0,
                       "lstm_hidden": lstm_hidden},
            "cells": cells, "seconds": round(time.time() - t0, 1), "cpu_seconds": round(time.process_time() - c0, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rnnviz.lag", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lags", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32])
    ap.add_argument("--steps", type=int, default=400, help="Adam steps per cell, lag and seed")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--symbols", type=int, default=8)
    ap.add_argument("--lstm-hidden", type=int, default=32, help="the LSTM's size; the others match its parameter count")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-2)
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    ap.add_argument("--out", default=RESULTS.name,  # here, not into the package: an install's tree is not the user's
                    help="where the results go (default: ./lag_results.json); the app reads models/lag_results.json")
    args = ap.parse_args(argv)
    if any(lag < 1 for lag in args.lags) or args.steps < 1 or args.symbols < 2:
        ap.error("lags and steps must be at least 1, symbols at least 2")
    import torch

    torch.set_num_threads(args.threads)
    res = run(args.lags, args.steps, args.seeds, args.symbols, args.lstm_hidden, args.batch, args.lr)
    res["command"] = "python -m rnnviz.lag " + " ".join(sys.argv[1:] if argv is None else argv)
    res["torch"] = torch.__version__
    Path(args.out).write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {args.out} in {res['seconds']} s")
    return 0
