"""The using-the-states page: shapes, the padding trap, bidirectional, the parameter calculator."""
from tests.conftest import all_text

P = "states"


def metrics(at):
    return {m.label: (m.value, m.delta) for m in at.metric}


def test_defaults_and_shapes(open_page):
    at = open_page(P)
    assert not at.exception
    text = all_text(at)
    assert "[B, T, d] = [2, 5, 4]" in text and "[B, T, H] = [2, 5, 3]" in text and "[B, T, |V|] = [2, 5, 6]" in text
    assert metrics(at)["Total"][0] == "29,293,260"


def test_notes_presets(open_page):
    at = open_page(P)
    at.button(key=f"{P}.preset.gru").click().run()
    assert metrics(at)["Total"][0] == "88,836"
    at.button(key=f"{P}.preset.lm").click().run()
    m = metrics(at)
    assert m["Embedding"] == ("9,620,480", "9.6 M") and m["Recurrent cell"] == ("394,240", "0.39 M")
    assert m["Output layer"] == ("19,278,540", "19.3 M") and m["Total"] == ("29,293,260", "29.3 M")


def test_padding_trap_numbers(open_page):
    at = open_page(P)
    at.toggle(key=f"{P}.torch_pad").set_value(True).run()
    df = at.dataframe[-1].value
    assert df.loc[1, "max |difference|"] == 0  # the longest sequence has no padding
    assert (df["max |difference|"].iloc[1:] > 0.01).all()  # padded ones are read wrongly
    assert ((df["packed (torch), unit 1"] - df["h[length-1], unit 1"]).abs() < 1e-12).all()
    at.text_input(key=f"{P}.lengths").input("4, x").run()
    assert not at.exception and any("whole numbers" in e.value for e in at.error)


def test_calculator_controls(open_page):
    at = open_page(P)
    at.radio(key=f"{P}.cell").set_value("lstm").run()
    assert metrics(at)["Recurrent cell"][0] == f"{4 * (512 * 256 + 512 * 512 + 2 * 512):,}"
    at.radio(key=f"{P}.task").set_value("classifier").run()
    at.toggle(key=f"{P}.bi").set_value(True).run()
    assert not at.exception


def test_bidirectional_agrees_with_torch(open_page):
    at = open_page(P)
    at.toggle(key=f"{P}.torch_bi").set_value(True).run()
    cap = next(c.value for c in at.caption if "PyTorch on the same weights" in c.value)
    assert float(cap.split("to ")[-1].rstrip(".")) < 1e-12
