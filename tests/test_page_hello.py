"""The train-hello page: untrained vs trained, the per-step table, sampling, the softmax example."""
from tests.conftest import all_text

P = "hello"


def metrics(at):
    return {m.label: m.value for m in at.metric}


def test_untrained_then_trained(open_page):
    at = open_page(P)
    assert not at.exception
    assert metrics(at)["Vocabulary"] == "{h, e, l, o}"
    before = float(metrics(at)["Loss"])
    at.button(key=f"{P}.train").click().run()
    assert not at.exception
    m = metrics(at)
    assert float(m["Loss"]) < 0.05 < before
    assert abs(float(m["Perplexity = exp(loss)"]) - 2.718281828 ** float(m["Loss"])) < 2e-3
    table = at.dataframe[0].value
    assert list(table["input"]) == list("hell") and list(table["target"]) == list("ello")
    assert list(table["model's best guess"]) == list("ello")  # the two l's are told apart


def test_softmax_example_and_temperature(open_page):
    at = open_page(P)
    assert "(0.038, 0.125, 0.001, 0.837)" in all_text(at)
    at.select_slider(key=f"{P}.temp").set_value(0.5).run()
    import numpy as np
    from rnnviz.nn.sampling import softmax
    p = softmax(np.array([1.0, 2.2, -3.0, 4.1]), 0.5)
    assert "At 0.5: **(" + ", ".join(f"{v:.3f}" for v in p) + ")**" in all_text(at)
    assert p[3] > 0.95  # sharper than at temperature 1


def test_own_text_and_bad_text(open_page):
    at = open_page(P)
    at.text_area(key=f"{P}.text").input("abcabcabd").run()
    assert metrics(at)["Vocabulary"] == "{a, b, c, d}"
    at.text_area(key=f"{P}.text").input("x").run()
    assert not at.exception and any("at least two" in e.value for e in at.error)
    at.text_area(key=f"{P}.text").input("ab\x00cd").run()
    assert any("control characters" in e.value for e in at.error)
    at.text_input(key=f"{P}.scores").input("1, two").run()
    assert any("not a number" in e.value for e in at.error)


def test_sample_is_shown_as_text_not_markup(open_page):
    at = open_page(P)
    at.text_area(key=f"{P}.text").input("<b>hi</b>").run()
    assert not at.exception
    assert "<" in at.code[0].value  # shown as text in a code block
    assert not any("<b>" in m.value for m in at.markdown)  # the user's markup never reaches markdown
