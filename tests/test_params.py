"""Parameter counts against torch modules, and the notes' two worked counts."""
import pytest
import torch

from rnnviz.lessons.presets import GRU_CLASSIFIER, RNN_LM
from rnnviz.nn.params import cell_params, classifier_params, lm_params

MODULES = {"rnn": torch.nn.RNN, "gru": torch.nn.GRU, "lstm": torch.nn.LSTM}


def n(m):
    return sum(p.numel() for p in m.parameters())


@pytest.mark.parametrize("cell", MODULES)
@pytest.mark.parametrize("d,H,L,bi", [(1, 1, 1, False), (10, 7, 2, False), (5, 6, 3, True)])
def test_cell_counts_equal_torch(cell, d, H, L, bi):
    assert cell_params(cell, d, H, L, bi) == n(MODULES[cell](d, H, num_layers=L, bidirectional=bi))


@pytest.mark.parametrize("cell", MODULES)
def test_lm_and_classifier_equal_torch(cell):
    V, E, H, K = 50, 12, 9, 3
    lm = lm_params(cell, V, E, H)
    assert lm["total"] == n(torch.nn.Embedding(V, E)) + n(MODULES[cell](E, H)) + n(torch.nn.Linear(H, V))
    clf = classifier_params(cell, E, H, K, vocab_size=V, bidirectional=True)
    assert clf["total"] == (n(torch.nn.Embedding(V, E)) + n(MODULES[cell](E, H, bidirectional=True))
                            + n(torch.nn.Linear(2 * H, K)))


def test_notes_gru_classifier_88836():
    assert classifier_params(**GRU_CLASSIFIER)["total"] == 88_836


def test_notes_language_model_breakdown():
    p = lm_params(**RNN_LM)
    assert (p["embedding"], p["cell"], p["output"], p["total"]) == (9_620_480, 394_240, 19_278_540, 29_293_260)


def test_millions_written_like_the_notes():
    from rnnviz.nn.params import millions
    p = lm_params(**RNN_LM)
    assert [millions(p[k]) for k in ("embedding", "cell", "output", "total")] == ["9.6 M", "0.39 M", "19.3 M", "29.3 M"]


def test_large_counts_in_billions_and_trillions():
    """The issue: the parameter view read '1012595.8 M' for large totals."""
    from rnnviz.nn.params import millions
    assert millions(1_012_595_800_000) == "1.01 T" and millions(12_345_678_901) == "12.3 B"
    assert millions(999_949_999) == "999.9 M" and millions(999_950_000) == "1.00 B"


def test_counts_read_in_k_then_as_the_notes_write_millions():
    from rnnviz.nn.params import count_text

    assert [count_text(n) for n in (0, 999, 1_000, 88_836, 99_949, 99_950)] == [
        "0", "999", "1.0 K", "88.8 K", "99.9 K", "0.1 M"]  # millions() wrote 88,836 as '0.089 M', 1,000 as '0.001 M'
    p = lm_params(**RNN_LM)  # the notes' language model: 9.6 M, 0.39 M, 19.3 M, 29.3 M, unchanged
    assert [count_text(p[k]) for k in ("embedding", "cell", "output", "total")] == ["9.6 M", "0.39 M", "19.3 M",
                                                                                  "29.3 M"]
    assert count_text(12_345_678_901) == "12.3 B" and count_text(1_012_595_800_000) == "1.01 T"
