"""Learning the lag, the training (torch): each row's model (torch.nn.RNN/LSTM/GRU where torch has the cell, else
the cell's own `torch_layer`), trained on the task's streams with Adam, scored at each lag on held-out streams; every
row on every seed and lag, as the results the pages read."""
from __future__ import annotations

import functools
import time

import numpy as np

from rnnviz.experiments.lag_task import (
    ROWS,
    SHIPPED,
    TAUGHT_FORGET_BIAS,
    equal_sizes,
    first_symbol_task,
    param_count,
    readout_size,
)
from rnnviz.nn.cells import get


def _model(row: str, hidden_size: int, symbols: int, seed: int):
    """A torch module: one-hot (B, T, S) -> readout features (B, T, r); the registry's own cells where torch has them,
    else the cell's own `torch_layer` (minGRU, the LRU), initialised by its `init`."""
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
    return kind.torch_layer(init)


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

    return First


def _First(m):
    return _torch_modules()(m)


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


def pick_device(name: str) -> str:
    """`auto`: CUDA where torch sees one, else the CPU."""
    import torch

    return ("cuda" if torch.cuda.is_available() else "cpu") if name == "auto" else name
