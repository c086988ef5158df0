"""Plotly figure builders: `base` (colours, layout, dict assembly), then one module per lesson."""
