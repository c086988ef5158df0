"""The vector-cell page: six moves, heatmap, torch agreement, inputs, extremes."""
import numpy as np

from rnnviz.lessons.vector import VectorSetup, encode_word, generate, moves, run
from tests.conftest import all_text

P = "vector"


def test_defaults_show_step_one_of_hello(open_page):
    at = open_page(P)
    assert not at.exception
    text = all_text(at)
    assert "Step 1 of 5" in text and "'h'" in text
    # the numbers table equals the package's own computation for the default setup
    w = generate(4, 3, 4, 0, 0.9)
    setup = VectorSetup(encode_word("hello", list("helo")), w["W_x"], w["W_h"], w["b"], w["W_y"], w["b_y"], np.zeros(3))
    m = moves(setup, run(setup), 1)
    shown = at.dataframe[0].value["h_t = tanh(z)"].to_numpy()
    np.testing.assert_allclose(shown, m.h, atol=5e-5)  # shown to 4 decimals


def test_next_moves_a_step_and_torch_agrees(open_page):
    at = open_page(P)
    at.button(key=f"{P}.next").click().run()
    assert "Step 2 of 5" in all_text(at) and "'e'" in all_text(at)
    at.toggle(key=f"{P}.torch").set_value(True).run()
    msg = at.success[0].value
    assert "torch.nn.RNN" in msg
    assert float(msg.split("=")[-1].strip(". ")) < 1e-12


def test_typed_vectors_and_bad_vectors(open_page):
    at = open_page(P)
    at.radio(key=f"{P}.mode").set_value("vectors").run()
    at.text_area(key=f"{P}.vectors").input("1 2\n3 4\n5 6").run()
    assert not at.exception and "Step 1 of 3" in all_text(at)
    at.text_area(key=f"{P}.vectors").input("1 2\n3").run()
    assert not at.exception and any("different lengths" in e.value for e in at.error)
    at.text_area(key=f"{P}.vectors").input("1 x").run()
    assert any("not a number" in e.value for e in at.error)


def test_word_outside_vocabulary_is_explained(open_page):
    at = open_page(P)
    at.text_input(key=f"{P}.word").input("help").run()
    assert not at.exception and any("'p'" in e.value for e in at.error)


def test_extremes_and_edit_mode(open_page):
    at = open_page(P)
    at.slider(key=f"{P}.H").set_value(64)
    at.slider(key=f"{P}.radius").set_value(3.0)
    at.text_input(key=f"{P}.word").input("hello" * 40).run()
    assert not at.exception and "Step 1 of 200" in all_text(at)
    assert "nan" not in all_text(at).lower()
    at.radio(key=f"{P}.wmode").set_value("edit").run()
    assert not at.exception and any("up to size 16" in w.value for w in at.warning)


def test_link_sets_hidden_size_and_radius(open_page):
    at = open_page(P, H="5", rho="2.0", t="3")
    assert at.slider(key=f"{P}.H").value == 5 and at.slider(key=f"{P}.radius").value == 2.0
    assert "Step 3 of 5" in all_text(at)
    at = open_page(P, H="500")
    assert not at.exception and at.slider(key=f"{P}.H").value == 3 and any("`H`" in i.value for i in at.info)
