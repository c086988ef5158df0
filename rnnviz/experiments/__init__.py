"""Experiments trained offline in torch whose results ship with the app (`lag`: learning the lag, `python -m
rnnviz.lag`); the pages read their JSON results without torch."""
