"""The sampling page's app side (its numbers are rnnviz.lessons.sample's and rnnviz.lessons.clamp's), by what each
module does: `words` (sentences, captions, titles), `links` (link value parsers), `controls` (the page's link
parameters, control options and session keys), `shading` (the text's colours with their hover texts), `cache` (what
is kept per server or per session), `ahead` (samples and analyses computed before anyone asks) and `view`
(Streamlit parts of the page that are not its outline)."""
from typing import MutableMapping

P = "sample"  # the page's prefix of widget and session keys
Session = MutableMapping  # st.session_state, or a dict in a test
