"""Live charts: Plotly charts the browser updates in place, follows through a slider's drag, and steps ahead of the
server. Three Streamlit components (st.components.v2, no iframe), each sending UTF-8 JSON every run:

Server -> browser
- rnnviz_chart, keyed by the chart's key (chart.py live_chart): {figure, config, alt, src, digest}: the figure as
  st.plotly_chart sends it, `src` where plotly.js is served, `digest` its name (below). A stepped chart (steps.py)
  sends {figure, config, alt, src, steps: {stepper, values: 1..T, alts, digests, traces, data: [{trace, attr,
  frames}], layout: [{attr, frames}]}}: step k is `figure` with frame k of each attribute, its figure's digest
  digests[k]; the same bytes at every step of a setting, or step t and its neighbours until the setting's steps are
  computed in the background.
- rnnviz_step, "stepmark-<stepper>" (chart.py step_mark): {stepper, t, n}: the step this run drew; n new each run.
- rnnviz_scrub, "scrub.<page>" (scrub.py scrubs): {pending, held, poll, wanted: [slider], items: [{slider, chart, ids,
  sets}]}: held: sets at hand wait for the next poll (a page's or its part's run carries at most 64 kB of new sets,
  the component's own run 512 kB); ids names the item's frame sets at hand, in the order they were computed
  (rnnviz/live/schedule.py: a `whole` chart's own figures near the value, then the whole range coarse, then windows of
  every notch, the thumb's first); sets = {id: frames} holds only those not sent to this visitor before (the browser
  keeps every set it was sent). frames = rnnviz.live.frames.figure_frames at the set's notches (for `alone` sets,
  words with no chart: values, traces 0, data and layout empty, hold null, and the texts' parts): {values, traces,
  data, layout, hold: null or {axis: [[lo, hi] per frame]}, and `digests` (one per frame, when the frames are the
  chart's own figures) or `start` (a figure of their own, drawn whole as a drag begins), `keys` (own figures for keys
  only), `words` ({container key: rnnviz/live/words.py packed pieces}: the texts beside the chart at each frame), and
  where the frames carry them (rnnviz/live/words.py followed) `bars` ({container key: packed widths of its data-bar
  elements}), `marks` ({text view key: [character outlined per frame]}), `html` ({text view key: [its markup, or null,
  per frame]}), `stale` ([container keys greyed through a drag]); `alone`: words with no chart (`chart` is then a
  container's key)}.
Browser -> server: only the scrub component asks, each ask a rerun of the scrub fragment alone:
- want = "<slider>": the pointer reached a slider without frames, or the keyboard's focus rested on it 0.4 s: its
  frames, computed in the background now and for every later setting (a visitor who never drags costs nothing), within
  the budgets of the visitor and of its address (schedule.Budgets, scrub.VISITORS and ADDRESSES).
- want = "<slider>@<value>": a drag is on coarse frames (or none) there: the window around the thumb goes first.
- want = "!": a set named in ids is not in the page (a payload lost): every set is sent again.
- ready = n: frames are pending: look again after 150 + 100 n ms (40 times at most), or 150 ms while sets are held.
A chart or a step mark asks nothing: the page's own reruns (a release, a key, a press) send the next payload.

A digest names a figure: blake2b (8 bytes, hex) of the figure's JSON text as the chart payload carries it
(rnnviz.live.frames.figure_digest). The chart element keeps the digest of what it shows; a key on a scrubbed slider
draws frame k at once, naming it digests[k], and the rerun's payload with that digest is then not drawn again. A key
on a slider whose words follow alone writes its notch's frame (that notch's exactly) over the page's texts: the rerun
then rewrites only what changed from the old value, the same words.

The scripts are ES modules that import each other: chart.js (the chart component) -> draw.js (one element per key,
Plotly.react one drawing at a time, charts out of view put off) -> look.js (template, full screen, heatmap text);
chart.js -> stepped.js (stepped charts; its `mark` is the step component) -> draw.js, send.js (work done just after
the page's next websocket message); scrub.js (the scrub component: drag and key frames) -> draw.js, send.js,
words.js (the words that follow a drag).
Streamlit imports a component's inline `js` from a blob: URL, against which no relative import resolves, and
file-backed `js` needs an installed package's manifest (the app is not one); so each component's `js` is a stub
(assets.component_js) that imports its module from app/static/live-<digest>/, where assets.provide copies them with
plotly.js. One instance of each module per page: they share state by import, not through window. What belongs to one
chart (the text and digest it shows) stays on its element.
"""
