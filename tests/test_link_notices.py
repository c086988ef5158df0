"""A link with a bad value names the control a visitor sees, not the link's key (the issue: "value for wh")."""

import pytest

from ui.urlstate import CONTROL_LABELS

WIDGETS = ("slider", "select_slider", "number_input", "text_input", "radio", "selectbox", "toggle",
           "segmented_control")


@pytest.mark.parametrize("page,query,label", [
    ("scalar", {"wh": "0.33"}, "wₕ, recurrent weight"),
    ("gradients", {"T": "nan", "view": "clip"}, "Sequence length T"),
    ("states", {"L": "99", "view": "params"}, "Layers")])
def test_notice_names_the_control_and_labels_match_the_page(open_page, page, query, label):
    at = open_page(page, **query)
    notice = next(i.value for i in at.info if "not valid here" in i.value)
    assert f"**{label}** (`{next(iter(query))}` in the link)" in notice
    drawn = {w.key: w.label for kind in WIDGETS for w in getattr(at, kind) if w.key in CONTROL_LABELS}
    assert drawn and all(CONTROL_LABELS[k] == v for k, v in drawn.items()), drawn  # the registry says what is shown


def test_every_registered_label_is_a_declared_controls_label():
    """A notice names a control by the label its one declaration (ui.controls) gives the widget: nothing registers a
    label beside a declaration, where the two could drift apart."""
    import ui.lessons  # noqa: F401  (registers every page's labels)
    from ui.controls import DECLARED

    for m in ("scalar", "vector", "gradients", "gates", "recurrences", "states", "hello"):
        __import__(f"ui.lessons.{m}")
    __import__("ui.sample.controls").sample.controls.prime_only()
    assert len(CONTROL_LABELS) > 60
    assert {k: v for k, v in CONTROL_LABELS.items() if k not in DECLARED or DECLARED[k].label != v} == {}


def test_a_declared_control_draws_the_label_a_notice_names(open_page):
    """A control declared once (ui.controls) draws its declared label, the one a notice about a link names."""
    from ui.lessons.scalar import CONTROLS

    at = open_page("scalar")
    for name in ("w_x", "w_h", "b", "h0"):
        assert at.slider(key=CONTROLS.key(name)).label == CONTROL_LABELS[CONTROLS.key(name)] == CONTROLS[name].label
    at = open_page("scalar", wh="99")
    assert f"**{CONTROLS['w_h'].label}** (`wh` in the link)" in " ".join(i.value for i in at.info)


def test_the_notice_goes_with_the_settings_the_visitor_moves(open_page):
    """The notice stays while the page shows the default it fell back to, and names only the settings not yet moved;
    it once stayed up after the setting was moved (drawn above the part of the page the setting reruns)."""
    at = open_page("hello", temp="4.9", steps="15")
    notice = next(i.value for i in at.info if "not valid here" in i.value)
    assert "**Temperature**" in notice and "**Training steps**" in notice
    at.select_slider(key="hello.temp").set_value(0.5).run()
    notice = " ".join(i.value for i in at.info)
    assert "**Temperature**" not in notice and "**Training steps**" in notice and "not valid here" in notice
    at.slider(key="hello.steps").set_value(200).run()
    assert not any("not valid here" in i.value for i in at.info) and not at.exception
    assert at.query_params["temp"] in ("0.5", ["0.5"]) and at.query_params["steps"] in ("200", ["200"])
