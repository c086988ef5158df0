"""Average the weights of several checkpoints of one model (checkpoint averaging, as in Polyak averaging or SWA).

    python -m rnnviz.average models/shakespeare a.safetensors b.safetensors --corpus data/tinyshakespeare.txt

Checkpoints from the same training run sit in one basin of the loss, and their mean often generalises better
than any one of them. The card is the first checkpoint's, with `averaged_from` naming the sources and
`val_loss` measured on the averaged, stored (float16) weights.
"""
from __future__ import annotations

import json
import math
import sys
from dataclasses import replace
from pathlib import Path

from rnnviz import cli
from rnnviz.charlm.checkpoint import CharRNNConfig, CheckpointError, card_path
from rnnviz.charlm.corpus import CorpusError, read_corpus, split_for_model

try:
    import torch
    from safetensors.torch import load_file

    from rnnviz.charlm.model import CharRNN, load_module, save_checkpoint, stream_loss
except ImportError:  # --help and --version work without it; main() says what to install
    torch = None


def average(paths: list[str]) -> dict[str, torch.Tensor]:
    """Element-wise mean in float32 of state dicts with identical names and shapes."""
    sds = [{k: v.float() for k, v in load_file(p).items()} for p in paths]
    keys = sds[0].keys()
    for p, sd in zip(paths, sds):
        if sd.keys() != keys or any(sd[k].shape != sds[0][k].shape for k in keys):
            raise ValueError(f"{p} does not have the same tensors as {paths[0]}")
    return {k: sum(sd[k] for sd in sds) / len(sds) for k in keys}


def shape_of(card: dict) -> CharRNNConfig:
    """The card's sizes, dropout aside (a training setting, not part of the weights)."""
    return replace(CharRNNConfig.from_card(card), dropout=0.0)


def sources(paths: list[str]) -> list[tuple[str, dict]]:
    """(file name, card) of each checkpoint; ValueError unless they are one model (vocabulary, cell and sizes)."""
    cards = [(Path(p).name, json.loads(card_path(p).read_text(encoding="utf-8"))) for p in paths]
    first = cards[0][1]
    for name, card in cards[1:]:
        if card.get("itos") != first.get("itos") or shape_of(card) != shape_of(first):
            raise ValueError(f"{name} is not the same model as {cards[0][0]} (vocabulary, cell or sizes differ): "
                             "average checkpoints of one training run")
    return cards


def main(argv=None) -> int:
    ap = cli.parser("average", __doc__.split("\n")[0])
    ap.add_argument("out", help="output path without extension")
    ap.add_argument("checkpoints", nargs="+", help="NAME.safetensors files, each with its card beside it")
    ap.add_argument("--corpus", help="score the result on this corpus's validation split and put it in the card")
    ap.add_argument("--note", default=None, help="a sentence for the card")
    args = ap.parse_args(argv)
    cli.import_torch("averaging")
    try:
        cards = sources(args.checkpoints)
        card = dict(cards[0][1])
        model = CharRNN(CharRNNConfig.from_card(card)).eval()
        model.load_state_dict(average(args.checkpoints))
    except (ValueError, RuntimeError, KeyError, TypeError, OSError, CheckpointError) as e:
        # JSONDecodeError and safetensors' errors are ValueErrors or OSErrors; load_state_dict's a RuntimeError
        print(f"error: {e}", file=sys.stderr)
        return 2
    card["averaged_from"] = [{"file": name, "steps": c.get("steps"), "val_loss": c.get("val_loss")}
                             for name, c in cards]
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
