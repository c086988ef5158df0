"""Streamlit code the pages share: `urlstate` (state a link carries, classroom mode), `widgets` (shared
controls, charts, messages), `loaders` (cached models and results, callbacks). The numbers come from `rnnviz`."""
