"""The using-the-states page: shapes, the padding trap, bidirectional, the parameter calculator; each view
has its own link."""
import sys

import numpy as np

from tests.conftest import all_text, tables

P = "states"


def metrics(at):
    return {m.label: (m.value, m.delta) for m in at.metric}


def url(at) -> dict:
    return {k: at.query_params[k][0] if isinstance(at.query_params[k], list) else at.query_params[k]
            for k in at.query_params}


def test_defaults_and_shapes(open_page):
    at = open_page(P)
    assert not at.exception
    text = all_text(at)
    assert "[B, T, d] = [2, 5, 4]" in text and "[B, T, H] = [2, 5, 3]" in text and "[B, T, |V|] = [2, 5, 6]" in text
    assert "**C = 3** classes" in text and "**|V| = 6** tokens" in text  # every symbol of the shapes line named
    assert "*Untrained:*" in text
    probs = tables(at)[0].to_numpy(dtype=float)
    assert probs.shape == (2, 3) and np.allclose(probs.sum(axis=1), 1, atol=2e-3)


def test_each_view_has_its_own_link(open_page):
    at = open_page(P, view="padding")  # a teacher shares the padding view
    assert at.segmented_control(key=f"{P}.view").value == "padding"
    assert "the state at index T − 1 is the state after the padding" in all_text(at)
    at.segmented_control(key=f"{P}.view").set_value("params").run()
    assert url(at).get("view") == "params" and metrics(at)["Total"][0] == "29,293,260"
    at.segmented_control(key=f"{P}.view").set_value("heads").run()
    assert "view" not in url(at)  # the default view needs no parameter


def test_padding_text_matches_its_numbers(open_page):
    at = open_page(P, view="padding")
    text = all_text(at)
    assert "Three fixes agree" not in text  # padding first is not exact, so the page must not say so
    df = tables(at)[0].astype(float)
    left = float(np.abs(df["padding first"] - df["$h_{\\mathrm{length}-1}$"]).max())
    assert left > 0.01 and "only comes close (within **0.0658**)" in text
    assert "here off by up to **0.752**" in text


def test_padding_trap_numbers(open_page):
    at = open_page(P, view="padding")
    at.toggle(key=f"{P}.torch_pad").set_value(True).run()
    df = tables(at)[0].astype(float)
    worst = "largest over all 4 units (the chart)"
    assert df.loc["example 1", worst] == 0  # the longest sequence has no padding
    assert (df[worst].iloc[1:] > 0.01).all()  # padded ones are read wrongly
    assert ((df["packed (PyTorch)"] - df["$h_{\\mathrm{length}-1}$"]).abs() < 1e-12).all()
    assert url(at).get("torch") == "1"
    at.text_input(key=f"{P}.lengths").input("4, x").run()
    assert not at.exception and any("whole numbers" in e.value for e in at.error)
    at.text_input(key=f"{P}.lengths").input("4, 4").run()
    assert "nothing is padded" in all_text(at)


def test_padding_check_without_torch(open_page, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    at = open_page(P, view="padding", torch="1")
    assert not at.exception and any("pip install torch" in i.value for i in at.info)
    assert "packed (PyTorch)" not in tables(at)[0].columns and "off by up to **0.752**" in all_text(at)


def test_notes_presets(open_page):
    at = open_page(P, view="params")
    at.button(key=f"{P}.preset.gru").click().run()
    assert metrics(at)["Total"] == ("88,836", "88.8 K")  # thousands in K (it read 0.089 M)
    at.button(key=f"{P}.preset.lm").click().run()
    m = metrics(at)
    assert m["Embedding"] == ("9,620,480", "9.6 M") and m["Recurrent cell"] == ("394,240", "0.39 M")
    assert m["Output layer"] == ("19,278,540", "19.3 M") and m["Total"] == ("29,293,260", "29.3 M")


def test_each_head_keeps_its_own_output_size(open_page):
    at = open_page(P, view="params")
    at.radio(key=f"{P}.task").set_value("classifier").run()
    assert at.number_input(key=f"{P}.K").value == 4  # not the language model's 37,580 tokens
    assert metrics(at)["Output layer"][0] == f"{512 * 4 + 4:,}" and metrics(at)["Embedding"][0] == "0"
    at.number_input(key=f"{P}.K").set_value(10).run()
    at.radio(key=f"{P}.task").set_value("lm").run()
    assert at.number_input(key=f"{P}.V").value == 37_580 and metrics(at)["Total"][0] == "29,293,260"
    at.radio(key=f"{P}.task").set_value("classifier").run()
    assert at.number_input(key=f"{P}.K").value == 10 and url(at).get("K") == "10"


def test_calculator_controls(open_page):
    at = open_page(P, view="params")
    at.radio(key=f"{P}.cell").set_value("lstm").run()
    assert metrics(at)["Recurrent cell"][0] == f"{4 * (512 * 256 + 512 * 512 + 2 * 512):,}"
    assert "LSTM cell holds 4 × (H·d + H·H + 2H)" in all_text(at)
    at.radio(key=f"{P}.task").set_value("classifier").run()
    at.toggle(key=f"{P}.bi").set_value(True).run()
    assert metrics(at)["Recurrent cell"][0] == f"{2 * 4 * (512 * 256 + 512 * 512 + 2 * 512):,}"


def test_calculator_counts_the_linear_recurrences(open_page):
    """The recurrences page's cells in the calculator, each counted from its definition (d = 256, H = 512)."""
    at = open_page(P, view="params")
    d, H = 256, 512
    for cell, count, words in (("mingru", 2 * (H * d + H), "minGRU cell holds 2 × (H·d + H)"),
                               ("minlstm", 3 * (H * d + H), "minLSTM cell holds 3 × (H·d + H)"),
                               ("linear", H * d + H, "linear cell holds H·d + H"),
                               ("lru", 4 * H * d + 3 * H + d, "LRU cell holds 4·H·d + 3H + d")):
        at.radio(key=f"{P}.cell").set_value(cell).run()
        assert metrics(at)["Recurrent cell"][0] == f"{count:,}" and words in all_text(at) and not at.exception


def test_bidirectional_agrees_with_torch(open_page):
    at = open_page(P, view="bi")
    at.toggle(key=f"{P}.torch_bi").set_value(True).run()
    cap = next(c.value for c in at.caption if "PyTorch on the same weights" in c.value)
    assert float(cap.split("to ")[-1].rstrip(".")) < 1e-12


def test_the_servers_heap_is_frozen_out_of_the_garbage_collectors_walks(open_page, monkeypatch):
    """A full collection used to walk every module loaded (50 ms, 120-170 ms with torch in), pausing whichever
    visitor's rerun it landed on; after the first run, and after the first torch check, it walks little."""
    import gc

    from ui import loaders

    gc.unfreeze()
    monkeypatch.setattr(loaders, "_FROZEN", set())
    at = open_page("states", view="padding")
    assert "start" in loaders._FROZEN and gc.get_freeze_count() > 50_000
    at.toggle(key="states.torch_pad").set_value(True).run()
    assert not at.exception
    if "torch" in sys.modules:  # a serving install has no torch: nothing more to freeze
        assert loaders._FROZEN == {"start", "torch"}
    assert len(gc.get_objects(generation=2)) < 20_000  # what a full collection still walks


def test_counts_read_once_and_large_ones_in_billions(open_page):
    """The issue: small counts repeated ('516 516', '0 0'), large ones read '1012595.8 M'."""
    at = open_page(P, view="params", task="classifier", d="10", H="10", K="6")
    m = metrics(at)
    assert m["Embedding"][1] in ("", None) and m["Output layer"] == ("66", m["Embedding"][1])  # no repeated delta
    at = open_page(P, view="params", d="100000", H="100000", V="10000000")
    m = metrics(at)
    assert m["Output layer"][1] == "1.00 T"
    assert all(" M" not in (d or "") or float(d[:-2]) < 1000 for _, d in m.values())


def test_padding_table_says_which_column_is_over_all_units(open_page):
    """The issue: the table showed unit 1 while its 'largest' column was the maximum over all four units."""
    at = open_page(P, view="padding")
    tab = tables(at)[0].astype(float)
    unit, every = tab.columns[-2], tab.columns[-1]
    assert "this unit" in unit and "all 4 units" in every
    assert np.allclose(tab[unit], np.abs(tab.iloc[:, 1] - tab.iloc[:, 2]), atol=2e-4)  # the unit's own gap agrees
    assert (tab[every] >= tab[unit] - 1e-4).all() and "largest difference over all units" in all_text(at)
