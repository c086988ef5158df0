"""The networks themselves, in NumPy: one step function per cell, traced forward passes, exact gradients,
parameter counts and the sampling filters."""
