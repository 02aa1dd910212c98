// The uagent-stream serve page: it follows /events (Server-Sent Events) and
// shows the run as it happens. Every string from the stream reaches the
// page through textContent or an SVG text node, never as markup.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

// The page keeps the transcript and draws; what pairs with what (turns,
// tool operations, repeated notices) is the server's fold, read from
// /intervals, and the totals are its /summary.
const state = {
  start: null, // Date of the first line with a time, for the time column
  noticeLines: new Map(), // line number -> the notice's li, until /intervals says which lines count
  session: null, // the session_opened of a session stream of the harness
  runs: 0, // runs of the session so far
  streaming: new Map(), // the server's number of a streamed item -> its li, until a live event says what took its place
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

function add(cls, t, parts, line) {
  const li = el("li", cls);
  if (line) li.dataset.line = line;
  li.appendChild(el("span", "t", stamp(t)));
  for (const p of parts) li.appendChild(typeof p === "string" ? document.createTextNode(p) : p);
  $("transcript").appendChild(li);
  return li;
}

// A notice (preflight warning, runner error) is shown once with the number
// of times it came: which lines are the first of their kind, and the
// counts, come from the server (/intervals); until then the line waits
// hidden.
function notice(cls, t, text, line) {
  const li = add(cls + " notice", t, [text, el("span", "count", "")], line);
  li.hidden = true;
  state.noticeLines.set(String(line), li);
}

function showNotices(notices) {
  const first = new Map(notices.map((n) => [String(n.line), n.count]));
  for (const [line, li] of state.noticeLines) {
    const count = first.get(line);
    li.hidden = count === undefined;
    li.querySelector(".count").textContent = count > 1 ? "×" + count : "";
  }
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
  if (state.session) {
    const s = state.session, st = s.settings || {};
    for (const [k, v] of [["session", s.id + (s.resumed ? " (resumed)" : "")], ["engine", s.engine], ["runs", String(state.runs)]]) {
      if (!v) continue;
      const row = el("div");
      row.appendChild(el("dt", "", k));
      row.appendChild(el("dd", "", v));
      m.appendChild(row);
    }
    $("title").textContent = "uah session " + (s.id || "");
    return;
  }
  $("title").textContent = "uagent run " + (d.run_id || "");
}

// delta is the text_delta or reasoning_delta line last received: the
// server's live event after it says which streamed item it goes to.
let delta = null;

// streamed appends the last delta to its item's line (the server's item
// number), made when the item is new.
function streamed(it) {
  if (!delta) return;
  const { d, t, reasoning } = delta;
  delta = null;
  let li = state.streaming.get(it.index);
  if (!li) {
    li = add(reasoning ? "reasoning streaming" : "assistant streaming", t,
      [el("b", "", reasoning ? "  · " : (d.final ? "answer ⋯ " : "assistant ⋯ ")), el("span", "text", "")]);
    state.streaming.set(it.index, li);
  }
  li.querySelector(".text").textContent += String(d.text);
}

const harness = {
  session_opened(d) { state.session = d; meta({}); },
  instructions_loaded(d, t) { add("control", t, ["instructions: " + (d.files || []).join(", ") + " (" + d.bytes + " bytes" + (d.truncated ? ", truncated" : "") + ")"]); },
  input_queued(d, t) { add("user", t, [el("span", "who", "queued " + d.id + ": "), d.text]); },
  input_sent(d, t) { add("control", t, ["sent " + (d.ids || []).join(", ")]); },
  input_delivered(d, t) { add("control", t, ["✓ delivered " + d.id]); },
  input_failed(d, t) { add("error", t, ["✗ not delivered " + (d.ids || []).join(", ") + ": " + d.reason]); },
  input_withdrawn(d, t) { add("control", t, ["withdrawn " + d.id]); },
  settings_changed(d, t) { const s = d.settings || {}; add("control", t, ["settings: " + [s.provider, s.model, s.effort && "effort " + s.effort].filter(Boolean).join(" ") + " (" + d.applied + ")"]); },
  idle(d, t) { add("turn", t, ["── idle"]); },
  notice(d, t) { add(d.level === "error" ? "error" : d.level === "warning" ? "warning" : "control", t, ["! " + d.level + ": " + d.message]); },
  text_delta(d, t) { delta = { d, t, reasoning: false }; },
  reasoning_delta(d, t) { delta = { d, t, reasoning: true }; },
  stream_reset(d, t) {},
  reconnecting(d, t) { add("warning", t, ["⟳ reconnecting (attempt " + d.attempt + " of " + d.max_attempts + ", in " + duration(d.delay_ms) + "): " + d.reason]); },
  reconnect_ended(d, t) { add(d.ok ? "control" : "error", t, [d.ok ? "⟳ reconnected" : "✗ reconnecting gave up"]); },
  compaction_started(d, t) { add("control", t, ["compacting (" + d.trigger + ", " + d.tokens + " tokens)"]); },
  compacted(d, t) { add(d.error ? "error" : "control", t, [d.error ? "✗ compaction failed: " + d.error : "compacted (" + d.trigger + ")"]); },
  web_search(d, t) { add("call", t, ["  " + (d.done ? "✓" : "⋯") + " web search: " + [d.action, d.query, d.url, d.pattern].filter(Boolean).join(" · ")]); },
  rewound(d, t) { add("warning", t, ["rewound to " + d.message_id]); },
  effort_updates_off(d, t) { add("warning", t, ["! effort_updates_off: " + [d.message, d.error].filter(Boolean).join(": ")]); },
  goal_updated(d, t) { const g = d.goal || {}; add("control", t, ["goal_updated (" + d.change + (d.by ? " by " + d.by : "") + "): " + g.status + " · " + g.objective + (g.reason ? " · " + g.reason : "")]); },
  goal_continued(d, t) { add("control", t, ["goal_continued: " + (d.goal || {}).objective + " (continuation " + (d.goal || {}).continuations + ")"]); },
  goal_cleared(d, t) { add("control", t, ["goal_cleared"]); },
  auto_reviewed(d, t) {
    const why = [d.risk && "risk " + d.risk, d.reason].filter(Boolean).join(": ");
    add(d.outcome === "deny" || d.outcome === "error" ? "error" : d.outcome === "ask_user" ? "warning" : "control", t,
      ["⚖ auto-reviewed " + d.command + ": " + d.outcome + (why ? " · " + why : "") + " · " + duration(d.duration_ms) + " · " +
        (d.input_tokens || 0) + " in (" + (d.cached_input_tokens || 0) + " cached) / " + (d.output_tokens || 0) + " out tokens"]);
  },
};

// live: the server says which streamed item a delta went to, which a
// response's text took the place of (their lines go: the response's line
// shows the text), which a stream reset voided (marked so), and which a
// run ended with, no response having replaced them (kept as they are).
function live(d) {
  const items = d.items || [];
  if (d.step === "streamed") {
    if (items.length) streamed(items[0]);
    return;
  }
  for (const it of items) {
    const li = state.streaming.get(it.index);
    state.streaming.delete(it.index);
    if (!li) continue;
    if (d.step === "void") {
      li.classList.add("void");
      li.appendChild(el("span", "note", " (void: stream reset)"));
    } else if (d.step === "replaced") {
      li.remove();
    } else {
      li.classList.remove("streaming");
      li.appendChild(el("span", "note", " (no response came)"));
    }
  }
}

const handlers = {
  run_started(d, t) {
    if (state.session) {
      state.runs++;
      state.noticeLines = new Map(); // /intervals speaks of the open run
      add("turn", t, ["══ run " + state.runs + " · " + (d.run_id || "")]);
    }
    meta(d);
  },
  preflight_warning(d, t, line) { notice("warning", t, "! warning " + d.code + ": " + d.message, line); },
  user_message(d, t) { add("user", t, [el("span", "who", "user: "), d.text]); },
  developer_message(d, t) { add("developer", t, [el("span", "who", "developer: "), d.text]); },
  control_input(d, t) { add("control", t, ["control " + [d.mode, d.effort && "effort " + d.effort, d.reason].filter(Boolean).join(" · ")]); },
  turn_started(d, t) { add("turn", t, ["── turn " + d.turn]); },
  model_responded(d, t) {
    const u = d.usage || {};
    add("model", t, ["  model " + duration(d.duration_ms) + " · in " + (u.input || 0) + " · out " + (u.output || 0) +
      (d.stop && d.stop !== "complete" ? " · stop " + d.stop : "")]);
    if (d.failure) add("error", t, ["  ✗ model failure: " + d.failure]);
  },
  tool_called(d, t) { add("call", t, ["  → " + d.name + ": " + d.label]); },
  tool_started(d, t) {},
  tool_finished(d, t) {
    add(d.ok ? "ok" : "fail", t, [el("span", "mark", d.ok ? "✓ " : "✗ "), d.name + ": " + d.label + " · " + d.detail + " · " + duration(d.duration_ms)]);
  },
  assistant_message(d, t) {
    add(d.final ? "answer" : "assistant", t, [el("b", "", d.final ? "answer: " : "assistant: "), d.text]);
    if (d.final) showAnswer(d.text);
  },
  reasoning(d, t) { add("reasoning", t, ["  · " + d.text]); },
  runner_error(d, t, line) { notice("error", t, "✗ runner error: " + d.message, line); },
  run_finished(d, t) {
    const s = d.summary || {};
    add("finished", t, ["── finished: " + s.status]);
    if (s.answer) showAnswer(s.answer);
  },
};

function showAnswer(text) {
  $("answer-box").hidden = false;
  $("answer").textContent = text;
}

// The timeline, as the server's fold paired and laid it out (/intervals):
// one lane for model turns, then the tool lanes, then "+N more". Each bar
// keeps its interval, in ms since the origin, in data-start and data-end.
function draw(iv) {
  const svg = $("timeline");
  svg.replaceChildren();
  const span = Math.max(iv.end, 1);
  const width = svg.clientWidth || 1000;
  const x = (ms) => 90 + (Math.min(Math.max(ms, 0), span) / span) * (width - 100);
  const names = ["model"];
  for (let i = 1; i <= iv.lanes; i++) names.push("tools " + i);
  if (iv.more > 0) names.push("+" + iv.more + " more");
  const bars = [];
  for (const m of iv.turns) bars.push({ lane: 0, kind: "turn", cls: m.open ? "running" : m.ok ? "model" : "failed", b: m, label: "turn " + m.turn });
  for (const o of iv.tools) {
    const lane = o.lane < iv.lanes ? o.lane + 1 : names.length - 1;
    bars.push({ lane, kind: "tool", cls: o.open ? "running" : o.ok ? "tool" : "failed", b: o, label: o.label + (o.detail ? " · " + o.detail : "") });
  }
  svg.setAttribute("height", String(names.length * 22 + 4));
  names.forEach((name, i) => {
    const bg = document.createElementNS(SVG, "rect");
    for (const [k, v] of [["class", "lane"], ["x", "90"], ["y", String(i * 22)], ["width", String(width - 100)], ["height", "18"]]) bg.setAttribute(k, v);
    svg.appendChild(bg);
    const text = document.createElementNS(SVG, "text");
    text.setAttribute("x", "4");
    text.setAttribute("y", String(i * 22 + 13));
    text.textContent = name;
    svg.appendChild(text);
  });
  for (const bar of bars) {
    const r = document.createElementNS(SVG, "rect");
    const x0 = Math.min(x(bar.b.start), x(bar.b.end));
    r.setAttribute("class", "bar " + bar.cls);
    r.dataset.kind = bar.kind;
    r.dataset.start = String(bar.b.start);
    r.dataset.end = String(bar.b.end);
    r.setAttribute("x", String(x0));
    r.setAttribute("y", String(bar.lane * 22));
    r.setAttribute("width", String(Math.max(Math.abs(x(bar.b.end) - x(bar.b.start)), 1)));
    r.setAttribute("height", "18");
    const title = document.createElementNS(SVG, "title");
    title.textContent = bar.label + " · " + duration(bar.b.end - bar.b.start);
    r.appendChild(title);
    svg.appendChild(r);
  }
}

async function intervals() {
  try {
    const res = await fetch("/intervals", { cache: "no-store" });
    if (!res.ok) return;
    const iv = await res.json();
    draw(iv);
    showNotices(iv.notices || []);
  } catch (e) {
    // offline for a moment: the next event tries again
  }
}

// The totals come from the server's own fold (/summary: the run, the open
// run of a session; /session: the session's runs added up), the same
// arithmetic as the run's stats.
async function totals() {
  try {
    const res = await fetch(state.session ? "/session" : "/summary", { cache: "no-store" });
    if (!res.ok) return;
    const got = await res.json();
    let s = got, st = got.stats || {};
    if (state.session) {
      const t = got.totals || {};
      s = { status: (got.runs || []).length ? got.runs[got.runs.length - 1].status : "", wall_ms: t.wall_ms };
      st = { model_ms: t.model_ms, turns: t.turns, tool_calls: t.tool_calls, tokens: t.tokens };
    }
    const tk = st.tokens || {};
    const box = $("totals");
    box.replaceChildren();
    for (const [k, v] of [["status", s.status], ["wall", duration(s.wall_ms)], ["model", duration(st.model_ms)],
      ["tools", duration(st.tool_busy_ms)], ["turns", st.turns || 0], ["tool calls", st.tool_calls || 0],
      ["tokens in", tk.input || 0], ["tokens out", tk.output || 0]].filter(([k]) => !state.session || k !== "tools")) {
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
  setTimeout(() => { pending = false; intervals(); totals(); }, 100);
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
      if (t && !state.start) state.start = t;
      handlers[type](d, t, ev.lastEventId);
      refresh();
    });
  }
  for (const type of Object.keys(harness)) {
    es.addEventListener(type, (ev) => {
      let d;
      try { d = JSON.parse(ev.data); } catch (e) { return; }
      const t = at(d);
      if (t && !state.start) state.start = t;
      harness[type](d, t, ev.lastEventId);
      refresh();
    });
  }
  es.addEventListener("live", (ev) => {
    try { live(JSON.parse(ev.data)); } catch (e) { /* not ours */ }
  });
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
