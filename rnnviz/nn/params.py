"""Parameter counts as PyTorch counts them (two bias vectors per gate block), with a per-part breakdown."""
from __future__ import annotations

from rnnviz.nn.cells import get


def cell_params(cell: str, input_size: int, hidden_size: int, num_layers: int = 1, bidirectional: bool = False) -> int:
    """Weights and biases of torch.nn.RNN/GRU/LSTM(input_size, hidden_size, num_layers, bidirectional)."""
    kind, H, dirs = get(cell), hidden_size, 2 if bidirectional else 1
    return sum(dirs * kind.param_count(input_size if layer == 0 else H * dirs, H) for layer in range(num_layers))


def classifier_params(cell: str, input_size: int, hidden_size: int, num_classes: int, vocab_size: int = 0,
                      num_layers: int = 1, bidirectional: bool = False) -> dict[str, int]:
    """Last state -> linear: optional embedding (vocab_size x input_size), the cell, the output layer."""
    out_in = hidden_size * (2 if bidirectional else 1)
    parts = {
        "embedding": vocab_size * input_size,
        "cell": cell_params(cell, input_size, hidden_size, num_layers, bidirectional),
        "output": out_in * num_classes + num_classes,
    }
    parts["total"] = sum(parts.values())
    return parts


def lm_params(cell: str, vocab_size: int, embed_size: int, hidden_size: int, num_layers: int = 1) -> dict[str, int]:
    """Embedding (V x E) -> cell -> softmax layer (V x H + V) at every step."""
    parts = {
        "embedding": vocab_size * embed_size,
        "cell": cell_params(cell, embed_size, hidden_size, num_layers),
        "output": hidden_size * vocab_size + vocab_size,
    }
    parts["total"] = sum(parts.values())
    return parts


def millions(n: int) -> str:
    """Counts the way the notes write them: 9.6 M, 19.3 M, 0.39 M, 29.3 M; from a billion up 1.00 B, 1.01 T (never
    '1012595.8 M')."""
    if n >= 999_500_000_000:  # 999.5 B and up would print as 1.00e+03 B: billions take three figures, not four
        return f"{n / 1e12:#.3g}".rstrip(".") + " T"
    if n >= 999_950_000:
        return f"{n / 1e9:#.3g}".rstrip(".") + " B"
    if n >= 1_000_000:
        return f"{n / 1e6:.1f} M"
    return f"{n / 1e6:.2g} M" if n >= 1_000 else str(n)


def count_text(n: int) -> str:
    """A count in K / M / B / T: below 1,000 as it is; thousands in K up to 100 K (88.8 K, 1.0 K, where millions
    wrote 0.089 M and 0.001 M); from 0.1 M up as the notes write them (0.39 M, 9.6 M, 29.3 M), then B and T."""
    if n < 1_000:
        return str(n)
    if n < 99_950:
        return f"{n / 1e3:.1f} K"
    return millions(n)
