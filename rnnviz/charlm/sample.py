"""Sample text from a trained character model.

    python -m rnnviz.sample --prime "ROMEO:" -n 500 -t 0.8
"""
from __future__ import annotations

import argparse
import sys

from rnnviz.charlm.checkpoint import SHIPPED_MODEL, CheckpointError
from rnnviz.charlm.runner import load


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rnnviz.sample", description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=str(SHIPPED_MODEL), help="NAME.safetensors with NAME.json beside it")
    ap.add_argument("--prime", default="\n", help="text the model reads before it writes")
    ap.add_argument("-n", "--length", type=int, default=500, help="characters to generate")
    ap.add_argument("-t", "--temperature", type=float, default=1.0)
    ap.add_argument("--top-k", type=int, default=None)
    ap.add_argument("--top-p", type=float, default=None)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args(argv)
    try:
        lm = load(args.model)
        text = lm.generate(args.prime, args.length, args.temperature, args.top_k, args.top_p, args.seed)
    except (CheckpointError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(args.prime + text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
