"""rnnviz: step recurrent networks by hand, in the browser. Run with `streamlit run app.py`."""
import time
from pathlib import Path

# pandas whole before any session builds a figure: plotly peeks at sys.modules["pandas"] and, when a class arrives
# at once on a fresh server, can catch it half-imported by another session's thread (AttributeError: no 'Series').
import pandas  # noqa: F401
import streamlit as st

from rnnviz.figures.base import use_house_template
from ui.deck.draft import save_step
from ui.deck.run import deck_bar
from ui.history import one_entry_per_page
from ui.keys import step_keys
from ui.lessons.registry import LESSONS, lesson
from ui.limits import fragment, pace_reruns
from ui.live.scrub import warm
from ui.loaders import freeze_heap, one_blas_thread, record_run
from ui.path import TOP_ROW_CSS, pages, prev_next
from ui.phones import start_phones
from ui.reruns import install as drop_stale_reruns
from ui.sample.ahead import warm_up
from ui.theme import apply as apply_contrast
from ui.upload import guard_uploads
from ui.urlstate import classroom, link_control
from ui.widgets import CLASSROOM_CSS, LAYOUT_CSS, legend

FAVICON = str(Path(__file__).with_name("ui") / "favicon.png")  # ours, served by the app: a lecture hall may be offline
pace_reruns()  # each visitor's share of the server's time (ui/limits.py)
drop_stale_reruns()  # once per process: a fragment rerun for a page the visitor has left (ui/reruns.py)
_t0 = time.perf_counter()
use_house_template()
one_blas_thread()  # once per process (and once more after torch)
start_phones()  # once per process: the class rooms' phone page and its pushes (ui/phones.py)

voting = "room" in st.query_params  # a phone in a class room (the Class page): no sidebar to wander off by
st.set_page_config(page_title="rnnviz: recurrent networks, step by step", page_icon=FAVICON, layout="wide",
                   initial_sidebar_state="collapsed" if classroom() or voting else "auto")
nav = st.navigation(pages(), position="hidden" if classroom() or voting else "sidebar")
freeze_heap()  # the first run only: the loaded modules, before any page's objects exist
guard_uploads()  # files PUT into a session that no file box holds are removed (ui/upload.py)
st.html(LAYOUT_CSS)  # static CSS of our own (no visitor text), as below
apply_contrast()  # ?contrast=high: black text, darker blue (ui/theme.py)
if classroom():
    st.html(CLASSROOM_CSS + TOP_ROW_CSS)  # static CSS of our own (no visitor text)
    link_slot = prev_next(nav.url_path, "top", voting)  # on a projector, between the lesson links at the top
    # (at the foot it was 2,500 px down)
elif voting:
    link_slot = None
else:
    with st.sidebar:
        legend()
        st.segmented_control("Chart downloads", ["png", "svg"], key="app.image_format", default="png",
                             format_func=str.upper, help="The camera button on every chart saves this format.")
        with st.expander("What is this?"):
            st.markdown(
                "rnnviz runs small recurrent networks in front of you, one step at a time. Every number on a "
                "page is computed live from the weights you set, and checked in tests against PyTorch. "
                "Add `?classroom=1` to a link for projector-sized type, `?contrast=high` for a washed-out projector."
            )
        link_slot = st.container()
if lesson(nav.url_path):
    deck_bar(nav.url_path)  # a deck's step, Next and its question, when the link names a deck (ui/deck/run.py)
nav.run()
st.divider()
foot_middle = prev_next(nav.url_path, "foot", voting)
with foot_middle:
    one_entry_per_page()  # a slider's notches replace the page's history entry: Back leaves the page (ui/history.py)
    step_keys("app")  # PageDown / → step, scroll, then open the next lesson (draws nothing; ui/keys.py)


@fragment
def setup_links(url_path: str) -> None:
    """The link to this setup and, on a projector, Ask the class: a fragment, so that opening the link's popover
    reruns these alone and shows the settings as they are now (most settings rerun only their own part of a page,
    never this foot). A lesson link clicked with the popover open closes it, and its rerun reaches the server just
    after the page switch: ui/reruns.py drops it."""
    with st.container(horizontal=True, gap="small"):  # one row: on a projector it sits at the top of the page
        link_control()
        if classroom():  # the Class page with this page's question and setup (ui/rooms.py)
            from ui.rooms import ask_link
            ask_link(url_path)


if lesson(nav.url_path):  # a lesson page (the welcome page has no settings to link to, the Class page none either: its
    # address holds a phone's voter token; nor the decks' pages); after the page has run, so the link carries
    with link_slot or foot_middle:  # this run's settings
        setup_links(nav.url_path)
    with foot_middle if classroom() else link_slot or foot_middle:  # on a projector the top row holds the link and
        save_step(nav.url_path)  # Ask the class alone: the deck's draft, this setup as its next step (ui/deck/draft.py)
record_run(nav.url_path, time.perf_counter() - _t0)
warm_up()  # once per server: the sampling page's heaviest first look, computed while nobody waits for it
warm([ls.scrubbed for ls in LESSONS if ls.scrubbed])  # once per server: the frames of each page's sliders as it opens
