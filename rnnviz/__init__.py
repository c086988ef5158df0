"""rnnviz: exact, inspectable recurrent networks (RNN, LSTM, GRU) for teaching; no UI code here."""
__version__ = "0.1.0"
