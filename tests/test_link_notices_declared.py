"""Controls declared once (ui.controls) on the vector, states and hello pages: a link's bad value is named by the label
the page draws, settings whose labels no page registered before included (a notice named them by the link's key)."""
import importlib

import pytest

from ui.urlstate import CONTROL_LABELS

WIDGETS = ("slider", "select_slider", "number_input", "text_input", "text_area", "radio", "selectbox", "toggle",
           "segmented_control")


@pytest.mark.parametrize("page,query,name", [
    ("vector", {"in": "vectors", "vec": "1 " * 5000}, "vectors"),  # longer than its box takes
    ("states", {"view": "params", "task": "classifier", "K": "0"}, "K"),
    ("hello", {"trained": "maybe"}, "trained"),
    ("hello", {"start": "he"}, "start")])
def test_a_bad_link_value_is_named_by_its_declared_label(open_page, page, query, name):
    controls = importlib.import_module(f"ui.lessons.{page}").CONTROLS
    at = open_page(page, **query)
    notice = next(i.value for i in at.info if "not valid here" in i.value)
    assert f"**{controls[name].label}** (`{controls[name].url}` in the link)" in notice and not at.exception
    drawn = {w.key: w.label for kind in WIDGETS for w in getattr(at, kind) if w.key.startswith(f"{page}.")}
    assert drawn and all(CONTROL_LABELS[k] == v == controls[k.split(".", 1)[1]].label
                         for k, v in drawn.items() if k in CONTROL_LABELS), drawn


def test_a_view_publishes_only_its_own_controls():
    """The states page's views each publish their own part of the link (they rerun on their own), in declared
    order; together they are the whole link."""
    from ui.lessons.states import BIDIR, CALC, PADDING, PARAMS

    assert [p.url for p in PADDING] == ["len", "torch"] and [p.url for p in BIDIR] == ["torchbi"]
    assert [p.url for p in CALC] == ["task", "cell", "d", "H", "V", "K", "emb", "L", "bi"]
    assert [p.url for p in PARAMS] == ["view"] + [p.url for p in PADDING + BIDIR + CALC]
