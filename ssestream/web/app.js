// The uagent-stream serve page: it follows /events (Server-Sent Events) and
// shows the run as it happens. Every string from the stream reaches the
// page through textContent or an SVG text node, never as markup.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

const state = {
  start: null, // Date of run_started
  last: null, // latest event time
  turn: null, // the open turn: {start, turn}
  turns: [], // {start, end, turn, open}
  ops: new Map(), // op_id -> {start, end, label, ok, open}
  notices: new Map(), // notice key -> {li, count}
  finished: false,
};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = String(text);
  return e;
}

function setState(name) {
  const s = $("state");
  s.className = "state " + name;
  s.textContent = name;
}

function at(d) {
  const t = new Date(d.at);
  return isNaN(t) ? null : t;
}

// duration shows milliseconds as people read them: 850 ms, 3.5 s,
// 1 m 12 s, 2 h 5 m.
function duration(ms) {
  ms = Number(ms) || 0;
  const sign = ms < 0 ? "−" : "";
  ms = Math.abs(ms);
  if (ms < 1000) return sign + Math.round(ms) + " ms";
  if (ms < 60000) return sign + (Math.round(ms / 100) / 10) + " s";
  const s = Math.floor(ms / 1000);
  if (s < 3600) return sign + Math.floor(s / 60) + " m " + (s % 60) + " s";
  return sign + Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " m";
}

function stamp(t) {
  if (!t || !state.start) return "";
  return ((t - state.start) / 1000).toFixed(3) + "s";
}

function add(cls, t, parts) {
  const li = el("li", cls);
  li.appendChild(el("span", "t", stamp(t)));
  for (const p of parts) li.appendChild(typeof p === "string" ? document.createTextNode(p) : p);
  $("transcript").appendChild(li);
  return li;
}

// The key under which repeated notices coalesce: the same rule as the
// package's NoticeKey (preflight_warning by code and message, runner_error
// by message).
function noticeKey(type, d) {
  if (type === "preflight_warning") return type + "\u0000" + d.code + "\u0000" + d.message;
  if (type === "runner_error") return type + "\u0000" + d.message;
  return null;
}

function notice(type, d, t, text) {
  const key = noticeKey(type, d);
  const seen = state.notices.get(key);
  if (seen) {
    seen.count++;
    seen.badge.textContent = "×" + seen.count;
    return;
  }
  const badge = el("span", "count", "");
  const li = add(type === "runner_error" ? "error notice" : "notice", t, [text, badge]);
  state.notices.set(key, { li, badge, count: 1 });
}

function meta(d) {
  const m = $("meta");
  m.replaceChildren();
  for (const [k, v] of [["model", [d.provider, d.model].filter(Boolean).join(" ")], ["effort", d.effort],
    ["workspace", d.workspace], ["session", d.session_id], ["run", d.run_id]]) {
    if (!v) continue;
    const row = el("div");
    row.appendChild(el("dt", "", k));
    row.appendChild(el("dd", "", v));
    m.appendChild(row);
  }
  $("title").textContent = "uagent run " + (d.run_id || "");
}

const handlers = {
  run_started(d, t) { state.start = t; meta(d); },
  preflight_warning(d, t) { notice("preflight_warning", d, t, "! warning " + d.code + ": " + d.message); },
  user_message(d, t) { add("user", t, [el("span", "who", "user: "), d.text]); },
  developer_message(d, t) { add("developer", t, [el("span", "who", "developer: "), d.text]); },
  control_input(d, t) { add("control", t, ["control " + [d.mode, d.effort && "effort " + d.effort, d.reason].filter(Boolean).join(" · ")]); },
  turn_started(d, t) {
    add("turn", t, ["── turn " + d.turn]);
    state.turn = { start: t, turn: d.turn };
  },
  model_responded(d, t) {
    const u = d.usage || {};
    add("model", t, ["  model " + duration(d.duration_ms) + " · in " + (u.input || 0) + " · out " + (u.output || 0) +
      (d.stop && d.stop !== "complete" ? " · stop " + d.stop : "")]);
    if (d.failure) add("error", t, ["  ✗ model failure: " + d.failure]);
    if (state.turn) {
      state.turns.push({ start: state.turn.start, end: t, turn: state.turn.turn });
      state.turn = null;
    }
  },
  tool_called(d, t) { add("call", t, ["  → " + d.name + ": " + d.label]); },
  tool_started(d, t) {
    const id = d.op_id || "";
    if (!state.ops.has(id)) state.ops.set(id, { start: t, end: null, label: d.name + ": " + d.label, open: true });
  },
  tool_finished(d, t) {
    const op = state.ops.get(d.op_id || "");
    if (op && op.open) Object.assign(op, { end: t, ok: d.ok, open: false });
    add(d.ok ? "ok" : "fail", t, [el("span", "mark", d.ok ? "✓ " : "✗ "), d.name + ": " + d.label + " · " + d.detail + " · " + duration(d.duration_ms)]);
  },
  assistant_message(d, t) {
    add(d.final ? "answer" : "assistant", t, [el("b", "", d.final ? "answer: " : "assistant: "), d.text]);
    if (d.final) showAnswer(d.text);
  },
  reasoning(d, t) { add("reasoning", t, ["  · " + d.text]); },
  runner_error(d, t) { notice("runner_error", d, t, "✗ runner error: " + d.message); },
  run_finished(d, t) {
    state.finished = true;
    const s = d.summary || {};
    add("finished", t, ["── finished: " + s.status]);
    if (s.answer) showAnswer(s.answer);
  },
};

function showAnswer(text) {
  $("answer-box").hidden = false;
  $("answer").textContent = text;
}

// The timeline: one lane for model turns, one per tool running at once
// (each tool takes the first lane free at its start), open ones growing.
function draw() {
  const svg = $("timeline");
  svg.replaceChildren();
  if (!state.start) return;
  const end = state.last || state.start;
  const span = Math.max(end - state.start, 1);
  const width = svg.clientWidth || 1000;
  const x = (t) => 90 + ((t - state.start) / span) * (width - 100);
  const bars = [];
  for (const m of state.turns) bars.push({ lane: 0, cls: "model", start: m.start, end: m.end, label: "turn " + m.turn });
  if (state.turn) bars.push({ lane: 0, cls: "running", start: state.turn.start, end, label: "turn " + state.turn.turn });
  const laneEnds = [];
  const ops = [...state.ops.values()].sort((a, b) => a.start - b.start);
  for (const op of ops) {
    const stop = op.open ? end : op.end;
    let lane = laneEnds.findIndex((e) => e <= op.start);
    if (lane < 0) { lane = laneEnds.length; laneEnds.push(0); }
    laneEnds[lane] = stop;
    bars.push({ lane: lane + 1, cls: op.open ? "running" : op.ok ? "tool" : "failed", start: op.start, end: stop, label: op.label });
  }
  const lanes = 1 + laneEnds.length;
  svg.setAttribute("height", String(lanes * 22 + 4));
  for (let i = 0; i < lanes; i++) {
    const bg = document.createElementNS(SVG, "rect");
    for (const [k, v] of [["class", "lane"], ["x", "90"], ["y", String(i * 22)], ["width", String(width - 100)], ["height", "18"]]) bg.setAttribute(k, v);
    svg.appendChild(bg);
    const name = document.createElementNS(SVG, "text");
    name.setAttribute("x", "4");
    name.setAttribute("y", String(i * 22 + 13));
    name.textContent = i === 0 ? "model" : "tools " + i;
    svg.appendChild(name);
  }
  for (const b of bars) {
    const r = document.createElementNS(SVG, "rect");
    const x0 = Math.min(x(b.start), x(b.end));
    r.setAttribute("class", "bar " + b.cls);
    r.setAttribute("x", String(x0));
    r.setAttribute("y", String(b.lane * 22));
    r.setAttribute("width", String(Math.max(Math.abs(x(b.end) - x(b.start)), 1)));
    r.setAttribute("height", "18");
    const title = document.createElementNS(SVG, "title");
    title.textContent = b.label;
    r.appendChild(title);
    svg.appendChild(r);
  }
}

// The totals come from the server's own fold (/summary), the same
// arithmetic as the run's stats.
async function totals() {
  try {
    const res = await fetch("/summary", { cache: "no-store" });
    if (!res.ok) return;
    const s = await res.json();
    const st = s.stats || {};
    const tk = st.tokens || {};
    const box = $("totals");
    box.replaceChildren();
    for (const [k, v] of [["status", s.status], ["wall", duration(s.wall_ms)], ["model", duration(st.model_ms)],
      ["tools", duration(st.tool_busy_ms)], ["turns", st.turns || 0], ["tool calls", st.tool_calls || 0],
      ["tokens in", tk.input || 0], ["tokens out", tk.output || 0]]) {
      const item = el("span", "total");
      item.appendChild(el("b", "", k + " "));
      item.appendChild(document.createTextNode(String(v)));
      box.appendChild(item);
    }
  } catch (e) {
    // offline for a moment: the next event tries again
  }
}

let pending = false;
function refresh() {
  if (pending) return;
  pending = true;
  setTimeout(() => { pending = false; draw(); totals(); }, 100);
}

function start() {
  const es = new EventSource("/events");
  es.onopen = () => setState("live");
  es.onerror = () => { if (es.readyState !== EventSource.CLOSED) setState("reconnecting"); };
  for (const type of Object.keys(handlers)) {
    es.addEventListener(type, (ev) => {
      let d;
      try { d = JSON.parse(ev.data); } catch (e) { return; }
      const t = at(d);
      if (t && (!state.last || t > state.last)) state.last = t;
      handlers[type](d, t);
      refresh();
    });
  }
  es.addEventListener("unknown", (ev) => {
    let d = {};
    try { d = JSON.parse(ev.data); } catch (e) { /* shown as is */ }
    add("unknown", at(d), ["? " + String(d.type) + " (unknown type)"]);
  });
  es.addEventListener("line_error", (ev) => {
    let d = {};
    try { d = JSON.parse(ev.data); } catch (e) { /* shown as is */ }
    add("error", null, ["✗ " + String(d.error)]);
  });
  es.addEventListener("end", (ev) => {
    es.close();
    let d = {};
    try { d = JSON.parse(ev.data); } catch (e) { /* shown as is */ }
    setState(d.status === "ok" ? "finished" : "failed");
    $("state").textContent = d.ending + " · " + d.status + " · exit " + d.exit_code;
    refresh();
  });
}

start();
