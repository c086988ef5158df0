"""Sample text from a trained character model.

    python -m rnnviz.sample --prime "ROMEO:" -n 500 -t 0.8
"""
from __future__ import annotations

import sys

from rnnviz import cli
from rnnviz.charlm.checkpoint import SHIPPED_MODEL, CheckpointError
from rnnviz.charlm.runner import load
from rnnviz.nn.sampling import SamplingSettings


def main(argv=None) -> int:
    ap = cli.parser("sample", __doc__.split("\n")[0])
    ap.add_argument("--model", default=str(SHIPPED_MODEL), help="NAME.safetensors with NAME.json beside it")
    ap.add_argument("--prime", default="\n", help="text the model reads before it writes")
    ap.add_argument("-n", "--length", type=cli.count, default=500, help="characters to generate")
    ap.add_argument("-t", "--temperature", type=cli.positive, default=1.0,
                    help="divides the scores before the softmax: below 1 surer, above 1 wilder")
    ap.add_argument("--top-k", type=cli.positive_int, default=None, help="draw only from the k likeliest characters")
    ap.add_argument("--top-p", type=cli.probability, default=None,
                    help="draw only from the likeliest characters whose probabilities add up to p, in (0, 1]")
    ap.add_argument("--seed", type=int, default=None, help="the same seed gives the same text (None: a fresh draw)")
    ap.add_argument("--start", default=None,
                    help='what the model reads from its zero state before the prime (None: the model\'s "\\n"; '
                         '"" starts from zeros, as a plain torch run does)')
    args = ap.parse_args(argv)
    try:
        lm = load(args.model)
        settings = SamplingSettings(args.prime, args.length, args.temperature, args.top_k, args.top_p, args.seed)
        trace = lm.draw(settings, keep_states=False, start=args.start)
    except (CheckpointError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(trace.text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
