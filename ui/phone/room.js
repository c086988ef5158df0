// A phone in a class room (rnnviz/rooms/live.py): join once (the voter token kept in this browser, so a reload is
// the same voter), then listen: the room is pushed as server-sent events, and nothing is asked while nothing changes.
// A vote is a POST, sent again until the room has it (a server or store restarting); it can be changed until the
// reveal. Every text from the room is set as text, never as HTML.
"use strict";
const $ = (id) => document.getElementById(id);
const API = "/_rnnviz/room/";
const code = decodeURIComponent(location.pathname.split("/")[2] || "").toUpperCase();
const KEY = "rnnviz.me." + code;
let me = null, room = null, mine = null, sending = null, source = null;

function say(text) { $("message").textContent = text || ""; }
function status(text) { $("status").textContent = text || ""; }
const sleep = (s) => new Promise((r) => setTimeout(r, s * 1000));

async function post(path, body) {
  const r = await fetch(API + encodeURIComponent(code) + path, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  let got = {};
  try { got = await r.json(); } catch (e) { /* a proxy's own error page */ }
  return { status: r.status, got };
}

async function join() {
  for (let wait = 1; ; wait = Math.min(wait * 1.5, 10)) {
    let r;
    try { r = await post("/join", { me: localStorage.getItem(KEY) }); } catch (e) { r = { status: 0, got: {} }; }
    if (r.status === 200) { me = r.got.me; localStorage.setItem(KEY, me); say(""); return listen(); }
    if (r.status === 429) { status(r.got.message); await sleep(r.got.retry || wait); continue; }
    if (r.status >= 500 || r.status === 0) { status("Reconnecting…"); await sleep(wait); continue; }
    status("");
    say(r.got.message || "This room cannot be joined.");
    showJoin();
    return;
  }
}

function listen() {
  if (source) source.close();
  source = new EventSource(API + encodeURIComponent(code) + "/events?me=" + encodeURIComponent(me));
  source.onmessage = (ev) => { room = JSON.parse(ev.data); if (!sending) mine = room.mine; draw(); };
  source.onerror = () => { if (source.readyState === EventSource.CLOSED) setTimeout(join, 2000); };
}

function answerText(v) {
  const q = room.question;
  return q.kind === "choice" ? q.options[v] : String(v);
}

function draw() {
  $("title").textContent = "Room " + room.code;
  $("join").hidden = true;
  const q = room.question, open = room.phase === "open";
  if (room.phase === "closed" && !q) { $("question").hidden = true; status("The lecturer has closed this room. Thank you!"); return; }
  if (!q) {
    $("question").hidden = true;
    status("You are in. The first question appears here when the lecturer asks it.");
    return;
  }
  $("question").hidden = false;
  $("heading").textContent = "Question " + room.number + (room.round === 2 ? " · round 2: discussed, vote again" : "");
  $("prompt").textContent = q.prompt;
  const choices = $("choices");
  choices.replaceChildren();
  if (q.kind === "choice") {
    q.options.forEach((label, i) => {
      const b = document.createElement("button");
      b.className = "choice";
      b.textContent = label + (room.truth !== undefined && label === room.truth ? "  ✓" : "");
      b.setAttribute("aria-pressed", String(mine === i));
      b.disabled = !open;
      b.onclick = () => vote(i);
      choices.append(b);
    });
  }
  const num = $("number");
  num.hidden = q.kind !== "number" || !open;
  if (q.kind === "number" && document.activeElement !== $("value")) {
    $("value").placeholder = q.lo + " to " + q.hi;
    if (mine !== null && mine !== undefined && !$("value").value) $("value").value = mine;
  }
  if (sending) { status("Sending your answer…"); return; }
  if (open) {
    status(mine === null || mine === undefined ? "" :
      "Your answer is in: " + answerText(mine) + ". You can change it until the reveal.");
  } else if (room.phase === "revealed" || room.phase === "closed") {
    let text = "The answer: " + room.truth + ".";
    if (mine !== null && mine !== undefined) {
      text += " Yours: " + answerText(mine) + ", " + (room.right ? "right!" : "not quite.");
    }
    status(text + (room.phase === "closed" ? " The room is closed; thank you!" : ""));
  }
}

async function vote(value) {
  const n = room.number, rnd = room.round;
  sending = { value };
  mine = value;
  say("");
  draw();
  for (let wait = 0.5; room.number === n && room.round === rnd && sending && sending.value === value;
    wait = Math.min(wait * 1.5, 5)) {
    let r;
    try { r = await post("/vote", { me, number: n, round: rnd, answer: value }); } catch (e) { r = { status: 0, got: {} }; }
    if (sending.value !== value) return; // a newer tap is on its way
    if (r.status === 200) { sending = null; break; }
    if (r.status >= 500 || r.status === 0) { status("Not sent yet: trying again…"); await sleep(wait); continue; }
    sending = null;
    mine = room.mine;
    say(r.got.message || "That answer was not taken.");
    break;
  }
  sending = null;
  draw();
}

$("number").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const raw = $("value").value.trim().replace(",", ".").replace("−", "-");
  const v = Number(raw);
  if (raw === "" || !Number.isFinite(v)) { say("Please type a number."); return; }
  vote(v);
});

function showJoin() {
  $("join").hidden = false;
  $("question").hidden = true;
}

$("join").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const typed = $("code").value.replace(/[\s-]/g, "").toUpperCase();
  if (typed) location.href = "/room/" + encodeURIComponent(typed);
});

if (/^[A-Z0-9]{6}$/.test(code)) join(); else { showJoin(); if (code) say("There is no room with that code. Check it on the projector."); }
