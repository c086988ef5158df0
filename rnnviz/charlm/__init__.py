"""The character language model: checkpoint format and validation (`checkpoint`), a NumPy runner (`runner`),
corpus reading and splitting (`corpus`), the torch module (`model`), and the CLIs `train`, `sample`,
`evaluate`, `average`, `convert`. Importing this package needs no torch; only `model` and the CLIs
`train`, `average` and `convert` do.
"""
from rnnviz.charlm.checkpoint import (
                                      LOCAL_LIMITS,
                                      MAX_FILE_BYTES,
                                      SHIPPED_COST_PER_CHAR,
                                      SHIPPED_MODEL,
                                      UPLOAD_LIMITS,
                                      CharRNNConfig,
                                      CheckpointError,
                                      Limits,
                                      card_path,
                                      check_tensors,
                                      expected_shapes,
                                      parse_card,
                                      read_header,
                                      read_tensors,
                                      validate_card,
)
from rnnviz.charlm.runner import CharLM, Clamp, Trace, check_upload, load, load_bytes
from rnnviz.nn.sampling import SamplingSettings

__all__ = ["LOCAL_LIMITS", "MAX_FILE_BYTES", "SHIPPED_COST_PER_CHAR", "SHIPPED_MODEL", "UPLOAD_LIMITS",
           "CharRNNConfig", "CheckpointError", "Limits", "card_path", "check_tensors", "expected_shapes", "parse_card",
           "read_header", "read_tensors", "validate_card", "CharLM", "Clamp", "Trace", "check_upload", "load",
           "load_bytes", "SamplingSettings"]
