"""High contrast for a washed-out projector: `?contrast=high` turns it on (`?contrast=normal` off), and like
classroom mode it stays on for the session and every page's link carries it. Black text on white, Streamlit's grey
captions and the charts' axis text black too (7:1 and more; the normal theme's chart text is 6.3:1, ui/live/look.js),
stronger borders and grid lines, and a darker blue."""
from __future__ import annotations

import streamlit as st

LEVELS = ("normal", "high")
INK = "#000000"  # text, in every place the normal theme writes grey
BLUE = "#005A8C"  # the primary colour (links, sliders, the Next button): 7.4:1 on white; the normal one is 5.2:1
# Plotly draws its text as SVG with inline fill: only an !important rule wins over it. Axis ticks and titles, the
# legend, the chart's title and its notes: not the numbers written into heatmap cells, which are black or white by
# the cell's shade.
_CSS = f"""<style>  /* rnnviz-contrast */
[data-testid='stApp'], [data-testid='stMarkdownContainer'], [data-testid='stCaptionContainer'],
[data-testid^='stBaseButton-secondary'] kbd,
[data-testid='stCaptionContainer'] p, [data-testid='stWidgetLabel'] p, [data-testid='stPageLink'] p,
[data-testid='stSliderTickBar'] div, [data-testid='stSliderThumbValue'], [data-testid='stMetricLabel'] p,
[data-testid='stExpander'] summary p, [data-testid='stTooltipIcon'] svg {{color: {INK} !important;}}
.rnnviz-chart .xtick text, .rnnviz-chart .ytick text, .rnnviz-chart .g-xtitle text, .rnnviz-chart .g-ytitle text,
.rnnviz-chart [class*='g-x'][class*='title'] text, .rnnviz-chart [class*='g-y'][class*='title'] text,
.rnnviz-chart .legendtext, .rnnviz-chart .gtitle, .rnnviz-chart .annotation-text,
.rnnviz-chart .cbtitle text, .rnnviz-chart .cbaxis text {{fill: {INK} !important;}}
.rnnviz-chart .gridlayer path, .rnnviz-chart .zerolinelayer path {{stroke: #9a9a9a !important;}}
[data-testid='stMain'] a, [data-testid='stMarkdownContainer'] a {{color: {BLUE} !important;}}
[data-testid^='stBaseButton-primary'] {{background-color: {BLUE} !important; border-color: {BLUE} !important;}}
[data-testid^='stBaseButton-primary'] p, [data-testid^='stBaseButton-primary'] kbd {{color: #FFFFFF !important;}}
[data-testid='stMain'] input, [data-testid='stMain'] textarea, [data-testid='stMain'] [data-baseweb='select'] > div,
[data-testid^='stBaseButton-secondary'] {{border: 1px solid {INK} !important;}}
[data-testid='stSlider'] [role='slider'] {{background-color: {BLUE} !important;}}
</style>"""


# Both themes: Streamlit's faded grey (its text at 60 % opacity, #828180: 3.9:1) on captions and the buttons' key
# hints, at the charts' 6.3:1. And subscript letters (Wₕₕ, σₘₐₓ), which the page's font lacks: the fallback font draws
# them at a subscript's size under a subscript's size, unreadable from a lecture hall's back row; here they come from
# a font that has them, a sixth larger (a third larger read as full-size letters: Whh). Text only: KaTeX and code
# keep their own fonts.
_READABLE = """<style>  /* rnnviz-readable */
[data-testid='stCaptionContainer'], [data-testid^='stBaseButton'] kbd {
  color: #5c5f6e !important; opacity: 1 !important;
}
@font-face {font-family: 'rnnviz-sub'; unicode-range: U+2080-209C, U+1D62-1D6A;
  src: local('DejaVu Sans'), local('Noto Sans'), local('Segoe UI'), local('Arial Unicode MS'); size-adjust: 118%;}
[data-testid='stMarkdownContainer'] :is(p, li, td, th), [data-testid='stWidgetLabel'] p,
[data-testid='stCaptionContainer'] p, [data-testid='stSliderThumbValue'], [data-testid^='stBaseButton'] p,
[data-testid='stPageLink'] p, [data-testid='stMetricLabel'] p, [data-testid='stMain'] :is(h1, h2, h3) {
  font-family: 'rnnviz-sub', 'Source Sans', 'Source Sans Pro', sans-serif;
}
</style>"""


def high_contrast() -> bool:
    """True where the visitor asked for high contrast; `?contrast=` in a link sets it for the session, and every
    page's link carries it while it is on (as ui.urlstate.classroom does). A value it does not know leaves the link."""
    if "contrast" in st.query_params:
        level = st.query_params["contrast"]
        if level not in LEVELS:
            del st.query_params["contrast"]
            st.info("The link's value for `contrast` was not valid here (use high or normal), so the contrast is "
                    "normal.", icon="ℹ️")
            level = "normal"
        st.session_state["app.contrast"] = level
    elif st.session_state.get("app.contrast") == "high":
        st.query_params["contrast"] = "high"
    return st.session_state.get("app.contrast") == "high"


def apply() -> None:
    """Readable greys and subscripts on every page, and the high-contrast stylesheet where it is on (static CSS of
    our own: no visitor text)."""
    st.html(_READABLE + (_CSS if high_contrast() else ""))
