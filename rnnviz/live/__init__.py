"""The numbers behind the app's live charts (ui/live): a figure at each value a slider or stepper can take, reduced to
what changes between them (`frames`), and a figure's digest. NumPy and Plotly only; ui/live states the protocol."""
