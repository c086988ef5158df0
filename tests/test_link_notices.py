"""A link with a bad value names the control a visitor sees, not the link's key (the issue: "value for wh")."""
import pytest

from ui.urlstate import CONTROL_LABELS

WIDGETS = ("slider", "select_slider", "number_input", "text_input", "radio", "selectbox", "toggle",
           "segmented_control")


@pytest.mark.parametrize("page,query,label", [
    ("scalar", {"wh": "0.33"}, "wₕ, recurrent weight"),
    ("gradients", {"T": "nan", "view": "clip"}, "Sequence length T"),
    ("states", {"L": "99", "view": "params"}, "Layers"),
    ("sample", {"temp": "2.9"}, "Temperature")])
def test_notice_names_the_control_and_labels_match_the_page(open_page, page, query, label):
    at = open_page(page, **query)
    notice = next(i.value for i in at.info if "not valid here" in i.value)
    assert f"**{label}** (`{next(iter(query))}` in the link)" in notice
    drawn = {w.key: w.label for kind in WIDGETS for w in getattr(at, kind) if w.key in CONTROL_LABELS}
    assert drawn and all(CONTROL_LABELS[k] == v for k, v in drawn.items()), drawn  # the registry says what is shown
