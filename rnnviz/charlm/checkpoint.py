"""The checkpoint format of a character model, and its validation.

A checkpoint is `NAME.safetensors` (the state dict of `rnnviz.charlm.model.CharRNN`: `embed.*`, `rnn.*`,
`head.*`; no pickle) plus a card `NAME.json` (vocabulary `itos`, sizes, provenance). Everything here is
torch-free: the app reads checkpoints without PyTorch installed.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from rnnviz.nn.cells import GATES

SHIPPED_MODEL = Path(__file__).resolve().parents[2] / "models" / "shakespeare.safetensors"
MAX_FILE_BYTES = 64 * 1024 * 1024  # refuse anything larger than this before reading it
CARD_KEYS = ("itos", "cell", "embed_size", "hidden_size", "num_layers")


class CheckpointError(ValueError):
    """A model file or card that is not what it claims to be."""


@dataclass
class CharRNNConfig:
    """The sizes of a character model; the card holds them, the torch module and the NumPy runner read them."""

    vocab_size: int  # V, number of distinct characters
    cell: str = "lstm"  # lstm | gru | rnn
    embed_size: int = 64  # E, size of a character embedding
    hidden_size: int = 512  # H, size of each layer's state
    num_layers: int = 2  # stacked recurrent layers
    dropout: float = 0.0  # between layers and before the head, training only

    @classmethod
    def from_card(cls, card: dict) -> "CharRNNConfig":
        """The sizes a (validated) card describes."""
        return cls(len(card["itos"]), card["cell"], card["embed_size"], card["hidden_size"], card["num_layers"],
                   float(card.get("dropout", 0.0)))

    def card_fields(self) -> dict:
        """The card's size fields (the vocabulary itself is the card's `itos`)."""
        d = asdict(self)
        del d["vocab_size"]
        return d


def card_path(weights_path: str | os.PathLike) -> Path:
    """The card that sits beside a weights file: NAME.safetensors -> NAME.json."""
    return Path(weights_path).with_suffix(".json")


def expected_shapes(card: dict) -> dict[str, tuple[int, ...]]:
    """Every tensor name a checkpoint must hold, with its shape, for the sizes in a card."""
    V, E, H = len(card["itos"]), card["embed_size"], card["hidden_size"]
    G = GATES[card["cell"]]
    shapes = {"embed.weight": (V, E), "head.weight": (V, H), "head.bias": (V,)}
    for k in range(card["num_layers"]):
        shapes[f"rnn.weight_ih_l{k}"] = (G * H, E if k == 0 else H)
        shapes[f"rnn.weight_hh_l{k}"] = (G * H, H)
        shapes[f"rnn.bias_ih_l{k}"] = (G * H,)
        shapes[f"rnn.bias_hh_l{k}"] = (G * H,)
    return shapes


def validate_card(card: object) -> dict:
    """Check a card's fields and types; return it, or raise CheckpointError saying what is wrong."""
    if not isinstance(card, dict):
        raise CheckpointError("the card is not a JSON object")
    missing = [k for k in CARD_KEYS if k not in card]
    if missing:
        raise CheckpointError(f"the card lacks {', '.join(missing)}")
    itos = card["itos"]
    if not isinstance(itos, list) or not itos or not all(isinstance(c, str) and len(c) == 1 for c in itos):
        raise CheckpointError("the card's itos must be a non-empty list of single characters")
    if len(set(itos)) != len(itos):
        raise CheckpointError("the card's itos repeats a character")
    if card["cell"] not in GATES:
        raise CheckpointError(f"the card's cell must be one of {sorted(GATES)}, not {card['cell']!r}")
    for k in ("embed_size", "hidden_size", "num_layers"):
        v = card[k]
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 8192:
            raise CheckpointError(f"the card's {k} must be a whole number from 1 to 8192, not {v!r}")
    if card["num_layers"] > 8:
        raise CheckpointError("the card's num_layers must be at most 8")
    return card


def read_tensors(data: bytes) -> dict[str, np.ndarray]:
    """Parse safetensors bytes into float32 arrays; anything else raises CheckpointError."""
    from safetensors import SafetensorError
    from safetensors.numpy import load

    if len(data) > MAX_FILE_BYTES:
        raise CheckpointError(f"the model file is {len(data) / 2**20:.1f} MiB; the limit is {MAX_FILE_BYTES // 2**20} MiB")
    if len(data) < 8:
        raise CheckpointError("the model file is too short to be a safetensors file")
    header_len = int.from_bytes(data[:8], "little")
    if header_len <= 0 or header_len > len(data) - 8 or data[8:9] != b"{":
        raise CheckpointError("the model file is not a safetensors file (its header is missing or cut short)")
    try:
        tensors = load(data)
    except (SafetensorError, ValueError, OSError, TypeError) as e:
        raise CheckpointError(f"the model file is not a valid safetensors file ({e})") from None
    return {k: np.asarray(v, dtype=np.float32) for k, v in tensors.items()}


def check_tensors(tensors: dict[str, np.ndarray], card: dict) -> None:
    """Names and shapes must match the card exactly, and every value must be finite."""
    want = expected_shapes(card)
    missing, extra = sorted(set(want) - set(tensors)), sorted(set(tensors) - set(want))
    if missing or extra:
        raise CheckpointError(
            "the weights do not match the card: "
            + (f"missing {', '.join(missing)}" if missing else "")
            + ("; " if missing and extra else "")
            + (f"unexpected {', '.join(extra)}" if extra else "")
        )
    for name, shape in want.items():
        if tensors[name].shape != shape:
            raise CheckpointError(f"{name} has shape {tensors[name].shape}, the card implies {shape}")
        if not np.isfinite(tensors[name]).all():
            raise CheckpointError(f"{name} holds NaN or infinite values")
