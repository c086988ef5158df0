"""Generation itself: the characters `CharLM.generate` draws are the ones temperature, top-k and top-p say.

`filter_probs` is tested alone (test_sampling.py); these tests check that generation uses the three knobs. The
reference sampler below is written from the definitions, in plain Python, and never calls rnnviz's softmax or
filter: p = softmax(logits / T); keep the k most likely characters (ties: lower id first) and, of those, the
ones in the nucleus, the shortest most-likely-first prefix whose mass reaches top-p; renormalise; draw by inverse
CDF from one uniform number per generated character, taken in order from `np.random.default_rng(seed)` (the one
random call the runner makes per character, at forced positions too).

The models are built in the test from random tensors (no training, milliseconds): a random one whose distribution
changes at every step, and a "stationary" one (zero embeddings and recurrent weights, zero head weights) whose
next-character logits are its head bias at every step, so one long generation is many independent draws from a
distribution the test chose.
"""
import math
from collections import Counter

import numpy as np
import pytest

from rnnviz.charlm.runner import CharLM
from rnnviz.nn.sampling import SamplingSettings

VOCAB = list("abcdefghij")
GATES = {"lstm": 4, "gru": 3, "rnn": 1}
# distinct scores, so the ranking (and so top-k and the nucleus) has no ties
STATIONARY_LOGITS = [2.0, 1.4, -0.3, 0.9, -2.0, 0.2, 1.1, -1.0, 0.5, -0.6]


def make_model(cell: str = "lstm", seed: int = 0, layers: int = 2, stationary_logits=None) -> CharLM:
    V, E, H, G = len(VOCAB), 6, 12, GATES[cell]
    rng = np.random.default_rng(seed)
    t = {"embed.weight": rng.normal(size=(V, E))}
    for k in range(layers):
        t[f"rnn.weight_ih_l{k}"] = rng.normal(scale=0.6, size=(G * H, E if k == 0 else H))
        t[f"rnn.weight_hh_l{k}"] = rng.normal(scale=0.6, size=(G * H, H))
        t[f"rnn.bias_ih_l{k}"] = rng.normal(scale=0.3, size=G * H)
        t[f"rnn.bias_hh_l{k}"] = rng.normal(scale=0.3, size=G * H)
    t["head.weight"] = rng.normal(scale=1.5, size=(V, H))  # scores a few units apart: temperature matters
    t["head.bias"] = rng.normal(scale=0.5, size=V)
    if stationary_logits is not None:
        t["embed.weight"] = np.zeros((V, E))
        for k in range(layers):
            t[f"rnn.weight_hh_l{k}"] = np.zeros((G * H, H))
        t["head.weight"] = np.zeros((V, H))
        t["head.bias"] = np.array(stationary_logits)
    card = {"itos": VOCAB, "cell": cell, "embed_size": E, "hidden_size": H, "num_layers": layers}
    return CharLM({k: v.astype(np.float32) for k, v in t.items()}, card)


# ---- the reference sampler, from the definitions ------------------------------------------------------------------
def reference_probs(logits, temperature: float, top_k: int | None, top_p: float | None) -> list[float]:
    z = [float(s) / temperature for s in logits]
    m = max(z)
    e = [math.exp(v - m) for v in z]
    p = [v / sum(e) for v in e]
    ranked = sorted(range(len(p)), key=lambda j: (-p[j], j))
    keep = set(ranked[:top_k] if top_k else ranked)
    if top_p is not None and top_p < 1:
        nucleus, mass = set(), 0.0
        for j in ranked:
            nucleus.add(j)
            mass += p[j]
            if mass >= top_p:
                break
        keep &= nucleus
    kept = sum(p[j] for j in keep)
    return [p[j] / kept if j in keep else 0.0 for j in range(len(p))]


def reference_draw(p: list[float], u: float) -> int:
    """Inverse CDF: the first character whose cumulative probability exceeds u."""
    total = 0.0
    for j, q in enumerate(p):
        total += q
        if u < total:
            return j
    return max(j for j, q in enumerate(p) if q > 0)  # u within rounding of 1


def reference_generate(lm: CharLM, prime: str, length: int, temperature=1.0, top_k=None, top_p=None, seed=None,
                       forced=None):
    """The model's own step (checked against torch in test_charlm.py); the sampling from the definitions. A forced
    position still takes its uniform number, so the draws after it use the same numbers as without the branch."""
    rng = np.random.default_rng(seed)
    h, c = lm.start_state()
    for ch in prime:
        logits, h, c = lm.step(lm.stoi[ch], h, c)
    out, dists = [], []
    for _ in range(length):
        p = reference_probs(logits, temperature, top_k, top_p)
        j = reference_draw(p, rng.random())
        if forced and len(out) in forced:
            j = VOCAB.index(forced[len(out)])
        out.append(VOCAB[j])
        dists.append(p)
        logits, h, c = lm.step(j, h, c)
    return "".join(out), dists


KNOBS = [  # (temperature, top_k, top_p)
    (1.0, None, None),
    (0.5, None, None),
    (2.5, None, None),
    (1.0, 3, None),
    (0.9, 2, None),
    (1.0, None, 0.6),
    (0.7, 4, 0.85),
    (1.6, 1, None),
    (1.3, 6, 0.95),
]


@pytest.mark.parametrize("temperature,top_k,top_p", KNOBS)
def test_generate_draws_what_the_reference_draws(temperature, top_k, top_p):
    lm = make_model("lstm", seed=1)
    want, dists = reference_generate(lm, "abc", 150, temperature, top_k, top_p, seed=7)
    assert lm.generate("abc", 150, temperature=temperature, top_k=top_k, top_p=top_p, seed=7) == want
    tr = lm.draw(SamplingSettings("abc", 150, temperature, top_k, top_p, seed=7))
    assert tr.text == "abc" + want
    # the distribution the page shows for a generated character is the one it was drawn from
    for k in (0, 1, 50, 149):
        np.testing.assert_allclose(tr.sampled_at(k), dists[k], atol=1e-6)
    np.testing.assert_allclose(tr.sampled_probs[3], dists[3], atol=1e-6)


@pytest.mark.parametrize("cell", ["gru", "rnn"])
def test_generate_draws_what_the_reference_draws_for_every_cell(cell):
    lm = make_model(cell, seed=2, layers=1)
    want, _ = reference_generate(lm, "ja", 120, 0.8, 5, 0.9, seed=3)
    assert lm.generate("ja", 120, temperature=0.8, top_k=5, top_p=0.9, seed=3) == want


def test_forced_characters_replace_the_draw_and_keep_the_later_random_numbers():
    lm = make_model("lstm", seed=3)
    forced = {0: "j", 7: "a", 8: "a", 30: "e"}
    want, _ = reference_generate(lm, "bc", 60, 1.2, None, 0.95, seed=9, forced=forced)
    tr = lm.draw(SamplingSettings("bc", 60, 1.2, None, 0.95, seed=9, forced=tuple(forced.items())))
    assert tr.text == "bc" + want and all(want[pos] == ch for pos, ch in forced.items())


def test_progress_is_reported_every_so_many_characters():
    lm = make_model("gru", seed=3, layers=1)
    seen = []
    tr = lm.draw(SamplingSettings("ab", 23, seed=1), on_progress=seen.append, progress_every=5)
    assert seen == [tr.text[:2 + n] for n in (5, 10, 15, 20)]
    seen.clear()
    lm.draw(SamplingSettings("ab", 100, seed=1), on_progress=seen.append)  # every 50 by default
    assert [len(s) for s in seen] == [52, 102]


def test_a_temperature_near_zero_is_greedy():
    lm = make_model("lstm", seed=4)
    greedy = lm.generate("hi", 120, top_k=1)
    for seed in (0, 1):
        assert lm.generate("hi", 120, temperature=1e-4, seed=seed) == greedy
    assert lm.generate("hi", 120, temperature=1.0, seed=0) != greedy  # the model is not greedy at T = 1


def ranks(logits) -> list[int]:
    return sorted(range(len(logits)), key=lambda j: (-float(logits[j]), j))


@pytest.mark.parametrize("top_k", [1, 2, 4])
def test_characters_outside_the_top_k_never_appear(top_k):
    lm = make_model("lstm", seed=5)
    tr = lm.draw(SamplingSettings("de", 300, 3.0, top_k, seed=11))  # hot: without the cut, any character
    for k, ch in enumerate(tr.text[2:]):
        assert VOCAB.index(ch) in ranks(tr.logits_at(1 + k))[:top_k], f"character {k} is {ch!r}"
    if top_k > 1:
        assert len(set(tr.text[2:])) > top_k  # the top-k moves with the state


@pytest.mark.parametrize("temperature,top_p", [(1.0, 0.5), (2.0, 0.7), (0.6, 0.9)])
def test_characters_outside_the_nucleus_never_appear(temperature, top_p):
    lm = make_model("lstm", seed=6)
    tr = lm.draw(SamplingSettings("fg", 300, temperature=temperature, top_p=top_p, seed=12))
    sizes = []
    for k, ch in enumerate(tr.text[2:]):
        p = reference_probs(tr.logits_at(1 + k), temperature, None, top_p)  # the nucleus is taken after temperature
        nucleus = [j for j in range(len(p)) if p[j] > 0]
        assert VOCAB.index(ch) in nucleus, f"character {k} is {ch!r}, outside the nucleus {nucleus}"
        sizes.append(len(nucleus))
    assert min(sizes) < len(VOCAB)  # the cut removed something


def chi_square_bound(df: int, z: float = 3.09) -> float:
    """The chi-square distribution's 0.999 quantile (z = 3.09), by the Wilson-Hilferty approximation."""
    a = 2 / (9 * df)
    return df * (1 - a + z * math.sqrt(a)) ** 3


STATISTICAL_KNOBS = [  # (temperature, top_k, top_p)
    (1.0, None, None),
    (0.5, None, None),
    (2.0, None, None),
    (1.0, 4, None),
    (1.5, None, 0.7),
    (0.8, 5, 0.8),
]


@pytest.mark.parametrize("temperature,top_k,top_p", STATISTICAL_KNOBS)
def test_frequencies_match_the_filtered_distribution(temperature, top_k, top_p):
    lm = make_model("lstm", seed=0, layers=1, stationary_logits=STATIONARY_LOGITS)
    n = 3000
    counts = Counter(lm.generate("a", n, temperature=temperature, top_k=top_k, top_p=top_p, seed=2024))
    p = reference_probs(np.float32(STATIONARY_LOGITS), temperature, top_k, top_p)
    kept = [j for j in range(len(p)) if p[j] > 0]
    assert {VOCAB.index(ch) for ch in counts} <= set(kept), "a character outside the filtered set was drawn"
    chi2 = sum((counts[VOCAB[j]] - n * p[j]) ** 2 / (n * p[j]) for j in kept)
    assert chi2 < chi_square_bound(len(kept) - 1), f"chi-square {chi2:.1f} with {len(kept) - 1} degrees of freedom"


# ---- the shipped model's samples, pinned ----------------------------------------------------------------------------
SHIPPED_SAMPLES = [  # (knobs, the 60 characters drawn after "ROMEO:"), as the sampling page and rnnviz.sample draw them
    (dict(temperature=0.8, seed=1), "\nWhy, then, as if it could dispatch.\n\nGLOUCESTER:\nSpeak to t"),
    (dict(temperature=1.3, top_k=5, seed=2), "\nIn so, and so true living sea, to meet you,\nBut as your hea"),
    (dict(top_p=0.9, seed=3), "\nGood man is now to attend up, and rest\nTo see him company.\n"),
    (dict(temperature=0.5, top_k=3, top_p=0.8, seed=4),
     "\nNo, no more, the matter of the state of thee,\nWhere is the "),
    (dict(top_k=1), "\nI will not see the season of the sea,\nAnd then the season o"),
]


@pytest.mark.parametrize("knobs,want", SHIPPED_SAMPLES)
def test_the_shipped_model_draws_the_same_text_for_a_seed(knobs, want):
    """A link shared last term opens the same text: a seed's sample does not change with the code around it."""
    from rnnviz import charlm

    assert charlm.load(charlm.SHIPPED_MODEL).generate("ROMEO:", 60, **knobs) == want


def test_a_branch_of_the_shipped_model_is_pinned_too():
    from rnnviz import charlm
    from rnnviz.lessons import sample as L

    lm = charlm.load(charlm.SHIPPED_MODEL)
    smp = L.draw_sample(lm, SamplingSettings("ROMEO:", 60, 0.8, None, None, 1, ((10, "Z"),)))
    assert smp.text == "ROMEO:\nWhy, thenZy shall be my poor land.\n\nKING RICHARD II:\nBelow "
