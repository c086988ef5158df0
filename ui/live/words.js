// The words that follow a drag (ui/live/scrub.py `words`): the texts beside a scrubbed chart, each in a keyed container
// (st-key-<key>), whose text pieces (rnnviz/live/words.py: bold runs, table cells, lines) a frame carries as the
// server wrote them. Each piece replaces the text of the page's own text node in the same place: the markdown's
// elements and their look stay, only their words change, and nothing is computed here. A text whose pieces do not
// line up with the page's nodes (another shape at that value) is greyed instead; the release's rerun draws it anew.
const css = (key) => ".st-key-" + key.trim().replace(/[^a-zA-Z0-9_-]/g, "-");

// The non-blank text nodes of a keyed container, in document order (as rnnviz/live/words.py `pieces` lists them).
function textNodes(el) {
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT,
    { acceptNode: (n) => (n.nodeValue.trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP) });
  const out = [];
  while (walk.nextNode()) out.push(walk.currentNode);
  return out;
}

// The texts a drag may change: {key: {el, nodes, was}} for each container key the frames name that is on the page.
export function collect(keys) {
  const out = new Map();
  for (const key of keys) {
    const el = document.querySelector(css(key));
    if (!el) continue;
    const nodes = textNodes(el);
    out.set(key, { el, nodes, was: nodes.map((n) => n.nodeValue) });
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

// Frame k's words (words: {key: packed pieces}) written over the page's; a text of another shape is greyed.
export function write(texts, words, k, grey = true) {
  for (const [key, packed] of Object.entries(words || {})) {
    const t = texts.get(key), pieces = packed && piecesAt(packed, k);
    if (!t) continue;
    if (!pieces || pieces.length !== t.nodes.length) {
      if (grey) t.el.style.opacity = "0.45";  // a shape of its own at this value: greyed until the release redraws it
      continue;
    }
    t.el.style.opacity = "";
    t.nodes.forEach((n, j) => { if (n.nodeValue !== pieces[j]) n.nodeValue = pieces[j]; });
  }
}

// The drag is over: each text as the page had it (the rerun's elements change the nodes whose words changed), or,
// given `words` and `k`, the released value's own words (a node whose words the rerun leaves as they were must show
// that value's already: the page's framework only writes what changed since its last run).
export function settle(texts, words = null, k = -1) {
  for (const t of texts.values()) {
    t.el.style.opacity = "";
    t.nodes.forEach((n, j) => { if (n.nodeValue !== t.was[j]) n.nodeValue = t.was[j]; });
  }
  if (words && k >= 0) write(texts, words, k, false);
}

// What a test or a benchmark reads: each container's text pieces as shown now.
export const shown = (key) => {
  const el = document.querySelector(css(key));
  return el ? textNodes(el).map((n) => n.nodeValue) : null;
};
