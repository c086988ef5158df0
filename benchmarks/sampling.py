"""Sampling speed of the shipped model: rnnviz's NumPy sampler against a naive torch.nn.LSTM loop.

    python benchmarks/sampling.py [--chars 2000] [--model models/shakespeare.safetensors]

Reports load time, chars/s for CharLM.generate (temperature 0.8, one BLAS thread), and chars/s for the naive
loop that steps the torch module one character at a time (model(idx, state) then torch.multinomial), with
torch's default threads and oneDNN as installed, and again with one thread and oneDNN off.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def naive_torch(path: Path, prime: str, n: int) -> float:
    """chars/s of the plain loop a first PyTorch user writes."""
    import torch

    from rnnviz.charlm.model import load_module

    card = json.loads(path.with_suffix(".json").read_text())
    model = load_module(path)
    stoi = {c: i for i, c in enumerate(card["itos"])}
    torch.manual_seed(0)
    with torch.no_grad():
        t0 = time.perf_counter()
        logits, _, state = model(torch.tensor([[stoi[c] for c in prime]]))
        out = []
        for _ in range(n):
            p = torch.softmax(logits[0, -1] / 0.8, -1)
            idx = torch.multinomial(p, 1).item()
            out.append(idx)
            logits, _, state = model(torch.tensor([[idx]]), state)
        return n / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chars", type=int, default=2000)
    ap.add_argument("--model", default=str(ROOT / "models" / "shakespeare.safetensors"))
    args = ap.parse_args()
    path = Path(args.model)
    t0 = time.perf_counter()
    from rnnviz import charlm

    lm = charlm.load(path)
    load_ms = (time.perf_counter() - t0) * 1000
    lm.generate("ROMEO:", 50, temperature=0.8, seed=0)  # warm-up
    runs = []
    for seed in range(3):
        t0 = time.perf_counter()
        lm.generate("ROMEO:", args.chars, temperature=0.8, seed=seed)
        runs.append(args.chars / (time.perf_counter() - t0))
    t0 = time.perf_counter()
    lm.draw(charlm.SamplingSettings("ROMEO:", 500, 0.8, seed=0))
    trace_500 = time.perf_counter() - t0
    import torch

    n_naive = max(200, args.chars // 4)
    naive_default = naive_torch(path, "ROMEO:", n_naive)
    torch.set_num_threads(1)
    torch.backends.mkldnn.enabled = False
    naive_tuned = naive_torch(path, "ROMEO:", n_naive)
    best = max(runs)
    print(f"model: {path.name}, {lm.num_layers} x {lm.hidden_size} {lm.cell.upper()}, vocab {lm.vocab_size}")
    print(f"load (import + read + validate): {load_ms:.0f} ms")
    print(f"rnnviz NumPy sampler: {', '.join(f'{r:,.0f}' for r in runs)} chars/s (best {best:,.0f})")
    print(f"500 chars with every state and distribution kept (the page's run): {trace_500 * 1000:.0f} ms")
    print(f"naive torch loop, default threads, oneDNN on: {naive_default:,.0f} chars/s "
          f"-> rnnviz is {best / naive_default:.1f}x")
    print(f"naive torch loop, 1 thread, oneDNN off:       {naive_tuned:,.0f} chars/s "
          f"-> rnnviz is {best / naive_tuned:.1f}x")


if __name__ == "__main__":
    main()
