"""The computations behind each page, one module per page (named after it), plus presets and export."""
