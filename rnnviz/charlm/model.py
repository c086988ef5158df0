"""The character-level language model in PyTorch: embedding -> RNN/LSTM/GRU -> linear head.

The attribute names `embed`, `rnn` and `head` are part of the checkpoint format: a plain PyTorch
user rebuilds the module from the card and loads the state dict (see `rnnviz.charlm.checkpoint`).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

from rnnviz.charlm.checkpoint import LOCAL_LIMITS, CharRNNConfig, card_path, parse_card
from rnnviz.nn.cells import GATES, get


class CharRNN(nn.Module):
    """Reads character ids, carries a recurrent state, scores the next character."""

    def __init__(self, cfg: CharRNNConfig):
        super().__init__()
        if cfg.cell not in GATES:  # the cells torch.nn has
            raise ValueError(f"cell must be one of {sorted(GATES)}, not {cfg.cell!r}")
        kind = get(cfg.cell)
        if len(kind.nonlinearities) > 1 and cfg.nonlinearity not in kind.nonlinearities:
            raise ValueError(f"nonlinearity must be {' or '.join(kind.nonlinearities)}, not {cfg.nonlinearity!r}")
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.embed_size)
        extra = kind.torch_options(cfg.nonlinearity) if len(kind.nonlinearities) > 1 else {}
        self.rnn = getattr(nn, kind.torch_module)(
            cfg.embed_size, cfg.hidden_size, num_layers=cfg.num_layers, batch_first=True,
            dropout=cfg.dropout if cfg.num_layers > 1 else 0.0, **extra,
        )
        self.drop = nn.Dropout(cfg.dropout)
        self.head = nn.Linear(cfg.hidden_size, cfg.vocab_size)

    def forward(self, idx: torch.Tensor, state=None, targets: torch.Tensor | None = None):
        """idx (B, T) -> logits (B, T, V), mean cross-entropy or None, the final state."""
        x = self.embed(idx)  # (B, T, E)
        out, state = self.rnn(x, state)  # (B, T, H)
        logits = self.head(self.drop(out))  # (B, T, V)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)).float(), targets.reshape(-1))
        return logits, loss, state


def detach_state(state):
    """Cut the graph between truncated-BPTT chunks, keeping the values."""
    if state is None:
        return None
    if isinstance(state, tuple):
        return tuple(s.detach() for s in state)
    return state.detach()


def batch_streams(ids: torch.Tensor, batch_size: int) -> torch.Tensor:
    """Cut one stream into batch_size contiguous streams: (B, N // B). Row b continues row b's text."""
    n = len(ids) // batch_size
    return ids[: n * batch_size].view(batch_size, n)


@torch.no_grad()
def stream_loss(model: CharRNN, ids: torch.Tensor, device: torch.device, streams: int = 1, chunk: int = 4096,
                progress: bool = False) -> float:
    """Mean cross-entropy (nats/char) of ids[1:] given the prefix, read as `streams` streams from zero state.
    `progress` shows a bar on a terminal's stderr."""
    model.eval()
    data = batch_streams(ids, streams).to(device)
    state, total, count = None, 0.0, 0
    starts = range(0, data.size(1) - 1, chunk)
    if progress and sys.stderr.isatty():
        from tqdm import tqdm

        starts = tqdm(starts, unit="chunk", desc=f"scoring {data.size(1):,} characters", file=sys.stderr, leave=False)
    for p in starts:
        x = data[:, p:p + chunk]
        y = data[:, p + 1:p + 1 + chunk]
        x = x[:, : y.size(1)]
        logits, _, state = model(x, state)
        total += torch.nn.functional.cross_entropy(
            logits.reshape(-1, logits.size(-1)).float(), y.reshape(-1), reduction="sum").item()
        count += y.numel()
    model.train()
    return total / count


def save_checkpoint(model: CharRNN, card: dict, out: str | os.PathLike, half: bool = True) -> Path:
    """Write OUT.safetensors (float16 unless half=False) and the card OUT.json."""
    from safetensors.torch import save_file

    from rnnviz.cli import make_readable, model_paths

    weights, card_file = model_paths(out)  # models/mine.v2 keeps its .v2
    weights.parent.mkdir(parents=True, exist_ok=True)
    dtype = torch.float16 if half else torch.float32
    sd = {k: v.detach().to("cpu", dtype).contiguous() for k, v in model.state_dict().items()}
    save_file(sd, str(weights), metadata={"format": "rnnviz-charlm"})
    card_file.write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    make_readable(weights, card_file)  # safetensors writes 0600: others (a server's account) could not read it
    return weights


def load_module(path: str | os.PathLike) -> CharRNN:
    """The torch module a checkpoint's card describes, with its weights in float32, in eval mode."""
    from safetensors.torch import load_file

    card = parse_card(card_path(path).read_bytes(), LOCAL_LIMITS)
    model = CharRNN(CharRNNConfig.from_card(card))
    model.load_state_dict({k: v.float() for k, v in load_file(str(path)).items()})
    return model.eval()
