"""Export a page's exact setup as a short, runnable PyTorch script that checks itself.

The script rebuilds the cell in `torch.nn` with the page's weights (float64), runs the page's inputs,
prints the states and asserts they equal the numbers the page showed.
"""
from __future__ import annotations

import json

import numpy as np

from rnnviz.nn.cells import get, rnn_forward

HEADER = '''"""Exported from rnnviz: {what}. Run with `python {name}` (needs torch)."""
import torch

torch.set_default_dtype(torch.float64)
'''


def _arr(a) -> str:
    """A nested list literal that round-trips every float exactly."""
    return json.dumps(np.asarray(a, dtype=float).tolist())


def _cell_block(module: str, d: int, H: int, W_ih, W_hh, b_ih, b_hh) -> str:
    return f'''cell = torch.nn.{module}(input_size={d}, hidden_size={H}, batch_first=True)
with torch.no_grad():
    cell.weight_ih_l0.copy_(torch.tensor({_arr(W_ih)}))
    cell.weight_hh_l0.copy_(torch.tensor({_arr(W_hh)}))
    cell.bias_ih_l0.copy_(torch.tensor({_arr(b_ih)}))
    cell.bias_hh_l0.copy_(torch.tensor({_arr(b_hh)}))
'''


def rnn_script(x, W_ih, W_hh, b_ih=None, b_hh=None, h0=None, what: str = "a vanilla RNN",
               name: str = "rnnviz_rnn.py") -> str:
    """Script for h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh); scalars allowed for a one-unit cell."""
    W_ih, W_hh = np.atleast_2d(np.asarray(W_ih, float)), np.atleast_2d(np.asarray(W_hh, float))
    H, d = W_ih.shape
    x = np.asarray(x, float).reshape(-1, d)
    b_ih = np.zeros(H) if b_ih is None else np.broadcast_to(np.asarray(b_ih, float), (H,))
    b_hh = np.zeros(H) if b_hh is None else np.broadcast_to(np.asarray(b_hh, float), (H,))
    h0 = np.zeros(H) if h0 is None else np.broadcast_to(np.asarray(h0, float), (H,))
    expected = rnn_forward(x, W_ih, W_hh, b_ih, b_hh, h0=h0).h
    return HEADER.format(what=what, name=name) + _cell_block("RNN", d, H, W_ih, W_hh, b_ih, b_hh) + f'''
x = torch.tensor({_arr(x)}).unsqueeze(0)  # (1, T, d)
h0 = torch.tensor({_arr(h0)}).reshape(1, 1, {H})
h, _ = cell(x, h0)  # (1, T, H)
for t, h_t in enumerate(h[0], start=1):
    print(f"h_{{t}} =", [round(v, 6) for v in h_t.tolist()])

expected = torch.tensor({_arr(expected)})  # what rnnviz showed
assert torch.allclose(h[0], expected, atol=1e-9), "torch disagrees with rnnviz"
print("matches rnnviz to 1e-9")
'''


def gated_script(cell: str, x, W_ih, W_hh, b_ih, b_hh, what: str = "", name: str = "rnnviz_gates.py") -> str:
    """Script for an LSTM or GRU cell from zero state; asserts every hidden state (and the LSTM's last c)."""
    W_ih, W_hh = np.asarray(W_ih, float), np.asarray(W_hh, float)
    kind = get(cell)
    H, d = W_ih.shape[0] // len(kind.gates), W_ih.shape[1]
    x = np.asarray(x, float).reshape(-1, d)
    tr = kind.forward({"W_ih": W_ih, "W_hh": W_hh, "b_ih": b_ih, "b_hh": b_hh}, x)
    check_c = (f'''expected_c = torch.tensor({_arr(tr.c[-1])})
assert torch.allclose(last[1][0, 0], expected_c, atol=1e-9), "cell state disagrees"
''' if kind.has_cell_state else "")
    return HEADER.format(what=what or f"an {cell.upper()} cell", name=name) + _cell_block(
        kind.torch_module, d, H, W_ih, W_hh, b_ih, b_hh) + f'''
x = torch.tensor({_arr(x)}).unsqueeze(0)  # (1, T, d)
h, last = cell(x)  # zero initial state
for t, h_t in enumerate(h[0], start=1):
    print(f"h_{{t}} =", [round(v, 6) for v in h_t.tolist()])

expected = torch.tensor({_arr(tr.h)})  # what rnnviz showed
assert torch.allclose(h[0], expected, atol=1e-9), "torch disagrees with rnnviz"
{check_c}print("matches rnnviz to 1e-9")
'''


def recurrence_script(cell: str, x, params: dict[str, np.ndarray], what: str = "",
                      name: str = "rnnviz_recurrence.py") -> str:
    """Script for the linear recurrence ("linear": a, B) or minGRU ("mingru": W_z, b_z, W_h, b_h) from h_0 = 0: torch
    has neither, so it writes the step out, runs the loop and a log2 T-level scan, and asserts both give the states
    shown, and that autograd's dh_T/dh_0 is the product of the a_t."""
    from rnnviz.nn.cells import get

    p = {k: np.asarray(v, float) for k, v in params.items()}
    linear = "B" in p  # the linear recurrence's parameters (a, B), else minGRU's
    d = (p["B"] if linear else p["W_z"]).shape[1]
    x = np.asarray(x, float).reshape(-1, d)
    h = get(cell).forward(p, x).h
    if linear:
        coeffs = f'''a_diag = torch.tensor({_arr(p["a"])})  # (H,) one number a per unit
B = torch.tensor({_arr(p["B"])})  # (H, d)
a = a_diag.expand(len(x), -1)  # (T, H) the same a every step
b = x @ B.T  # (T, H) every step's write, B x_t
'''
    else:
        coeffs = f'''lin_z, lin_h = torch.nn.Linear({d}, {h.shape[1]}), torch.nn.Linear({d}, {h.shape[1]})
with torch.no_grad():
    lin_z.weight.copy_(torch.tensor({_arr(p["W_z"])}))
    lin_z.bias.copy_(torch.tensor({_arr(p["b_z"])}))
    lin_h.weight.copy_(torch.tensor({_arr(p["W_h"])}))
    lin_h.bias.copy_(torch.tensor({_arr(p["b_h"])}))
z = torch.sigmoid(lin_z(x))  # (T, H) gates from x_t alone
h_tilde = lin_h(x)  # (T, H) candidates from x_t alone
a, b = (1 - z).detach(), (z * h_tilde).detach()  # h_t = (1 - z_t) h_(t-1) + z_t h~_t: known before any state
'''
    return HEADER.format(what=what or f"a {cell} recurrence", name=name) + f'''
x = torch.tensor({_arr(x)})  # (T, d)
{coeffs}
h0 = torch.zeros(a.shape[1], requires_grad=True)
h, states = h0, []
for a_t, b_t in zip(a, b):  # the loop: T steps, each waiting for the last
    h = a_t * h + b_t
    states.append(h)
states = torch.stack(states)  # (T, H)
for t, h_t in enumerate(states, start=1):
    print(f"h_{{t}} =", [round(v, 6) for v in h_t.tolist()])

A, Bs, k = a.clone(), b.clone(), 1  # the scan: (a1, b1) o (a2, b2) = (a1 a2, a2 b1 + b2), log2 T levels
while k < len(A):
    A, Bs = torch.cat([A[:k], A[:-k] * A[k:]]), torch.cat([Bs[:k], A[k:] * Bs[:-k] + Bs[k:]])
    k *= 2

expected = torch.tensor({_arr(h)})  # what rnnviz showed
assert torch.allclose(states, expected, atol=1e-9), "torch disagrees with rnnviz"
assert torch.allclose(Bs, expected, atol=1e-9), "the scan disagrees with the loop"
grad = torch.autograd.grad(states[-1].sum(), h0)[0]  # dh_T/dh_0 is diagonal: the product of the a_t
assert torch.allclose(grad, a.prod(dim=0), atol=1e-12), "the gradient is not the product of the a_t"
print("matches rnnviz to 1e-9; the scan equals the loop; dh_T/dh_0 = prod a_t")
'''
