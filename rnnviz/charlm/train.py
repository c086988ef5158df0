"""Train a character model: truncated BPTT over contiguous batches, AdamW, clipping, validation.

    python -m rnnviz.train --corpus data/tinyshakespeare.txt --out models/shakespeare

Writes OUT.safetensors (weights, no pickle), OUT.json (card) and OUT.resume.pt (optimizer state, to
resume with --resume). On a CUDA machine (`--device auto`) it uses cuDNN and float16 autocast.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from rnnviz import cli
from rnnviz.charlm.checkpoint import CharRNNConfig
from rnnviz.charlm.corpus import CorpusError, read_corpus, split_corpus
from rnnviz.nn.cells import get

try:
    import torch

    from rnnviz.charlm.model import CharRNN, batch_streams, detach_state, save_checkpoint, stream_loss
except ImportError:  # --help and --version work without it; main() says what to install
    torch = None


def lr_at(step: int, args) -> float:
    """Linear warm-up, then constant or cosine decay to lr * min_lr_ratio."""
    if step < args.warmup:
        return args.lr * (step + 1) / args.warmup
    if args.schedule == "constant":
        return args.lr
    progress = min(1.0, (step - args.warmup) / max(1, args.steps - args.warmup))
    return args.lr * (args.min_lr_ratio + (1 - args.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress)))


def pick_device(name: str, local_rank: int = 0) -> torch.device:
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and torch.cuda.device_count() > 1:
        return torch.device("cuda", local_rank)
    return torch.device(name)


@dataclass
class Dist:
    """Data-parallel context under torchrun (WORLD_SIZE > 1); a single process otherwise.

    Attributes:
        rank: this process's index among all processes (RANK); 0 is the main one.
        world: the number of processes (WORLD_SIZE).
        local_rank: this process's index on its machine (LOCAL_RANK), which picks its GPU.
    """

    rank: int = 0
    world: int = 1
    local_rank: int = 0

    @property
    def main(self) -> bool:
        return self.rank == 0

    def mean(self, value: float) -> float:
        """Average a number over all processes."""
        if self.world == 1:
            return value
        t = torch.tensor([value], dtype=torch.float64)
        torch.distributed.all_reduce(t)
        return t.item() / self.world

    def any(self, flag: bool) -> bool:
        """True on every process if it is true on one (so all stop at the same step)."""
        if self.world == 1:
            return flag
        t = torch.tensor([int(flag)])
        torch.distributed.all_reduce(t, op=torch.distributed.ReduceOp.MAX)
        return bool(t.item())


def init_dist(device_name: str) -> Dist:
    """Join the process group torchrun describes in the environment (gloo on CPU, NCCL on GPUs)."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world == 1:
        return Dist()
    rank, local = int(os.environ["RANK"]), int(os.environ.get("LOCAL_RANK", "0"))
    use_cuda = device_name in ("auto", "cuda") and torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(local)
    torch.distributed.init_process_group(backend="nccl" if use_cuda else "gloo")
    return Dist(rank, world, local)


def parse_args(argv=None) -> argparse.Namespace:
    ap = cli.parser("train", __doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True, help="UTF-8 text file")
    ap.add_argument("--out", default="models/charlm", help="output path without extension")
    ap.add_argument("--cell", choices=["lstm", "gru", "rnn"], default="lstm", help="the recurrent cell")
    ap.add_argument("--nonlinearity", choices=["tanh", "relu"], default="tanh", help="for --cell rnn")
    ap.add_argument("--layers", type=cli.positive_int, default=2, help="stacked recurrent layers")
    ap.add_argument("--hidden", type=cli.positive_int, default=512, help="hidden units per layer")
    ap.add_argument("--embed", type=cli.positive_int, default=64, help="embedding size")
    ap.add_argument("--dropout", type=cli.number(float, 0, 1, high_open=True), default=0.2,
                    help="dropout between layers and before the output layer")
    ap.add_argument("--seq-len", type=cli.positive_int, default=128, help="truncated-BPTT chunk length")
    ap.add_argument("--batch", type=cli.positive_int, default=64, help="parallel contiguous streams")
    ap.add_argument("--steps", type=cli.positive_int, default=None, help="optimizer steps (None: from --epochs)")
    ap.add_argument("--epochs", type=cli.positive, default=10.0, help="passes over the training split")
    ap.add_argument("--minutes", type=cli.non_negative, default=None,
                    help="stop after this wall time (0: after the first step; the schedule still uses --steps)")
    ap.add_argument("--lr", type=cli.positive, default=2e-3, help="AdamW's peak learning rate")
    ap.add_argument("--schedule", choices=["cosine", "constant"], default="cosine", help="after the warm-up")
    ap.add_argument("--warmup", type=cli.count, default=100, help="linear warm-up steps")
    ap.add_argument("--min-lr-ratio", type=cli.number(float, 0, 1), default=0.05,
                    help="the cosine schedule ends at lr times this")
    ap.add_argument("--weight-decay", type=cli.number(float, 0), default=0.01, help="AdamW's weight decay")
    ap.add_argument("--clip", type=cli.positive, default=1.0, help="clip the gradient norm at this value")
    ap.add_argument("--eval-every", type=cli.positive_int, default=500, help="validate every this many steps")
    ap.add_argument("--val-fraction", type=cli.number(float, 0, 1, low_open=True, high_open=True), default=0.1,
                    help="the last this fraction of the corpus validates")
    ap.add_argument("--seed", type=int, default=1337, help="torch's random seed")
    ap.add_argument("--device", default="auto", help="auto | cpu | cuda")
    ap.add_argument("--threads", type=cli.positive_int, default=None, help="CPU threads for torch (None: torch's)")
    ap.add_argument("--amp", choices=["auto", "off"], default="auto", help="float16 autocast on CUDA")
    ap.add_argument("--resume", action="store_true", help="continue from OUT.resume.pt")
    ap.add_argument("--init", default=None, help="start from these weights (NAME.safetensors), with a fresh optimizer")
    ap.add_argument("--note", default=None, help="a sentence for the card (how and why it was trained so)")
    ap.add_argument("--float32", action="store_true", help="store weights in float32 rather than float16")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    return ap.parse_args(argv)


def open_forget_gates(model: CharRNN, cell: str) -> None:
    """Forget-gate bias 1 at the start (b_ih's forget block 1, b_hh's 0) for a cell that has one: the cell begins
    closer to copy than erase."""
    kind, H = get(cell), model.cfg.hidden_size
    if kind.forget_gate is None:
        return
    at = kind.gates.index(kind.forget_gate) * H
    with torch.no_grad():
        for k in range(model.cfg.num_layers):
            getattr(model.rnn, f"bias_ih_l{k}")[at:at + H].fill_(1.0)
            getattr(model.rnn, f"bias_hh_l{k}")[at:at + H].fill_(0.0)


def train(args: argparse.Namespace) -> dict:
    """Run the training described by `args`; return the card that was written."""
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    dist = init_dist(args.device)
    device = pick_device(args.device, dist.local_rank)
    text = read_corpus(args.corpus)
    split = split_corpus(text, args.val_fraction)
    if len(split.val) < 2:
        raise CorpusError("the validation split is too short; give a longer corpus or a larger --val-fraction")
    data = process_streams(split, args.batch, dist)
    chunks_per_epoch = max(1, math.ceil((data.size(1) - 1) / args.seq_len))
    if args.steps is None:
        args.steps = max(1, int(args.epochs * chunks_per_epoch))
    cfg = CharRNNConfig(len(split.itos), args.cell, args.embed, args.hidden, args.layers, args.dropout,
                        args.nonlinearity)
    model = CharRNN(cfg).to(device)
    open_forget_gates(model, args.cell)
    if args.init:  # e.g. fine-tune a trained model with more dropout and a smaller learning rate
        from safetensors.torch import load_file as _load

        model.load_state_dict({k: v.float() for k, v in _load(args.init).items()})
    net = model
    if dist.world > 1:  # gradients are averaged over processes: the same update as one process on the full batch
        net = torch.nn.parallel.DistributedDataParallel(
            model, device_ids=[device.index] if device.type == "cuda" else None)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    use_amp = device.type == "cuda" and args.amp == "auto"
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    weights, card_file = cli.model_paths(args.out)  # models/mine.v2 keeps its .v2
    resume_path = Path(str(weights.with_suffix("")) + ".resume.pt")
    step, elapsed_before, best_val, history, state = (resume(resume_path, model, opt, device, dist) if args.resume
                                                      and resume_path.exists() else (0, 0.0, float("inf"), [], None))
    dev_name = (torch.cuda.get_device_name(device) if device.type == "cuda"
                else f"CPU ({torch.get_num_threads()} threads)")
    if dist.world > 1:
        dev_name += f" x {dist.world} processes (DDP)"
    t0 = time.time()
    bar = tqdm(total=args.steps, initial=step, disable=args.quiet or not dist.main, dynamic_ncols=True, file=sys.stderr)
    train_loss_ema = None

    def card(val_loss: float) -> dict:
        return {
            "itos": split.itos, **cfg.card_fields(), "train_loss": round(train_loss_ema or float("nan"), 4),
            "val_loss": round(val_loss, 4),
            "val_loss_note": "nats/char, validation split read as one stream from a zero state",
            "steps": step, "batch_size": args.batch, "seq_len": args.seq_len, "lr": args.lr,
            "minutes": round((elapsed_before + time.time() - t0) / 60, 1), "device": dev_name,
            "torch_version": torch.__version__, "corpus": Path(args.corpus).name, "corpus_sha256": split.sha256,
            "corpus_chars": len(text), "val_fraction": args.val_fraction, "seed": args.seed,
            "history": history, **({"note": args.note} if args.note else {}),
            **({"initialised_from": Path(args.init).name} if args.init else {}),
        }

    model.train()
    while step < args.steps:
        p = (step % chunks_per_epoch) * args.seq_len
        if p == 0:
            state = None  # each pass over the streams starts from a zero state
        x = data[:, p:p + args.seq_len]
        y = data[:, p + 1:p + 1 + args.seq_len]
        x = x[:, : y.size(1)].to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        for g in opt.param_groups:
            g["lr"] = lr_at(step, args)
        with torch.autocast(device.type, dtype=torch.float16, enabled=use_amp):
            _, loss, state = net(x, state, y)
        state = detach_state(state)
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        scaler.step(opt)
        scaler.update()
        step += 1
        lv = dist.mean(loss.item())
        train_loss_ema = lv if train_loss_ema is None else 0.98 * train_loss_ema + 0.02 * lv
        elapsed = time.time() - t0
        bar.update(1)
        speed = f"{step * x.numel() / max(elapsed, 1e-9):,.0f}" if not args.resume else None
        bar.set_postfix(loss=f"{train_loss_ema:.3f}", chars_s=speed)
        out_of_time = dist.any(args.minutes is not None and (elapsed_before + elapsed) / 60 >= args.minutes)
        if dist.main and (step % args.eval_every == 0 or step == args.steps or out_of_time):
            val = stream_loss(model, torch.from_numpy(split.val), device, streams=8)
            history.append({"step": step, "train": round(train_loss_ema, 4), "val8": round(val, 4),
                            "minutes": round((elapsed_before + elapsed) / 60, 2)})
            tqdm.write(f"step {step}: train {train_loss_ema:.4f}  val(8 streams) {val:.4f}  "
                       f"lr {lr_at(step, args):.2e}  {(elapsed_before + elapsed) / 60:.1f} min", file=sys.stderr)
            if val < best_val:
                best_val = val
                save_checkpoint(model, card(val), args.out, half=not args.float32)
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                        "elapsed": elapsed_before + elapsed, "best_val": best_val,
                        "history": json.dumps(history), "rng": torch.get_rng_state(),
                        "state": list(state) if isinstance(state, tuple) else [state]}, resume_path)
        if out_of_time:
            break
    bar.close()
    if dist.world > 1:
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()
        if not dist.main:
            return {}
    return finish(model, weights, card_file, split, device, history, dev_name)


def process_streams(split, batch: int, dist) -> torch.Tensor:
    """The training text as `batch` parallel streams, and this process's share of them (DDP: batch / world each)."""
    data = batch_streams(torch.from_numpy(split.train), batch)
    if data.size(1) < 2:
        raise CorpusError("the corpus is too short for this batch size")
    if batch % dist.world:
        raise CorpusError(f"--batch {batch} must be divisible by the {dist.world} processes")
    per = batch // dist.world
    return data[dist.rank * per:(dist.rank + 1) * per]


def resume(path: Path, model, opt, device, dist) -> tuple:
    """Step, minutes spent, best validation loss, history and carried state of a run `--resume` continues; the model,
    the optimiser and torch's random state are restored in place."""
    ck = torch.load(path, map_location=device, weights_only=True)  # our own file, tensors only
    model.load_state_dict(ck["model"]), opt.load_state_dict(ck["opt"])
    torch.set_rng_state(ck["rng"])
    carried = [t for t in (ck.get("state") or []) if t is not None] if dist.world == 1 else []
    state = ((tuple(t.to(device) for t in carried) if len(carried) == 2 else carried[0].to(device))
             if carried else None)
    return int(ck["step"]), float(ck["elapsed"]), float(ck["best_val"]), json.loads(ck["history"]), state


def finish(model, weights: Path, card_file: Path, split, device, history: list, dev_name: str) -> dict:
    """Reload the best weights exactly as stored, score the whole validation split as one stream, and write the card
    with that figure."""
    from safetensors.torch import load_file
    best = load_file(str(weights))
    model.load_state_dict({k: v.float() for k, v in best.items()})
    final = json.loads(card_file.read_text(encoding="utf-8"))
    final["val_loss"] = round(stream_loss(model, torch.from_numpy(split.val), device, streams=1), 4)
    final["val_bits_per_char"] = round(final["val_loss"] / math.log(2), 4)
    final["history"] = history
    card_file.write_text(json.dumps(final, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    tqdm.write(f"saved {weights}: val {final['val_loss']:.4f} nats/char "
               f"({final['val_bits_per_char']:.3f} bits/char), {final['minutes']} min on {dev_name}", file=sys.stderr)
    return final


def main(argv=None) -> int:
    args = parse_args(argv)
    cli.import_torch("training")
    try:
        train(args)
    except (CorpusError, FileNotFoundError, IsADirectoryError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
