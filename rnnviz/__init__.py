"""rnnviz: exact, inspectable recurrent networks (RNN, LSTM, GRU) for teaching; no UI code here.

`rnnviz.nn` (cells, gradients through time, parameter counts, sampling, the PyTorch reference),
`rnnviz.lessons` and `rnnviz.figures` (what each page of the app computes and draws), `rnnviz.charlm` (the
character language model: checkpoints, a NumPy runner, the train / sample / evaluate / average / convert CLIs).
Only the CLIs that train or convert need PyTorch (`pip install rnnviz[torch]`).
"""
__version__ = "0.2.0"
