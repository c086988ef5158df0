"""Learning the lag: how far back can a cell learn to reach? The task: read a stream of random symbols and, after k
more symbols, name the first one. There is one thing to keep, so memory size is not the limit; what is tested is
whether the gradient that teaches it reaches back k steps. Each cell (a vanilla RNN, an LSTM with its forget-gate
bias at 0 and at the +1 the gates page teaches, a GRU, and the linear recurrences minGRU and LRU), sized to about the
same parameter count, is trained by `python -m rnnviz.lag` in torch, each lag k from scratch on streams whose lags are
drawn from 1 .. k (a curriculum inside every batch: the short ones carry a gradient from the first step), then scored
at exactly lag k on fresh held-out streams; `--staged` takes one model through the lags in order instead.

The results ship as JSON (the command, seeds, budget and times with them) and seed 0's trained rnn / lstm / gru (at
the longest lag) as a small safetensors file; the pages read both without torch (their words: ui/lessons/gradients.py,
ui/lessons/gates.py, ui/lessons/gates_memory.py).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

from rnnviz.experiments.lag_results import RESULTS, WEIGHTS, merge
from rnnviz.experiments.lag_task import ROWS
from rnnviz.experiments.lag_train import pick_device, run


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
