"""The character-level language model in PyTorch: embedding -> RNN/LSTM/GRU -> linear head.

The attribute names `embed`, `rnn` and `head` are part of the checkpoint format: a plain PyTorch
user rebuilds the module from the card and loads the state dict (see `rnnviz.charlm`).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

CELLS = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}


@dataclass
class CharRNNConfig:
    vocab_size: int  # number of distinct characters
    cell: str = "lstm"  # lstm | gru | rnn
    embed_size: int = 64  # E, size of a character embedding
    hidden_size: int = 512  # H, size of each layer's state
    num_layers: int = 2  # stacked recurrent layers
    dropout: float = 0.0  # between layers and before the head, training only

    def to_dict(self) -> dict:
        return asdict(self)


class CharRNN(nn.Module):
    """Reads character ids, carries a recurrent state, scores the next character."""

    def __init__(self, cfg: CharRNNConfig):
        super().__init__()
        if cfg.cell not in CELLS:
            raise ValueError(f"cell must be one of {sorted(CELLS)}, not {cfg.cell!r}")
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.embed_size)
        self.rnn = CELLS[cfg.cell](
            cfg.embed_size, cfg.hidden_size, num_layers=cfg.num_layers, batch_first=True,
            dropout=cfg.dropout if cfg.num_layers > 1 else 0.0,
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
