"""ui/reruns.py: which rerun requests are a page's left behind (the browser test is in test_browser_lecture.py)."""
import types

from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime.app_session import AppSession

from ui import reruns


def request(page: str, fragment: str = "") -> ClientState:
    return ClientState(page_script_hash=page, fragment_id=fragment)


def test_a_fragment_rerun_for_the_page_just_left_is_stale_and_the_new_pages_own_is_not():
    session = types.SimpleNamespace()
    assert not reruns.stale(session, request("scalar", "body"), now=0.0)  # nothing switched yet
    assert not reruns.stale(session, request("vector"), now=10.0)  # the lesson link: a whole-page request
    assert reruns.stale(session, request("scalar", "body"), now=10.01)  # the box on the page just left
    assert not reruns.stale(session, request("vector", "body"), now=10.5)  # the new page's own
    assert not reruns.stale(session, request("scalar", "body"), now=10.0 + reruns.WINDOW_S)  # long after: runs
    assert not reruns.stale(session, None, now=11.0)  # a rerun with the client state as it was


def test_a_fragment_rerun_for_a_page_the_server_has_left_is_stale():
    """Ask the class switches the projector to the Class page on the server (st.switch_page): no request names it, and
    a slider's frames asked for on the lesson page just before ran their fragment on the Class page (blank after)."""
    session = types.SimpleNamespace(_pages_manager=types.SimpleNamespace(current_page_script_hash="scalar"))
    assert not reruns.stale(session, request(""), now=0.0)  # the lesson page, by its address
    assert not reruns.stale(session, request("scalar", "scrub"), now=5.0)  # its frames asked for: runs
    session._pages_manager.current_page_script_hash = "class_room"  # Ask the class: the server switches
    assert reruns.stale(session, request("scalar", "scrub"), now=5.1)  # the ask sent just before: dropped
    assert reruns.stale(session, request("scalar", "scrub"), now=60.0)  # however late
    assert not reruns.stale(session, request("class_room", "votes"), now=5.2)  # the Class page's own
    assert not reruns.stale(types.SimpleNamespace(_pages_manager=types.SimpleNamespace(current_page_script_hash="")),
                            request("scalar", "scrub"), now=0.0)  # no page run yet: nothing to compare


def test_a_visit_by_address_names_no_hash_and_drops_nothing():
    session = types.SimpleNamespace()
    assert not reruns.stale(session, request(""), now=0.0)
    assert not reruns.stale(session, request("scalar", "body"), now=0.1)


def test_install_wraps_the_sessions_handler_once():
    reruns.install()
    handler = AppSession._handle_rerun_script_request
    reruns.install()
    assert AppSession._handle_rerun_script_request is handler and handler._rnnviz


def test_the_patched_method_is_there_with_the_signature_the_wrapper_calls():
    """ui/reruns.py wraps a private method of Streamlit's; requirements pin the minor release it was written for.
    A release that renames it, or changes what it takes, fails here instead of silently serving stale reruns."""
    import inspect
    from importlib.metadata import version

    from tests.conftest import ROOT

    pin = next(line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()
               if line.startswith("streamlit"))
    assert pin == "streamlit~=1.67.0" and version("streamlit").startswith("1.67.")
    original = inspect.unwrap(AppSession._handle_rerun_script_request)
    assert list(inspect.signature(original).parameters) == ["self", "client_state"]
    assert "fragment_id" in ClientState.DESCRIPTOR.fields_by_name  # what stale() reads of a request
    from streamlit.runtime.pages_manager import PagesManager  # and of the session's pages manager
    assert isinstance(PagesManager.current_page_script_hash, property)
    assert "_pages_manager" in inspect.getsource(AppSession.__init__)
