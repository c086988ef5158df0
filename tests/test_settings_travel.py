"""Each page remembers its settings for the visit: a lesson link (which carries no settings) brings them back, and
a link that names settings (a shared link, the browser's Back / Forward) wins over what was remembered."""


def go(at, page: str, **query):
    at.query_params.clear()
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(f"app_pages/{page}.py")
    return at.run()


def test_settings_come_back_when_the_visitor_returns_by_a_lesson_link(open_page):
    at = open_page("scalar")
    at.slider(key="scalar.w_h").set_value(1.5).run()
    assert at.query_params["wh"] == "1.5"
    go(at, "vector")
    at.slider(key="vector.radius").set_value(1.4).run()
    go(at, "scalar")
    assert at.slider(key="scalar.w_h").value == 1.5 and at.query_params["wh"] == "1.5"
    go(at, "vector")
    assert at.slider(key="vector.radius").value == 1.4 and not at.exception


def test_a_link_that_names_settings_wins_over_what_was_remembered(open_page):
    at = open_page("scalar")
    at.slider(key="scalar.w_h").set_value(1.5).run()
    at.slider(key="scalar.b").set_value(0.5).run()
    go(at, "vector")
    go(at, "scalar", wh="2")  # e.g. the browser's Back to an address that set w_h = 2 and left b at its default
    assert at.slider(key="scalar.w_h").value == 2.0 and at.slider(key="scalar.b").value == 0.0


def test_the_link_to_this_setup_carries_the_settings(open_page):
    at = open_page("scalar", wh="2", classroom="1")
    assert any("wh=2" in c.value and "classroom=1" in c.value for c in at.code)
