"""Convert a PyTorch state dict (`torch.save(model.state_dict(), "m.pt")`) into an rnnviz checkpoint.

    python -m rnnviz.convert m.pt models/mine --vocab corpus.txt
    python -m rnnviz.convert m.pt models/mine --itos $'\\n !,.abc...'     # bash's $'' writes a line break

writes models/mine.safetensors and models/mine.json (`models/mine.v2` writes models/mine.v2.safetensors; an
existing model is overwritten only with --force), storing the input's own dtype (float16, bfloat16, float32 or
float64; --dtype, --float16 or --bfloat16 choose another), readable by others (0644 under the usual umask). A
command-line tool only: nothing in the app reaches it.

The file is read with `torch.load(..., weights_only=True)` (tensors only, nothing executed). Layouts mapped:
rnnviz's own (`embed.*`, `rnn.*`, `head.*`); the same under the `module.` prefix of DataParallel /
DistributedDataParallel (or `_orig_mod.` of torch.compile); pytorch/examples' word_language_model
(`encoder.weight`, `rnn.weight_ih_l0` ..., `decoder.weight`, `decoder.bias`, with tied weights or not); and a
dict holding the state dict under `state_dict`, `model_state_dict` or `model`. The embedding may be named
embed / encoder / embedding / emb, the recurrent module rnn / lstm / gru, the output layer head / decoder / fc /
linear / out / output / lm_head. Sizes and cell are read from the tensors: weight_ih_l0 has 4H rows for an
LSTM, 3H for a GRU, H for a plain RNN; a plain RNN's nonlinearity cannot be read from its weights (tanh unless
`--nonlinearity relu`). The vocabulary is the sorted set of a corpus's characters (`--vocab`, the usual
char-rnn convention, and `rnnviz.train`'s) or given in id order (`--itos` or `--itos-json`).
"""
from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

import numpy as np

from rnnviz import cli
from rnnviz.charlm.checkpoint import LOCAL_LIMITS, UPLOAD_LIMITS, CharRNNConfig, CheckpointError, validate_card
from rnnviz.charlm.corpus import CorpusError, read_corpus
from rnnviz.nn.cells import GATES, get

EMBED_NAMES = ("embed", "encoder", "embedding", "emb")
RNN_NAMES = ("rnn", "lstm", "gru")
HEAD_NAMES = ("head", "decoder", "fc", "linear", "out", "output", "lm_head")
CELL_BY_GATES = {g: name for name, g in GATES.items()}  # torch cells by their stacked blocks
PREFIXES = ("module.", "_orig_mod.")
DTYPES = ("float16", "bfloat16", "float32", "float64")  # what a model file may store (rnnviz.charlm.checkpoint)


class ConvertError(ValueError):
    """A state dict this converter cannot map, with what was found."""


def state_dict_of(obj) -> dict:
    """The state dict in what torch.load returned: the dict of tensors itself, or one held under a usual key."""
    import torch

    def is_sd(d):
        return isinstance(d, dict) and d and all(isinstance(v, torch.Tensor) for v in d.values())

    if is_sd(obj):
        return dict(obj)
    if isinstance(obj, dict):
        for key in ("state_dict", "model_state_dict", "model"):
            if is_sd(obj.get(key)):
                return dict(obj[key])
    kind = type(obj).__name__
    keys = f" with keys {', '.join(map(str, list(obj)[:10]))}" if isinstance(obj, dict) else ""
    raise ConvertError(f"the file holds a {kind}{keys}, not a state dict of tensors; save one with "
                       "torch.save(model.state_dict(), 'm.pt')")


def strip_prefixes(sd: dict) -> tuple[dict, list[str]]:
    """Drop DataParallel's `module.` (and torch.compile's `_orig_mod.`) from every name."""
    out, seen = {}, []
    for k, v in sd.items():
        while k.startswith(PREFIXES):
            p = next(p for p in PREFIXES if k.startswith(p))
            seen.append(p)
            k = k[len(p):]
        if k in out:
            raise ConvertError(f"two tensors are named {k} once prefixes are removed")
        out[k] = v
    return out, sorted(set(seen))


def _describe(sd: dict) -> str:
    return "; ".join(f"{k} {tuple(v.shape)}" for k, v in list(sd.items())[:12]) + (" ..." if len(sd) > 12 else "")


def _find(sd: dict, names: tuple[str, ...], what: str) -> str | None:
    found = [n for n in names if f"{n}.weight" in sd]
    if len(found) > 1:
        raise ConvertError(f"more than one {what} ({', '.join(found)})")
    return found[0] if found else None


def map_state_dict(sd: dict, cell: str | None = None) -> tuple[dict[str, np.ndarray], dict]:
    """rnnviz's tensors (float32 NumPy) and what was inferred: sizes, cell, layout, notes."""
    sd, prefixes = strip_prefixes(sd)
    notes = [f"removed the {p!r} prefix" for p in prefixes]
    rnn_keys = [re.fullmatch(r"(.*?)\.?weight_ih_l(\d+)(_reverse)?", k) for k in sd]
    rnn_keys = [m for m in rnn_keys if m]
    if not rnn_keys:
        raise ConvertError("no recurrent layer found (a tensor named like rnn.weight_ih_l0); the file holds: "
                           f"{_describe(sd)}")
    if any(m.group(3) for m in rnn_keys):
        raise ConvertError("the recurrent layer is bidirectional; a character model reads left to right only")
    rnn_prefixes = sorted({m.group(1) for m in rnn_keys})
    if len(rnn_prefixes) > 1:
        raise ConvertError(f"more than one recurrent module ({', '.join(rnn_prefixes)}); only one stack is supported")
    rp = rnn_prefixes[0]
    dot = f"{rp}." if rp else ""
    if any(k.startswith(f"{dot}weight_hr_l") for k in sd):
        raise ConvertError("the LSTM has proj_size > 0 (weight_hr_l*), which rnnviz does not run")
    L = len(rnn_keys)
    if sorted(int(m.group(2)) for m in rnn_keys) != list(range(L)):
        raise ConvertError("the recurrent layers are not numbered 0, 1, 2, ...")
    t = {k: v.detach().to("cpu").float().numpy() for k, v in sd.items()}
    W_ih0, W_hh0 = t[f"{dot}weight_ih_l0"], t.get(f"{dot}weight_hh_l0")
    if W_hh0 is None or W_ih0.ndim != 2 or W_hh0.ndim != 2:
        raise ConvertError(f"{dot}weight_ih_l0 and {dot}weight_hh_l0 must both be matrices")
    GH, E = W_ih0.shape
    H = W_hh0.shape[1]
    if GH % H or GH // H not in CELL_BY_GATES or W_hh0.shape[0] != GH:
        raise ConvertError(f"{dot}weight_ih_l0 has {GH} rows for a hidden size of {H}: not 4H (lstm), 3H (gru) or "
                           "H (rnn)")
    inferred = CELL_BY_GATES[GH // H]
    if cell is not None and cell != inferred:
        raise ConvertError(f"--cell {cell} does not fit the weights: weight_ih_l0 has {GH // H}H rows, which is "
                           f"{inferred}")
    cell = inferred
    out: dict[str, np.ndarray] = {}
    used = set()
    for k in range(L):
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            src = f"{dot}{name}_l{k}"
            want = (GH, E if k == 0 else H) if name == "weight_ih" else (GH, H) if name == "weight_hh" else (GH,)
            if src not in t:
                if not name.startswith("bias"):
                    raise ConvertError(f"{src} is missing")
                out[f"rnn.{name}_l{k}"] = np.zeros(want, np.float32)
                no_bias = "the recurrent layers have no biases (bias=False): zeros written"
                if no_bias not in notes:
                    notes.append(no_bias)
                continue
            if t[src].shape != want:
                raise ConvertError(f"{src} has shape {t[src].shape}; {want} expected")
            out[f"rnn.{name}_l{k}"] = t[src]
            used.add(src)
    emb = _find(t, EMBED_NAMES, "embedding")
    head = _find(t, HEAD_NAMES, "output layer")
    if emb is None:
        raise ConvertError(f"no embedding found (named {', '.join(n + '.weight' for n in EMBED_NAMES)}); "
                           f"the file holds: {_describe(sd)}")
    V = t[f"{emb}.weight"].shape[0]
    if t[f"{emb}.weight"].shape != (V, E):
        raise ConvertError(f"{emb}.weight has shape {t[f'{emb}.weight'].shape}; the recurrent layer reads {E} features")
    out["embed.weight"] = t[f"{emb}.weight"]
    used.add(f"{emb}.weight")
    if head is None:
        if E != H:
            raise ConvertError(f"no output layer found (named {', '.join(n + '.weight' for n in HEAD_NAMES)})")
        out["head.weight"] = t[f"{emb}.weight"]
        notes.append(f"no output weight: tied to {emb}.weight")
        head_bias = None
    else:
        out["head.weight"] = t[f"{head}.weight"]
        used.add(f"{head}.weight")
        head_bias = f"{head}.bias"
        if np.array_equal(out["head.weight"], out["embed.weight"]):
            notes.append("tied weights (the output layer is the embedding)")
    if out["head.weight"].shape != (V, H):
        raise ConvertError(f"the output layer has shape {out['head.weight'].shape}; ({V}, {H}) expected")
    if head_bias in t:
        out["head.bias"] = t[head_bias]
        used.add(head_bias)
        if out["head.bias"].shape != (V,):
            raise ConvertError(f"{head_bias} has shape {out['head.bias'].shape}; ({V},) expected")
    else:
        out["head.bias"] = np.zeros(V, np.float32)
        notes.append("no output bias: zeros written")
    unused = sorted(set(t) - used)
    if unused:
        raise ConvertError(f"the state dict holds tensors this converter does not know how to run: "
                           f"{', '.join(unused[:8])}{' ...' if len(unused) > 8 else ''}")
    layout = ("word_language_model" if emb == "encoder" and head == "decoder"
              else "rnnviz" if (emb, rp, head) == ("embed", "rnn", "head") else f"{emb} / {rp} / {head}")
    info = dict(cell=cell, vocab_size=V, embed_size=E, hidden_size=H, num_layers=L, layout=layout, notes=notes)
    return {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in out.items()}, info


def read_vocab(args) -> list[str]:
    if args.itos is not None:
        itos = list(args.itos)
    elif args.itos_json is not None:
        itos = json.loads(Path(args.itos_json).read_text(encoding="utf-8"))
        if not isinstance(itos, list) or not all(isinstance(c, str) and len(c) == 1 for c in itos):
            raise ConvertError(f"{args.itos_json} must hold a JSON list of single characters")
    else:
        itos = sorted(set(read_corpus(args.vocab)))
    if len(set(itos)) != len(itos):
        raise ConvertError("the vocabulary repeats a character")
    return itos


ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def torch_reason(error: Exception, limit: int = 240) -> str:
    """torch.load's refusal in one clean sentence: no terminal colour codes, the unpickler's own reason where it
    gives one (the global it met), else the message cut at a word, not in the middle of one."""
    text = " ".join(ANSI.sub("", str(error)).split())
    found = re.search(r"WeightsUnpickler error: (.*?\.)(?: |$)", text)
    if found:
        return found.group(1)
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + " ..."
    return text


def resave_command(path: str) -> str:
    """The one line that turns a trusted whole-module file into a state dict this converter reads."""
    stem = str(Path(path).with_suffix(""))
    code = (f"import torch; torch.save(torch.load({str(path)!r}, weights_only=False).state_dict(), "
            f"{stem + '.state_dict.pt'!r})")
    return f"python -c {shlex.quote(code)}"


def load_file(path: str) -> dict:
    """The state dict in a .pt / .pth (torch.load, weights only) or a .safetensors file."""
    import torch

    if str(path).endswith(".safetensors"):
        from safetensors.torch import load_file as load_st

        return load_st(path)
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as e:  # UnpicklingError, RuntimeError: anything but plain tensors and containers
        raise ConvertError(f"{path} holds more than tensors, and a pickled model is never loaded here (torch.load with "
                           f"weights_only=True says: {torch_reason(e)}). If you trust the file, save its state dict "
                           f"once and convert that:\n    {resave_command(path)}") from None
    return state_dict_of(obj)


def input_dtype(sd: dict) -> str:
    """The floating dtype every tensor of the state dict shares (float32 where they differ): what --dtype keep
    writes."""
    kinds = {str(v.dtype).removeprefix("torch.") for v in sd.values() if v.is_floating_point()}
    return kinds.pop() if len(kinds) == 1 and kinds <= set(DTYPES) else "float32"


def main(argv=None) -> int:
    ap = cli.parser("convert", __doc__.split("\n")[0], epilog="\n".join(__doc__.split("\n")[1:]))
    ap.add_argument("state_dict", help="m.pt (torch.save(model.state_dict(), ...)) or a .safetensors file")
    ap.add_argument("out", help="output name without extension: writes OUT.safetensors and OUT.json")
    voc = ap.add_mutually_exclusive_group(required=True)
    voc.add_argument("--vocab", metavar="CORPUS", help="the vocabulary is the sorted set of this text's characters")
    voc.add_argument("--itos", metavar="STRING", help="the characters in id order, as one string")
    voc.add_argument("--itos-json", metavar="FILE", help="the characters in id order, as a JSON list")
    ap.add_argument("--cell", choices=sorted(CELL_BY_GATES.values()), default=None, help="check the inferred cell")
    ap.add_argument("--nonlinearity", choices=["tanh", "relu"], default=None,
                    help="a plain RNN's nonlinearity (cannot be read from the weights; None: tanh)")
    dtype = ap.add_mutually_exclusive_group()
    dtype.add_argument("--dtype", choices=("keep", *DTYPES), default="keep",
                       help="what the file stores; keep: the input's own (float32 where its tensors differ)")
    dtype.add_argument("--float16", dest="dtype", action="store_const", const="float16", help="--dtype float16")
    dtype.add_argument("--bfloat16", dest="dtype", action="store_const", const="bfloat16", help="--dtype bfloat16")
    ap.add_argument("--force", action="store_true", help="overwrite OUT.safetensors and OUT.json if they exist")
    ap.add_argument("--note", default=None, help="a sentence for the card")
    args = ap.parse_args(argv)
    torch = cli.import_torch("converting")
    from safetensors.torch import save_file

    weights, card_file = cli.model_paths(args.out)
    try:
        if not args.force and (weights.exists() or card_file.exists()):
            raise ConvertError(f"{weights if weights.exists() else card_file} exists: pick another name, or pass "
                               "--force to overwrite it")
        sd = load_file(args.state_dict)
        stored = input_dtype(sd) if args.dtype == "keep" else args.dtype
        tensors, info = map_state_dict(sd, args.cell)
        itos = read_vocab(args)
        if len(itos) != info["vocab_size"]:
            raise ConvertError(f"the vocabulary has {len(itos)} characters but the embedding has {info['vocab_size']} "
                               "rows; give the corpus the model was trained on (--vocab) or the characters in id "
                               "order (--itos)")
        if len(get(info["cell"]).nonlinearities) == 1 and args.nonlinearity not in (None, "tanh"):
            raise ConvertError(f"--nonlinearity applies to a plain RNN; this is an {info['cell']}")
        cfg = CharRNNConfig(info["vocab_size"], info["cell"], info["embed_size"], info["hidden_size"],
                            info["num_layers"], 0.0, args.nonlinearity or "tanh")
        card = {"itos": itos, **cfg.card_fields(), "converted_from": Path(args.state_dict).name,
                "layout": info["layout"], "torch_version": torch.__version__,
                **({"note": args.note} if args.note else {})}
        validate_card(card, LOCAL_LIMITS)
    except (ConvertError, CheckpointError, CorpusError, OSError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    weights.parent.mkdir(parents=True, exist_ok=True)
    # float32 holds every input dtype exactly, so converting back to the input's own dtype loses nothing
    save_file({k: torch.from_numpy(v.copy()).to(getattr(torch, stored)) for k, v in tensors.items()},
              str(weights), metadata={"format": "rnnviz-charlm"})
    card_file.write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    cli.make_readable(weights, card_file)
    from rnnviz.charlm.runner import load

    load(weights)  # what was written reads back
    for note in info["notes"]:
        print(f"note: {note}", file=sys.stderr)
    if len(get(info["cell"]).nonlinearities) > 1 and args.nonlinearity is None:
        print("note: a plain RNN's nonlinearity cannot be read from its weights: tanh assumed "
              "(pass --nonlinearity relu for a ReLU RNN)", file=sys.stderr)
    try:
        validate_card(card, UPLOAD_LIMITS)
        fits = "the sampling page accepts it"
    except CheckpointError as e:
        fits = f"too large for the public sampling page ({e}); rnnviz.sample runs it"
    if weights.stat().st_size > UPLOAD_LIMITS.max_file_bytes:
        fits = f"the file is over the page's {UPLOAD_LIMITS.max_file_bytes / 2**20:g} MiB upload limit (try --float16)"
    print(f"wrote {weights} ({stored}) and {card_file}: {info['cell']}"
          f"{' (' + cfg.nonlinearity + ')' if 'nonlinearity' in card else ''}, {info['num_layers']} layer(s) of "
          f"{info['hidden_size']}, embeddings of {info['embed_size']}, {info['vocab_size']} characters; layout "
          f"{info['layout']}; {fits}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
