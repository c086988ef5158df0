"""The character language model: checkpoint format and validation (`checkpoint`), a NumPy runner (`runner`),
corpus reading and splitting (`corpus`), the torch module (`model`), and the CLIs `train`, `sample`,
`evaluate`, `average`. Importing this package needs no torch; only `model` and the CLIs do.
"""
from rnnviz.charlm.checkpoint import (MAX_FILE_BYTES, SHIPPED_MODEL, CharRNNConfig, CheckpointError, card_path,
                                      check_tensors, expected_shapes, read_tensors, validate_card)
from rnnviz.charlm.runner import CharLM, Trace, load, load_bytes

__all__ = ["MAX_FILE_BYTES", "SHIPPED_MODEL", "CharRNNConfig", "CheckpointError", "card_path", "check_tensors",
           "expected_shapes", "read_tensors", "validate_card", "CharLM", "Trace", "load", "load_bytes"]
