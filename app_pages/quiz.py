"""Quiz: the concept quiz, run in the class room before the lecture and again after it; PageDown asks the next item.
The class's normalized gain g = (post − pre) / (1 − pre) (Hake 1998), per item and overall, with the misconceptions
that persisted, on the page and as a CSV."""
import streamlit as st

from rnnviz.rooms.room import RoomError
from rnnviz.rooms.store import default_store
from ui import rooms as R
from ui.keys import step_keys
from ui.limits import fragment
from ui.questions.base import plain
from ui.quiz import room as Z
from ui.quiz.items import ITEMS
from ui.widgets import table

P, ss, store = "quiz", st.session_state, default_store()


@fragment(run_every=R.REFRESH_S)
def count(code: str) -> None:
    try:
        view = store.view(code)
    except RoomError as e:
        st.warning(e.message, icon=":material/info:")
        return
    st.metric("Answers to this item", f"{view.answered} of {view.students}")


def ask(code: str, token: str, rnd: str, k: int) -> None:
    store.ask(code, token, Z.question(k, rnd))
    ss[f"{P}.at.{rnd}"] = k


st.title("Concept quiz: what the class learned")
st.markdown(f"{len(ITEMS)} questions on the lecture's ideas, each wrong option a misconception the notes warn about. "
            "Run it in the room **before** the lecture and again **after**; the page reports the class's normalized "
            "gain g = (after − before) / (100 % − before), per item and overall. PageDown asks the next item.")
if R.KEY_CODE not in ss:
    st.button("Open a room for the class's phones", key=f"{P}.open", type="primary", on_click=R.act,
              args=(lambda: ss.update(zip((R.KEY_CODE, R.KEY_TOKEN), store.open_room())),))
    R.show_message()
    st.stop()
code, token = ss[R.KEY_CODE], ss[R.KEY_TOKEN]
st.markdown(f"Room **{code}** · students join at `{R.join_url(st.context.url, code)}`")
rnd = st.segmented_control("Round", list(Z.ROUNDS), key=f"{P}.round", default="pre", format_func=Z.ROUNDS.get,
                           required=True)
at = ss.get(f"{P}.at.{rnd}", -1)
done = at >= len(ITEMS) - 1
label = "Ask the first item" if at < 0 else ("All items asked" if done else f"Next item ({at + 2} of {len(ITEMS)})")
st.button(label, key=f"{P}.next", type="primary", icon=":material/chevron_right:", disabled=done, on_click=R.act,
          args=(ask, code, token, rnd, at + 1))
R.show_message()
step_keys(P)
if at >= 0:
    st.markdown(f"**Item {at + 1} of {len(ITEMS)}**, {Z.ROUNDS[rnd]}: {plain(ITEMS[at].prompt)}")
    count(code)

try:
    rows = Z.report(Z.gain(Z.answers(store.export(code, token))))
except RoomError as e:
    st.warning(e.message, icon=":material/info:")
    st.stop()
overall = rows[-1]
st.subheader("The class's gain")
if overall["answers_pre"] and overall["answers_post"]:
    st.markdown(f"Before: **{Z.pct(overall['pre'])}** right · after: **{Z.pct(overall['post'])}** · normalized gain "
                f"**g = {Z.g_text(overall['g'])}** (over the items answered in both rounds).")
else:
    st.caption("The gain appears once items have answers in both rounds.")
table(Z.shown(rows))
st.download_button("The gain per item (CSV)", Z.csv_bytes(rows), f"quiz-{code}.csv", "text/csv", key=f"{P}.csv")
