// The chart component (ui/live/chart.py live_chart): one Plotly chart that stays on the page across reruns. A new
// figure for the same chart key is drawn into the same element with Plotly.react, which redraws what changed, instead
// of the chart being thrown away and built again (what st.plotly_chart does whenever its figure changes: 35-70 ms of
// the browser's time per chart). The payload is UTF-8 JSON: {figure, config, alt, src, digest}, or a stepped chart's
// {figure, config, alt, src, steps} (ui/live/__init__.py states the protocol).
import { chartElement, draw, serve, takeLater } from "./draw.js";
import { STEPPED, atStep, installSteps, picture, settle, showStep, stepOf } from "./stepped.js";

export default function ({ data, parentElement }) {
  const text = typeof data === "string" ? data : new TextDecoder().decode(data);
  const gd = chartElement(parentElement);
  if (gd.__rnnvizText === text) {  // the same figure (a stepped chart: every step): nothing to redraw
    if (gd.__rnnvizStepped) settle();
    return;
  }
  gd.__rnnvizText = text;
  const payload = JSON.parse(text);
  serve(payload.src);
  const old = [...STEPPED].find((c) => c.gd === gd);  // the step shown, from the payload it came in
  const at = gd.__rnnvizStep;
  const was = old && at != null ? { step: at, picture: picture(atStep(old, at)) } : null;
  if (old) STEPPED.delete(old);
  gd.__rnnvizStepped = !!payload.steps;
  gd.__rnnvizStep = null;
  if (!payload.steps) {
    // this very figure is on the chart already (a slider's frame, drawn as its key was pressed: ui/live/scrub.js),
    // and no drawing is under way: nothing to draw, and a drawing put off (an older figure) is dropped
    if (payload.digest && gd.__rnnvizDigest === payload.digest && gd._fullLayout && !gd.__rnnvizBusy
        && !gd.__rnnvizNext && gd.__rnnvizConfig === JSON.stringify(payload.config)) {
      takeLater(gd);
      gd.setAttribute("aria-label", payload.alt);
      return;
    }
    draw(gd, parentElement, payload.figure, payload.config, payload.alt, text, payload.digest);
    return;
  }
  const shown = gd.__rnnvizDigest;
  gd.__rnnvizDigest = null;
  installSteps();
  const c = { gd, parentElement, text, steps: payload.steps, figure: payload.figure, config: payload.config,
              asked: null };
  STEPPED.add(c);
  const s = atStep(c, stepOf(c));
  if (!gd.__rnnvizNext && ((was && was.step === s.t && was.picture === picture(s))
                           || (s.digest && s.digest === shown && gd._fullLayout && !gd.__rnnvizBusy))) {
    // a new setting that leaves this step as it was (steps 1..t do not depend on it), or whose step a key on a
    // scrubbed slider has drawn already (ui/live/scrub.js): nothing to redraw
    gd.__rnnvizStep = s.t;
    gd.__rnnvizDigest = s.digest;
    gd.setAttribute("aria-label", s.alt);
    return;
  }
  showStep(c, s.t);
}
