"""The concept quiz: items drawn from the lecture notes, each a multiple choice whose wrong options are the
misconceptions the notes warn about (each named, for the report of what persisted), with the sentence that explains
the right answer. The same items run before and after the lecture."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Item:
    id: str  # stable: a room's question is matched to its item by it
    prompt: str
    options: tuple[str, ...]
    right: int
    misconceptions: dict[int, str]  # wrong option -> the belief it stands for
    why: str


ITEMS = (
    Item("h1", "One unit: hₜ = tanh(wₓxₜ + wₕhₜ₋₁), wₓ = 1, wₕ = 0.5, h₀ = 0. The input is x₁ = 1. What is h₁?",
         ("0.5", "0.762", "1", "0.381"), 1,
         {0: "the state is the weighted input without the squashing", 2: "tanh of 1 is 1",
          3: "the recurrent weight applies at the first step"},
         "h₁ = tanh(1·1 + 0.5·0) = tanh(1) ≈ 0.762: at the first step h₀ = 0 and only the input counts."),
    Item("fade", "Same unit, inputs 1, 0, 0. After the two silent steps, what is left of the first input in h₃?",
         ("Nothing: a zero input wipes the state", "A faded trace, about 0.18", "All of it: 0.762",
          "More than at step 1"), 1,
         {0: "a zero input resets the memory", 2: "the state holds its value when nothing new comes in",
          3: "memory accumulates by itself"},
         "Each silent step multiplies the past by wₕ = 0.5 and squashes it: 0.762, then 0.363, then 0.180."),
    Item("bound", "wₕ = 2 and the input 1 once, then zeros forever. What does h do over many steps?",
         ("It grows without bound", "It settles near 0.96", "It fades to 0", "It alternates in sign"), 1,
         {0: "a weight above 1 makes the state itself explode", 2: "every state fades once the input stops",
          3: "a large weight makes the state oscillate"},
         "tanh keeps h in (−1, 1); with wₕ = 2 it settles at the fixed point h = tanh(2h) ≈ 0.957."),
    Item("params", "An RNN cell with d inputs and H units reads a sequence of T tokens. How many parameters do "
         "Wₓ, Wₕ and b hold?", ("H·d + H² + H", "T·(H·d + H² + H)", "H·d + H", "T·H"), 0,
         {1: "each step has its own weights", 2: "the memory has no weights of its own",
          3: "the parameters grow with the sequence"},
         "The same Wₓ, Wₕ and b serve every step, so the count does not depend on T."),
    Item("range", "Which values can a coordinate of an RNN's state hₜ take?",
         ("Any real number", "Between −1 and 1", "Between 0 and 1", "Only −1 or 1"), 1,
         {0: "the state grows with its inputs", 2: "the state is a probability", 3: "the units are on/off switches"},
         "tanh squashes every coordinate into (−1, 1) at every step."),
    Item("vanish", "Why does a plain RNN struggle to learn a dependency 50 tokens back?",
         ("The gradient is a product of 50 Jacobians with Wₕ and shrinks geometrically",
          "The forward pass cannot carry information that far", "Its state is too small to store 50 tokens",
          "tanh outputs are rounded to zero"), 0,
         {1: "the forward pass forgets, so the model cannot see far", 2: "memory is limited by the state's size",
          3: "the numbers underflow"},
         "The forward pass sees the whole prefix; training fails because ∂h₅₀/∂h₀ multiplies 50 factors "
         "diag(1 − h²)·Wₕ."),
    Item("sigma", "Wₕ has largest singular value σₘₐₓ = 2. Must the gradient through time explode?",
         ("Yes, always", "No: σₘₐₓ > 1 is necessary, not sufficient", "No: it can only vanish",
          "Yes, unless the sequence is shorter than 2"), 1,
         {0: "a recurrent weight above 1 always explodes the gradient", 2: "gradients through tanh can only shrink",
          3: "explosion depends only on the length"},
         "Each factor also carries tanh's slope 1 − h², at most 1 and near 0 for saturated units, which can pull the "
         "product down (Pascanu, Mikolov and Bengio 2013)."),
    Item("clip", "Gradient clipping at threshold 1.0 is applied to a gradient of norm 10⁻⁷. What does it do?",
         ("Scales it up to 1.0", "Nothing", "Sets it to zero", "Scales it to 10⁻⁷ / 1.0 of the weights"), 1,
         {0: "clipping fixes vanishing gradients", 2: "clipping removes small gradients",
          3: "clipping rescales every gradient"},
         "Clipping rescales only a gradient longer than the threshold; it cannot bring a vanished gradient back."),
    Item("lstm", "What lets an LSTM carry information over many steps?",
         ("Its cell state is updated by addition, cₜ = f⊙cₜ₋₁ + i⊙g", "It has more parameters than an RNN",
          "It uses ReLU instead of tanh", "It reads the sequence in both directions"), 0,
         {1: "a bigger model remembers longer", 2: "the activation alone causes vanishing",
          3: "reading backwards gives long memory"},
         "Along the cell, ∂cₜ/∂cₜ₋₁ is a diagonal of forget gates, not a product of Wₕ's: with f ≈ 1 the cell copies."),
    Item("forget", "An LSTM's forget bias is 1, so its forget gate starts near σ(1) ≈ 0.73. After 10 steps, about "
         "what share of c₀ is left (inputs aside)?", ("All of it: the bias makes it remember", "About 0.73",
                                                      "About 0.04", "None"), 2,
         {0: "a forget bias of 1 makes the gate 1", 1: "the gate applies only once",
          3: "any forget gate below 1 erases at once"},
         "The gate multiplies the cell at every step: 0.73¹⁰ ≈ 0.04. Only f = 1 copies unchanged."),
    Item("padding", "Sequences of lengths 5, 3 and 2, padded at the end to 5, run through an RNN; a classifier reads "
         "out[:, -1]. What does it read for the sequence of length 2?",
         ("The state after its last real token", "The state after the padding", "The average of its states",
          "Zeros: padding is ignored"), 1,
         {0: "the RNN stops at each sequence's true length", 2: "the classifier pools over time",
          3: "padding positions produce no state"},
         "The recurrence keeps stepping through the padding; read index length − 1, pad at the start, or pack."),
    Item("output", "A language model over V = 37,580 tokens, embeddings of 256 and H = 512. Where are most of its "
         "29.3 M parameters?", ("The recurrent cell", "The output layer", "The embedding", "Evenly split"), 1,
         {0: "the recurrence is the big part of the model", 2: "the input table is the big part",
          3: "the parts are about the same size"},
         "The output layer holds (H + 1)·V ≈ 19.3 M, the cell 0.39 M: two thirds of the model is the softmax."),
    Item("softmax", "Scores 1, 2.2, −3, 4.1 go through a softmax. What probability does the last one get?",
         ("4.1 / 4.3 ≈ 0.95", "About 0.84", "1: it is the largest", "About 0.41"), 1,
         {0: "probabilities are scores over their sum", 2: "softmax picks the maximum",
          3: "probabilities are scores divided by 10"},
         "softmax(s)ᵢ = exp(sᵢ) / Σ exp(sⱼ): 0.03, 0.13, 0.00 and 0.84."),
    Item("sample", "A character model gives o probability 0.84 and e 0.13. Sampling at temperature 1, what is "
         "written next?", ("Always o", "o about 84 % of the time, e about 13 %", "e, to add variety",
                           "Each character equally often"), 1,
         {0: "sampling takes the most likely token", 2: "sampling avoids the most likely token",
          3: "sampling ignores the probabilities"},
         "Sampling draws each character with its probability; always taking the maximum would repeat itself."),
    Item("teacher", "Training a language model with teacher forcing on the text w₁ … w_T: what are the targets?",
         ("w₂ … w_T: the inputs shifted by one", "w₁ … w_T: the inputs themselves", "The model's own samples",
          "Only the last token w_T"), 0,
         {1: "the model predicts the token it reads", 2: "training feeds back the model's samples",
          3: "a language model is trained on the last token only"},
         "Inputs w₁ … w_{T−1}, targets w₂ … w_T: at every step the next true token, whatever the model sampled."),
)
