"""Findings of the lecture-hall issue that show on a page as a whole: what classroom mode keeps of each intro."""
import pytest

from tests.conftest import all_text


@pytest.mark.parametrize("page,first,rest", [
    ("scalar", "One hidden unit, one number of memory.", "Flood"),
    ("gradients", "The gradient that reaches a state k steps back is a product of k step Jacobians.", "Vanish")])
def test_projector_mode_keeps_a_one_line_intro(open_page, page, first, rest):
    """The issue: projector mode hid every page's intro."""
    text = all_text(open_page(page, classroom="1"))
    assert first in text and f"**{rest}**" not in text.split(first)[1][:200]


def test_upload_caption_names_the_real_class_and_the_real_limit():
    """The issue: the caption named rnnviz.model.CharRNN (it is rnnviz.charlm.model.CharRNN); 21 MB vs 20 MiB."""
    import importlib

    from rnnviz.charlm.checkpoint import MAX_FILE_BYTES
    from ui.upload import MODEL_CLASS, UPLOAD_CAPTION

    pytest.importorskip("torch")
    module, name = MODEL_CLASS.rsplit(".", 1)
    assert isinstance(getattr(importlib.import_module(module), name), type) and f"`{MODEL_CLASS}`" in UPLOAD_CAPTION
    assert MAX_FILE_BYTES == 20 * 2**20 and "at most 20 MiB" in UPLOAD_CAPTION


def test_train_with_zero_steps_says_so(open_page):
    """The issue: Training steps = 0 then Train still said 'Untrained', as if Train had not been pressed."""
    at = open_page("hello")
    assert "**Untrained**" in all_text(at)
    at.slider(key="hello.steps").set_value(0).run()
    at.button(key="hello.train").click().run()
    text = all_text(at)
    assert not at.exception and "**Trained for 0 steps**" in text and "**Untrained**" not in text


def test_notation_is_said_where_it_drifts():
    """The issue: w_h / W_h / W_hh / W_ih and u1 / h1 / unit 1 / h[0] drift between pages with no word."""
    from ui.lessons.gates import shape_text
    from ui.lessons.gradients import SCALE_NOTE
    from ui.widgets import NOTATION

    assert all(s in NOTATION for s in ("wₕ", "Wₕ", "Wₕₕ", "W_ih", "u1", "h[0]", "on every page", "h₁"))
    assert "the cell page's Wₓ and Wₕ" in shape_text("lstm", 3, 4) and "weight_hh) for the cell page's Wₕ" in SCALE_NOTE
