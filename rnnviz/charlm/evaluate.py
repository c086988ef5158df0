"""Score a character model on a corpus's validation split, independently of the trainer.

    python -m rnnviz.evaluate models/shakespeare.safetensors --corpus data/tinyshakespeare.txt

Any corpus whose characters the model knows can be scored: the text is read with the model's own vocabulary
(its `itos`), and the last `--val-fraction` of its characters is read as one stream from a zero state, as
the card's `val_loss` claims to have been measured (`CharLM.loss(val_text, start="")` in NumPy). It reads the
stored weights with plain PyTorch (rebuilt from the card); without PyTorch it scores in NumPy, more slowly.
"""
from __future__ import annotations

import argparse
import json
import math
import sys

from rnnviz.charlm.checkpoint import CheckpointError
from rnnviz.charlm.corpus import CorpusError, read_corpus, split_for_model
from rnnviz.charlm.runner import load


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rnnviz.evaluate", description=__doc__.split("\n")[0])
    ap.add_argument("model", help="NAME.safetensors with NAME.json beside it")
    ap.add_argument("--corpus", required=True, help="UTF-8 text whose characters the model knows")
    ap.add_argument("--val-fraction", type=float, default=0.1, help="score the last this fraction of the corpus")
    args = ap.parse_args(argv)
    if not 0 < args.val_fraction <= 1:
        print("error: --val-fraction must be in (0, 1]", file=sys.stderr)
        return 2
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
                          progress=True)
    else:
        print("note: PyTorch is not installed; scoring in NumPy (slower)", file=sys.stderr)
        val = lm.loss("".join(lm.itos[i] for i in split.val), start="")
    print(json.dumps({"val_loss": round(val, 4), "val_bits_per_char": round(val / math.log(2), 4),
                      "val_chars": len(split.val), "card_val_loss": card.get("val_loss")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
