"""#25's cells, registered by name: the coordinator folds NEW_CELLS into `rnnviz.nn.cells.REGISTRY`."""
from __future__ import annotations

from rnnviz.nn.cells.base import Cell
from rnnviz.nn.cells.linear import LinearCell
from rnnviz.nn.cells.lru import LRUCell
from rnnviz.nn.cells.mingru import MinGRUCell
from rnnviz.nn.cells.minlstm import MinLSTMCell
from rnnviz.nn.cells.selective import SelectiveCell

NEW_CELLS: dict[str, Cell] = {c.name: c for c in (LinearCell(), MinGRUCell(), MinLSTMCell(), LRUCell(),
                                                  SelectiveCell())}


def register(registry: dict[str, Cell]) -> dict[str, Cell]:
    """Add #25's cells to a registry (never replacing one already there); returns it."""
    for name, cell in NEW_CELLS.items():
        registry.setdefault(name, cell)
    return registry
