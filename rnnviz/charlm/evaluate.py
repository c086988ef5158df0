"""Score a character model on a corpus's validation split, independently of the trainer.

    python -m rnnviz.evaluate models/shakespeare.safetensors --corpus data/tinyshakespeare.txt

Any corpus whose characters the model knows can be scored: the text is read with the model's own vocabulary
(its `itos`), and the last `--val-fraction` of its characters is read as one stream from a zero state, as
the card's `val_loss` claims to have been measured (`CharLM.loss(val_text, start="")` in NumPy). It reads the
stored weights with plain PyTorch (rebuilt from the card); without PyTorch it scores in NumPy, more slowly.
"""
from __future__ import annotations

import json
import math
import sys

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from rnnviz import cli
from rnnviz.charlm.checkpoint import CheckpointError
from rnnviz.charlm.corpus import CorpusError, read_corpus, split_for_model
from rnnviz.charlm.runner import CharLM, load


def numpy_loss(lm: CharLM, ids: list[int], progress: bool = False) -> float:
    """`lm.loss(text, start="")` (one stream from the zero state, mean nats/char of ids[1:]), with a progress bar on
    stderr when asked: the same steps, `CharLM.step` one character at a time."""
    h, c = lm.zero_state()
    total = 0.0
    pairs = tqdm(zip(ids[:-1], ids[1:]), total=len(ids) - 1, unit="char", desc=f"scoring {len(ids):,} characters",
                 file=sys.stderr, leave=False, disable=not progress, mininterval=0.5)
    with threadpool_limits(1):  # small mat-vecs run fastest on one thread
        for a, b in pairs:
            logits, h, c = lm.step(a, h, c)
            m = float(logits.max())
            total += m + math.log(float(np.exp(logits - m, dtype=np.float64).sum())) - float(logits[b])
    return total / max(len(ids) - 1, 1)


def main(argv=None) -> int:
    ap = cli.parser("evaluate", __doc__.split("\n")[0])
    ap.add_argument("model", help="NAME.safetensors with NAME.json beside it")
    ap.add_argument("--corpus", required=True, help="UTF-8 text whose characters the model knows")
    ap.add_argument("--val-fraction", type=cli.probability, default=0.1,
                    help="score the last this fraction of the corpus, in (0, 1]")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    try:
        lm = load(args.model)  # names, shapes, vocabulary, values: validated before torch reads anything
        split = split_for_model(read_corpus(args.corpus), lm.itos, args.val_fraction)
    except (CheckpointError, CorpusError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if len(split.val) < 2:
        print("error: the validation split holds fewer than 2 characters; give a longer corpus or a larger "
              "--val-fraction", file=sys.stderr)
        return 2
    card = lm.card
    if card.get("corpus_sha256") and split.sha256 != card["corpus_sha256"]:
        print(f"note: this corpus is not the one named in the card ({str(card.get('corpus', '?'))[:80]}; sha256 "
              "differs)", file=sys.stderr)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        from rnnviz.charlm.model import load_module, stream_loss

        val = stream_loss(load_module(args.model), torch.from_numpy(split.val), torch.device("cpu"), streams=1,
                          progress=not args.quiet)
    else:
        print("note: PyTorch is not installed; scoring in NumPy (slower)", file=sys.stderr)
        val = numpy_loss(lm, split.val.tolist(), progress=not args.quiet and sys.stderr.isatty())
    print(json.dumps({"val_loss": round(val, 4), "val_bits_per_char": round(val / math.log(2), 4),
                      "val_chars": len(split.val), "card_val_loss": card.get("val_loss")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
