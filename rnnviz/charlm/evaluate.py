"""Score a character model on a corpus's validation split, independently of the trainer.

    python -m rnnviz.evaluate models/shakespeare.safetensors --corpus tinyshakespeare.txt

Reads the stored weights with plain PyTorch (rebuilt from the card) and reads the whole split as one
stream from a zero state, as the card's `val_loss` claims to have been measured.
"""
from __future__ import annotations

import argparse
import json
import math
import sys

import torch

from rnnviz.charlm.checkpoint import card_path
from rnnviz.charlm.corpus import read_corpus, split_corpus
from rnnviz.charlm.model import load_module, stream_loss
from rnnviz.charlm.runner import load


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rnnviz.evaluate", description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--val-fraction", type=float, default=0.1)
    args = ap.parse_args(argv)
    card = json.loads(card_path(args.model).read_text(encoding="utf-8"))
    split = split_corpus(read_corpus(args.corpus), args.val_fraction)
    if split.itos != card["itos"]:
        print("error: the corpus's vocabulary differs from the model's", file=sys.stderr)
        return 2
    if split.sha256 != card.get("corpus_sha256"):
        print("note: this corpus is not the one named in the card (sha256 differs)", file=sys.stderr)
    load(args.model)  # names, shapes, vocabulary: validated before torch reads anything
    val = stream_loss(load_module(args.model), torch.from_numpy(split.val), torch.device("cpu"), streams=1)
    print(json.dumps({"val_loss": round(val, 4), "val_bits_per_char": round(val / math.log(2), 4),
                      "val_chars": len(split.val), "card_val_loss": card.get("val_loss")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
