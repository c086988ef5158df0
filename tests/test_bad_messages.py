"""A widget state that is not JSON is refused without a traceback in the log (ui/bad_messages.py; issue 49,
finding 8): the message Streamlit logs for it is dropped, counted once a minute, and other errors keep theirs."""
import io
import logging

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.runtime.state.common import unpack_widget_state_value


def raised(value: str) -> BaseException:
    try:
        unpack_widget_state_value(WidgetState(id="w", json_value=value))
    except Exception as e:
        return e
    raise AssertionError("parsed")


@pytest.fixture
def log():
    """What Streamlit's logger for an uncaught script exception writes, with the app's modules imported."""
    from streamlit.error_util import _LOGGER

    import ui.limits  # noqa: F401  (app.py imports it first; it puts the filter in place)

    out = io.StringIO()
    handler = logging.StreamHandler(out)
    _LOGGER.addHandler(handler)
    yield _LOGGER, out
    _LOGGER.removeHandler(handler)


def test_a_deeply_nested_or_malformed_json_state_logs_no_traceback(log):
    logger, out = log
    for value in ("[" * 100_000, "{not json"):
        for _ in range(50):
            logger.error("Uncaught app execution", exc_info=raised(value))
    assert "Traceback" not in out.getvalue() and len(out.getvalue()) < 200
    try:
        {}["a bug of ours"]
    except KeyError as e:
        logger.error("Uncaught app execution", exc_info=e)
    assert "Traceback" in out.getvalue() and "a bug of ours" in out.getvalue()


def test_the_refusals_are_counted_once_a_minute():
    from ui.bad_messages import SUMMARY_EVERY_S, BadStateFilter

    now = [0.0]
    f = BadStateFilter(clock=lambda: now[0])

    def record():
        return logging.LogRecord("streamlit.error_util", logging.ERROR, __file__, 1, "Uncaught app execution", (),
                                 (RecursionError, (e := raised("[" * 100_000)), e.__traceback__))
    assert not any(f.filter(record()) for _ in range(30))
    now[0] += SUMMARY_EVERY_S
    r = record()
    assert f.filter(r) and r.exc_info is None and r.getMessage().startswith("refused 31 widget state")


def test_our_own_json_errors_keep_their_traceback():
    import json

    from ui.bad_messages import BadStateFilter

    try:
        json.loads("{not json")
    except ValueError as e:
        rec = logging.LogRecord("streamlit.error_util", logging.ERROR, __file__, 1, "x", (), (type(e), e, None))
    assert BadStateFilter().filter(rec) and rec.exc_info
