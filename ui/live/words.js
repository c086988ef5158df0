// The words that follow a drag (ui/live/scrub.py `words`): the texts beside a scrubbed chart, each in a keyed container
// (st-key-<key>), whose text pieces (rnnviz/live/words.py: bold runs, table cells, lines) a frame carries as the
// server wrote them. Each piece replaces the text of the page's own text node in the same place: the markdown's
// elements and their look stay, only their words change, and nothing is computed here. A text whose pieces do not
// line up with the page's nodes (another shape at that value) is greyed instead; the release's rerun draws it anew.
// A frame may also carry, per container: the widths of its bars (`bars`: its elements marked data-bar, in order), the
// character its text view outlines (`marks`: the span.sel of ui/textview.py's text) or the view's whole markup
// (`html`: the server's, escaped text only), or that it does not follow (`stale`: greyed through the drag). The text
// view's component keeps the markup it was sent: the release's rerun puts its own back where it differs.
const css = (key) => ".st-key-" + key.trim().replace(/[^a-zA-Z0-9_-]/g, "-");

// The non-blank text nodes of a keyed container, in document order (as rnnviz/live/words.py `pieces` lists them).
function textNodes(el) {
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT,
    { acceptNode: (n) => (n.nodeValue.trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP) });
  const out = [];
  while (walk.nextNode()) out.push(walk.currentNode);
  return out;
}

// The containers a set of frames writes to: each key its words, bars, marks and stale name.
export const keysOf = (f) => [...Object.keys(f.words || {}), ...Object.keys(f.bars || {}),
                              ...Object.keys(f.marks || {}), ...Object.keys(f.html || {}), ...(f.stale || [])];

const outlined = (root) => root.querySelector("span.sel");
// Where a container's text view is: in the shadow root of ui/textview.py's component (its styles are its own), or
// the container itself.
const viewOf = (el) => [el, ...el.querySelectorAll("*")].find((e) => e.shadowRoot)?.shadowRoot || el;

// The texts a drag may change: {key: {el, nodes, was, bars, barsWas, view, markWas, root, htmlWas}} for each
// container key on the page (root: the text view's element that holds its markup).
export function collect(keys) {
  const out = new Map();
  for (const key of new Set(keys)) {
    const el = document.querySelector(css(key));
    if (!el) continue;
    const nodes = textNodes(el), bars = [...el.querySelectorAll("[data-bar]")], view = viewOf(el);
    const root = view.querySelector(".tv-root");
    out.set(key, { el, nodes, was: nodes.map((n) => n.nodeValue), bars, barsWas: bars.map((b) => b.style.width),
                   view, markWas: outlined(view), root, htmlWas: root?.innerHTML });
  }
  return out;
}

// Frame k's pieces of one text: {pieces, vary, frames} (rnnviz/live/words.py packed) or {frames: [pieces per frame]}.
const piecesAt = (w, k) => {
  if (!w.pieces) return w.frames[k];
  const out = w.pieces.slice();
  w.vary.forEach((j, i) => { out[j] = w.frames[k][i]; });
  return out;
};

// The outline on one character of a text view (none: `span` null).
const outline = (root, span) => {
  const was = outlined(root);
  if (was === span) return;
  was?.classList.remove("sel");
  span?.classList.add("sel");
};

// Frame k's words, bars and outlines (f: a set of frames) written over the page's; a text of another shape is greyed.
export function write(texts, f, k, grey = true) {
  for (const [key, t] of texts) {
    const w = f.words?.[key], bars = f.bars?.[key], mark = f.marks?.[key], html = f.html?.[key]?.[k];
    const pieces = w && piecesAt(w, k), widths = bars && piecesAt(bars, k);
    const fits = (!w || (pieces && pieces.length === t.nodes.length))
      && (!bars || (widths && widths.length === t.bars.length)) && (!f.html?.[key] || (html && t.root))
      && !(f.stale || []).includes(key);
    if (!fits) {
      if (grey) t.el.style.opacity = "0.45";  // a shape of its own at this value: greyed until the release redraws it
      continue;
    }
    t.el.style.opacity = "";
    if (pieces) t.nodes.forEach((n, j) => { if (n.nodeValue !== pieces[j]) n.nodeValue = pieces[j]; });
    if (widths) t.bars.forEach((b, j) => { if (b.style.width !== widths[j]) b.style.width = widths[j]; });
    if (html && t.htmlShown !== html) {  // the outline stays on its character
      const at = outlined(t.view)?.dataset.i;
      t.root.innerHTML = html;
      t.root._html = html;  // the server's markup at that value: a run that sends the same leaves it drawn
      t.htmlShown = html;
      if (at !== undefined) outline(t.view, t.view.querySelector(`span[data-i="${at}"]`));
    }
    if (mark) outline(t.view, t.view.querySelector(`span[data-i="${mark[k]}"]`));
  }
}

// The drag is over: each text as the page had it (the rerun's elements change the nodes whose words changed), or,
// given the frames `f` and `k`, the released value's own words (a node whose words the rerun leaves as they were must
// show that value's already: the page's framework only writes what changed since its last run).
export function settle(texts, f = null, k = -1) {
  for (const t of texts.values()) {
    t.el.style.opacity = "";
    t.nodes.forEach((n, j) => { if (n.nodeValue !== t.was[j]) n.nodeValue = t.was[j]; });
    t.bars.forEach((b, j) => { if (b.style.width !== t.barsWas[j]) b.style.width = t.barsWas[j]; });
    if (t.htmlShown !== undefined) {  // the server's last markup (a run may have come during the drag)
      t.root.innerHTML = t.root._html = t.root._sent ?? t.htmlWas;
      t.htmlShown = undefined;
    }
    // the server's last outline, where the text view keeps it, else the one the drag began with
    const sel = t.root?._selected;
    outline(t.view, sel !== undefined && sel !== null ? t.view.querySelector(`span[data-i="${sel}"]`) : t.markWas);
  }
  if (f && k >= 0) write(texts, f, k, false);
}

// What a test or a benchmark reads: each container's text pieces as shown now.
export const shown = (key) => {
  const el = document.querySelector(css(key));
  return el ? textNodes(el).map((n) => n.nodeValue) : null;
};
