"""The gates page: LSTM and GRU stepping, the forget-bias trick, shapes, the valve experiment."""
from tests.conftest import all_text

P = "gates"


def test_defaults_lstm(open_page):
    at = open_page(P)
    assert not at.exception
    text = all_text(at)
    assert "σ(1) = **0.731**" in text  # the notes' forget-bias number
    assert "**12 × 7**" in text and "**108**" in text  # 4H x (H + d) for H = 3, d = 4; torch's parameter count
    assert list(at.dataframe[0].value.columns[:4]) == ["f", "i", "g", "o"]


def test_valve_keeps_first_input_for_400_steps(open_page):
    at = open_page(P)
    tab = at.table[0].value
    assert list(tab.iloc[0][1:]) == ["0.7616", "0.7616", "0.7616"]  # LSTM cell state at t = 1, 10, 400
    assert float(tab.iloc[1, 3]) < 1e-100  # the vanilla unit has lost it


def test_gru_and_forget_bias(open_page):
    at = open_page(P)
    at.segmented_control(key=f"{P}.cell").set_value("gru").run()
    assert not at.exception
    assert list(at.dataframe[0].value.columns[:3]) == ["r", "z", "n"]
    assert "**9 × 7**" in all_text(at)
    at.segmented_control(key=f"{P}.cell").set_value("lstm").run()
    at.slider(key=f"{P}.bf").set_value(2.0).run()
    assert "σ(2) = **0.881**" in all_text(at)


def test_extremes(open_page):
    at = open_page(P)
    at.slider(key=f"{P}.H").set_value(64)
    at.slider(key=f"{P}.radius").set_value(3.0)
    at.slider(key=f"{P}.bf").set_value(-5.0)
    at.slider(key=f"{P}.T").set_value(2000)
    at.text_input(key=f"{P}.word").input("hello" * 40).run()
    assert not at.exception and "nan" not in all_text(at).lower()
    at.text_input(key=f"{P}.vocab").input("").run()
    assert not at.exception and any("empty" in e.value for e in at.error)
