"""The checkpoint format of a character model, and its validation.

A checkpoint is `NAME.safetensors` (the state dict of `rnnviz.charlm.model.CharRNN`: `embed.*`, `rnn.*`,
`head.*`; no pickle) plus a card `NAME.json` (vocabulary `itos`, sizes, provenance). Everything here is
torch-free: the app reads checkpoints without PyTorch installed.

Tensors (V characters, E embedding size, H hidden size, G = 4 for lstm, 3 for gru, 1 for rnn; k = 0 .. L-1):

    embed.weight (V, E)   rnn.weight_ih_lk (G*H, E if k == 0 else H)   rnn.weight_hh_lk (G*H, H)
    head.weight (V, H)    rnn.bias_ih_lk (G*H,)                         rnn.bias_hh_lk (G*H,)
    head.bias (V,)

stored as float16, bfloat16, float32 or float64 (read as float32). The card needs `itos` (the characters, in
id order), `cell` (lstm | gru | rnn), `embed_size`, `hidden_size`, `num_layers`, and for an rnn cell optionally
`nonlinearity` (tanh, the default, or relu).

A file is checked from the card and the safetensors header alone before any tensor is read: its size, the
header's size and nesting, the number of tensors, their dtypes, names and shapes, and (for uploads,
`UPLOAD_LIMITS`) sizes bounded so that one character costs at most a few times what the shipped model's does.
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from rnnviz import resources
from rnnviz.nn.cells import GATES, get

SHIPPED_MODEL = resources.path("shakespeare.safetensors")  # installed or in a clone
CARD_KEYS = ("itos", "cell", "embed_size", "hidden_size", "num_layers")
DTYPES = {"F16": "float16", "BF16": "bfloat16", "F32": "float32", "F64": "float64"}  # accepted, read as float32
MAX_MESSAGE_CHARS = 300  # a refusal's message is cut to this length


class CheckpointError(ValueError):
    """A model file or card that is not what it claims to be. The message is cut to a readable length."""

    def __init__(self, message: str):
        message = str(message)
        if len(message) > MAX_MESSAGE_CHARS:
            message = message[:MAX_MESSAGE_CHARS - 1] + "…"
        super().__init__(message)


# ---- sizes and what they cost --------------------------------------------------------------------

def cost_per_char(cell: str, vocab_size: int, embed_size: int, hidden_size: int, num_layers: int) -> int:
    """Multiply-adds of one step's matrix-vector products: every layer's input and recurrent products and the
    output head (the first layer's input product is counted even where the runner reads it from a table)."""
    GH, H = GATES[cell] * hidden_size, hidden_size
    return GH * (embed_size + H) + (num_layers - 1) * GH * 2 * H + vocab_size * H


def param_count(cell: str, vocab_size: int, embed_size: int, hidden_size: int, num_layers: int) -> int:
    """Number of parameters, as torch counts them."""
    GH, H, V = GATES[cell] * hidden_size, hidden_size, vocab_size
    return V * embed_size + GH * (embed_size + H + 2) + (num_layers - 1) * GH * (2 * H + 2) + V * H + V


SHIPPED_SIZES = dict(cell="lstm", vocab_size=65, embed_size=64, hidden_size=512, num_layers=2)
SHIPPED_COST_PER_CHAR = cost_per_char(**SHIPPED_SIZES)  # 3,310,080 multiply-adds
SHIPPED_PARAMS = param_count(**SHIPPED_SIZES)  # 3,322,497


@dataclass(frozen=True)
class Limits:
    """Bounds checked before anything is allocated; None means unbounded.

    Attributes:
        max_file_bytes: bytes in the weights (safetensors) file.
        max_card_bytes: bytes in the card (the JSON beside the weights).
        max_header_bytes: bytes in the safetensors header.
        max_tensors: tensors the safetensors header may name.
        max_json_depth: nesting depth of the card's JSON.
        max_vocab: distinct characters in the vocabulary.
        max_size: embed_size and hidden_size, each.
        max_layers: stacked recurrent layers.
        max_cost_per_char: multiply-adds per generated character (see cost_per_char).
        max_params: parameters, as torch counts them.
    """
    max_file_bytes: int
    max_card_bytes: int
    max_header_bytes: int
    max_tensors: int
    max_json_depth: int
    max_vocab: int
    max_size: int
    max_layers: int
    max_cost_per_char: int | None
    max_params: int | None


MAX_FILE_BYTES = 20 * 2**20  # 20 MiB, the upload limit (.streamlit/config.toml lets a 20 MiB file through)
UPLOAD_LIMITS = Limits(
    max_file_bytes=MAX_FILE_BYTES, max_card_bytes=2**20, max_header_bytes=100_000, max_tensors=64, max_json_depth=16,
    max_vocab=4096, max_size=4096, max_layers=8,
    max_cost_per_char=4 * SHIPPED_COST_PER_CHAR, max_params=4 * SHIPPED_PARAMS)
# Files on one's own disk (the CLIs, the shipped model): the same format checks, sizes bounded only loosely.
LOCAL_LIMITS = Limits(
    max_file_bytes=4 * 2**30, max_card_bytes=64 * 2**20, max_header_bytes=16 * 2**20, max_tensors=10_000,
    max_json_depth=64, max_vocab=2**20, max_size=65_536, max_layers=64, max_cost_per_char=None, max_params=None)


@dataclass
class CharRNNConfig:
    """The sizes of a character model; the card holds them, the torch module and the NumPy runner read them.

    Attributes:
        vocab_size: V, the number of distinct characters.
        cell: lstm | gru | rnn.
        embed_size: E, the size of a character embedding.
        hidden_size: H, the size of each layer's state.
        num_layers: stacked recurrent layers.
        dropout: dropout probability between layers and before the head, in training only.
        nonlinearity: tanh | relu, for the rnn cell (lstm and gru have their own).
    """
    vocab_size: int
    cell: str = "lstm"
    embed_size: int = 64
    hidden_size: int = 512
    num_layers: int = 2
    dropout: float = 0.0
    nonlinearity: str = "tanh"

    @classmethod
    def from_card(cls, card: dict) -> "CharRNNConfig":
        """The sizes a (validated) card describes."""
        return cls(len(card["itos"]), card["cell"], card["embed_size"], card["hidden_size"], card["num_layers"],
                   float(card.get("dropout", 0.0)), card.get("nonlinearity", "tanh"))

    def card_fields(self) -> dict:
        """The card's size fields (the vocabulary itself is the card's `itos`; `nonlinearity` only for rnn)."""
        d = asdict(self)
        del d["vocab_size"]
        if len(get(self.cell).nonlinearities) == 1:  # a cell without a choice has its own
            del d["nonlinearity"]
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


# ---- JSON with bounded size, depth and numbers -----------------------------------------------------

# A string token: runs of plain characters or escape pairs, taken possessively, and the closing quote if there is
# one. It always matches and never backtracks, so one pass strips every string in linear time; an unterminated string
# takes the rest of the text (json.loads refuses it anyway). The earlier `"(?:[^"\\]|\\.)*"` failed at every
# unterminated quote and was tried again from the next one: `"` then `\"` repeated cost the square of the length
# (a 1 MiB card, about an hour with the interpreter lock held).
_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"?', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text, found without parsing it (no recursion), in time
    linear in its length."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    if not brackets:
        return 0
    b = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    return int(np.cumsum(np.where((b == ord("[")) | (b == ord("{")), 1, -1)).max())


def _bounded_int(s: str) -> int:
    if len(s.lstrip("-")) > 30:
        raise CheckpointError(f"a number with {len(s.lstrip('-'))} digits")
    return int(s)


def parse_json(text: str | bytes, what: str, max_bytes: int, max_depth: int) -> object:
    """json.loads with the size, nesting depth and integer length bounded; any failure is a CheckpointError."""
    if len(text) > max_bytes:
        raise CheckpointError(f"the {what} is {len(text):,} bytes; the limit is {max_bytes:,}")
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise CheckpointError(f"the {what} is not UTF-8 text (byte {e.start})") from None
    depth = json_depth(text)
    if depth > max_depth:
        raise CheckpointError(f"the {what} nests {depth:,} levels deep; the limit is {max_depth}")
    try:
        value = json.loads(text, parse_int=_bounded_int)
    except CheckpointError as e:
        raise CheckpointError(f"the {what} holds {e}; at most 30 are accepted") from None
    except (ValueError, RecursionError) as e:
        raise CheckpointError(f"the {what} is not valid JSON ({e})") from None
    try:  # "\ud800" in JSON decodes to a lone surrogate, which is not a character and cannot be shown
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise CheckpointError(
            f"the {what} holds a lone surrogate (\\ud800 to \\udfff), which is not a character") from None
    return value


def parse_card(card_text: str | bytes, limits: Limits = UPLOAD_LIMITS) -> dict:
    """A card's JSON, parsed within `limits` and validated."""
    return validate_card(parse_json(card_text, "card", limits.max_card_bytes, limits.max_json_depth), limits)


# ---- the card ---------------------------------------------------------------------------------------

def _whole(card: dict, key: str, hi: int) -> int:
    v = card[key]
    if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= hi:
        raise CheckpointError(f"the card's {key} must be a whole number from 1 to {hi:,}, not {v!r}")
    return v


def validate_card(card: object, limits: Limits = LOCAL_LIMITS) -> dict:
    """Check a card's fields, types and sizes; return it, or raise CheckpointError saying what is wrong."""
    if not isinstance(card, dict):
        raise CheckpointError("the card is not a JSON object")
    missing = [k for k in CARD_KEYS if k not in card]
    if missing:
        raise CheckpointError(f"the card lacks {', '.join(missing)}")
    itos = card["itos"]
    if not isinstance(itos, list) or not itos:
        raise CheckpointError("the card's itos must be a non-empty list of single characters")
    if len(itos) > limits.max_vocab:
        raise CheckpointError(f"the card's itos lists {len(itos):,} characters; the limit is {limits.max_vocab:,}")
    if not all(isinstance(c, str) and len(c) == 1 for c in itos):
        raise CheckpointError("the card's itos must be a non-empty list of single characters")
    if any("\ud800" <= c <= "\udfff" for c in itos):
        raise CheckpointError("the card's itos holds a lone surrogate (\\ud800 to \\udfff), which is not a character")
    if len(set(itos)) != len(itos):
        raise CheckpointError("the card's itos repeats a character")
    cell = card["cell"]
    if not isinstance(cell, str) or cell not in GATES:
        raise CheckpointError(f"the card's cell must be one of {', '.join(sorted(GATES))}, not {cell!r}")
    nl = card.get("nonlinearity", "tanh")
    choices = get(cell).nonlinearities
    if len(choices) > 1 and nl not in choices:
        raise CheckpointError(f"the card's nonlinearity must be {' or '.join(choices)}, not {nl!r}")
    if len(choices) == 1 and nl != "tanh":
        raise CheckpointError(
            f"the card's nonlinearity applies to rnn cells only; an {cell} cell has its own, not {nl!r}")
    E, H = _whole(card, "embed_size", limits.max_size), _whole(card, "hidden_size", limits.max_size)
    L = _whole(card, "num_layers", limits.max_layers)
    for key in ("val_loss", "train_loss", "val_bits_per_char"):  # shown with exp(): bounded, finite
        v = card.get(key)
        if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 <= v <= 100):
            raise CheckpointError(
                f"the card's {key} must be a number from 0 to 100 (nats or bits per character), not {v!r}")
    sizes = dict(cell=cell, vocab_size=len(itos), embed_size=E, hidden_size=H, num_layers=L)
    cost, params = cost_per_char(**sizes), param_count(**sizes)
    if limits.max_cost_per_char is not None and cost > limits.max_cost_per_char:
        raise CheckpointError(
            f"one character of this model costs {cost:,} multiply-adds, {cost / SHIPPED_COST_PER_CHAR:.1f} times the "
            f"shipped model's; the limit here is {limits.max_cost_per_char / SHIPPED_COST_PER_CHAR:g} times "
            f"({limits.max_cost_per_char:,}): use fewer layers, a smaller hidden size or vocabulary")
    if limits.max_params is not None and params > limits.max_params:
        raise CheckpointError(f"this model has {params:,} parameters; the limit here is {limits.max_params:,}")
    return card


# ---- the weights -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class TensorInfo:
    """One tensor a safetensors header declares.

    Attributes:
        dtype: F16 | BF16 | F32 | F64.
        shape: the tensor's shape.
        begin: byte offset of its first byte in the data section.
        end: byte offset just past its last byte in the data section.
    """
    dtype: str
    shape: tuple[int, ...]
    begin: int
    end: int


def read_header(data: bytes, limits: Limits = UPLOAD_LIMITS) -> tuple[dict[str, TensorInfo], int]:
    """The tensors a safetensors file declares, and where its data section starts; nothing else is read.
    Checks the file and header sizes, the header's JSON, the tensor count, dtypes, shapes and offsets."""
    if len(data) > limits.max_file_bytes:
        raise CheckpointError(
            f"the model file is {len(data) / 2**20:.1f} MiB; the limit is {limits.max_file_bytes / 2**20:g} MiB")
    if len(data) < 8:
        raise CheckpointError("the model file is too short to be a safetensors file")
    n = int.from_bytes(data[:8], "little")
    if n <= 1 or n > len(data) - 8 or data[8:9] != b"{":
        raise CheckpointError("the model file is not a safetensors file (its header is missing or cut short)")
    if n > limits.max_header_bytes:
        raise CheckpointError(f"the model file's header is {n:,} bytes; the limit is {limits.max_header_bytes:,}")
    header = parse_json(data[8:8 + n], "model file's header", limits.max_header_bytes, 4)
    if not isinstance(header, dict):
        raise CheckpointError("the model file's header is not a JSON object")
    header.pop("__metadata__", None)
    if len(header) > limits.max_tensors:
        raise CheckpointError(f"the model file names {len(header):,} tensors; the limit is {limits.max_tensors:,}")
    infos: dict[str, TensorInfo] = {}
    for name, e in header.items():
        shown = name[:60]
        if not isinstance(e, dict) or not {"dtype", "shape", "data_offsets"} <= e.keys():
            raise CheckpointError(f"the header entry for {shown!r} lacks dtype, shape or data_offsets")
        dtype, shape, offsets = e["dtype"], e["shape"], e["data_offsets"]
        if dtype not in DTYPES:
            raise CheckpointError(f"{shown} is stored as {str(dtype)[:20]!r}; only float16, bfloat16, float32 and "
                                  "float64 are accepted (not integers, booleans or float8)")
        if (not isinstance(shape, list) or len(shape) > 8
                or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape)):
            raise CheckpointError(f"{shown} has an invalid shape")
        if (not isinstance(offsets, list) or len(offsets) != 2
                or not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)
                or not 0 <= offsets[0] <= offsets[1]):
            raise CheckpointError(f"{shown} has invalid data offsets")
        if math.prod(shape) * np.dtype(_NUMPY[dtype]).itemsize != offsets[1] - offsets[0]:
            raise CheckpointError(
                f"{shown}: its shape {tuple(shape)} and dtype do not fit its {offsets[1] - offsets[0]:,} bytes")
        infos[name] = TensorInfo(dtype, tuple(shape), offsets[0], offsets[1])
    start, pos = 8 + n, 0
    for info in sorted(infos.values(), key=lambda t: (t.begin, t.end)):
        if info.begin != pos:
            raise CheckpointError(
                "the model file's tensors overlap or leave gaps (their data offsets are not contiguous)")
        pos = info.end
    if start + pos > len(data):
        raise CheckpointError(f"the model file is cut short: its tensors need {pos:,} bytes after the header, it holds "
                              f"{len(data) - start:,}")
    if start + pos < len(data):
        raise CheckpointError(f"the model file has {len(data) - start - pos:,} bytes after its last tensor")
    return infos, start


def check_shapes(shapes: dict[str, tuple[int, ...]], card: dict) -> None:
    """The tensor names and shapes (from the header or the arrays) must be exactly those the card implies."""
    want = expected_shapes(card)
    missing, extra = sorted(set(want) - set(shapes)), sorted(set(shapes) - set(want))
    if missing or extra:
        raise CheckpointError(
            "the weights do not match the card: "
            + (f"missing {', '.join(missing)}" if missing else "")
            + ("; " if missing and extra else "")
            + (f"unexpected {', '.join(n[:40] for n in extra[:5])}"
               + (f" and {len(extra) - 5} more" if len(extra) > 5 else "") if extra else "")
        )
    for name, shape in want.items():
        if tuple(shapes[name]) != shape:
            raise CheckpointError(f"{name} has shape {tuple(shapes[name])}, the card implies {shape}")


_NUMPY = {"F16": "<f2", "BF16": "<u2", "F32": "<f4", "F64": "<f8"}


def _read_tensor(data: bytes, start: int, info: TensorInfo) -> np.ndarray:
    """One tensor as an owned float32 array; bfloat16 is the top half of a float32's bits."""
    raw = np.frombuffer(data, dtype=_NUMPY[info.dtype], count=math.prod(info.shape), offset=start + info.begin)
    if info.dtype == "BF16":
        out = (raw.astype(np.uint32) << 16).view(np.float32)
    else:
        with np.errstate(over="ignore"):  # float64 beyond float32's range becomes inf, refused below
            out = raw.astype(np.float32)
    return out.reshape(info.shape)


def read_tensors(data: bytes, card: dict | None = None, limits: Limits = UPLOAD_LIMITS) -> dict[str, np.ndarray]:
    """Parse safetensors bytes into float32 arrays. With a card, the header's names and shapes are checked
    against it before any tensor is read. Anything wrong raises CheckpointError."""
    infos, start = read_header(data, limits)
    if card is not None:
        check_shapes({k: v.shape for k, v in infos.items()}, card)
    tensors = {}
    for name, info in infos.items():
        tensors[name] = t = _read_tensor(data, start, info)
        if not np.isfinite(t).all():
            raise CheckpointError(f"{name[:60]} holds NaN or infinite values (or values beyond float32's range)")
    return tensors


def check_tensors(tensors: dict[str, np.ndarray], card: dict) -> None:
    """Names and shapes must match the card exactly, and every value must be finite."""
    check_shapes({k: v.shape for k, v in tensors.items()}, card)
    for name, t in tensors.items():
        if not np.isfinite(t).all():
            raise CheckpointError(f"{name} holds NaN or infinite values")
