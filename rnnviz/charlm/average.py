"""Average the weights of several checkpoints of one model (checkpoint averaging, as in Polyak averaging or SWA).

    python -m rnnviz.average models/shakespeare a.safetensors b.safetensors --corpus data/tinyshakespeare.txt

Checkpoints from the same training run sit in one basin of the loss, and their mean often generalises better
than any one of them. The card is the first checkpoint's, with `averaged_from` naming the sources and
`val_loss` measured on the averaged, stored (float16) weights.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file

from rnnviz.charlm.checkpoint import CharRNNConfig, card_path
from rnnviz.charlm.corpus import CorpusError, read_corpus, split_for_model
from rnnviz.charlm.model import CharRNN, load_module, save_checkpoint, stream_loss


def average(paths: list[str]) -> dict[str, torch.Tensor]:
    """Element-wise mean in float32 of state dicts with identical names and shapes."""
    sds = [{k: v.float() for k, v in load_file(p).items()} for p in paths]
    keys = sds[0].keys()
    for p, sd in zip(paths, sds):
        if sd.keys() != keys or any(sd[k].shape != sds[0][k].shape for k in keys):
            raise ValueError(f"{p} does not have the same tensors as {paths[0]}")
    return {k: sum(sd[k] for sd in sds) / len(sds) for k in keys}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rnnviz.average", description=__doc__.split("\n")[0])
    ap.add_argument("out", help="output path without extension")
    ap.add_argument("checkpoints", nargs="+", help="NAME.safetensors files, each with its card beside it")
    ap.add_argument("--corpus", help="score the result on this corpus's validation split and put it in the card")
    ap.add_argument("--note", default=None)
    args = ap.parse_args(argv)
    card = json.loads(card_path(args.checkpoints[0]).read_text(encoding="utf-8"))
    model = CharRNN(CharRNNConfig.from_card(card)).eval()
    model.load_state_dict(average(args.checkpoints))
    sources = [(Path(p).name, json.loads(card_path(p).read_text(encoding="utf-8"))) for p in args.checkpoints]
    card["averaged_from"] = [{"file": name, "steps": c.get("steps"), "val_loss": c.get("val_loss")} for name, c in sources]
    if args.note:
        card["note"] = args.note
    saved = save_checkpoint(model, card, args.out)
    if args.corpus:
        try:
            split = split_for_model(read_corpus(args.corpus), card["itos"])
        except CorpusError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        stored = load_module(saved)  # what ships, float16
        card["val_loss"] = round(stream_loss(stored, torch.from_numpy(split.val), torch.device("cpu"), streams=1), 4)
        card["val_bits_per_char"] = round(card["val_loss"] / math.log(2), 4)
        card_path(saved).write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"saved {saved}" + (f": val {card['val_loss']:.4f} nats/char" if args.corpus else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
