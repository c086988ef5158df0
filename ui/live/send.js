// Work done just after the page's next message to the server has gone. Streamlit passes a button press or a slider's
// key on to the server a task or two after the key or click (about 2 ms, or longer on a busy page): a drawing (15-40
// ms of the main thread) started before it would hold up the rerun by as much. So ui/live/stepped.js draws a pressed
// step, and ui/live/scrub.js a keyed slider's frame, through afterSend.
const AFTER_SEND = [];
export function afterSend(f) {
  AFTER_SEND.push(f);
}

const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (...args) {
  const out = send.apply(this, args);
  if (AFTER_SEND.length) {
    const waiting = AFTER_SEND.splice(0);
    setTimeout(() => waiting.forEach((f) => f()), 0);
  }
  return out;
};
