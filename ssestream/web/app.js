// The uagent-stream serve page: it follows /events (Server-Sent Events) and
// shows the run as it happens. Every string from the stream reaches the
// page through textContent or an SVG text node, never as markup.
//
// One page, four views (the body's data-view): "run" (serve FILE, and a
// run or a session of the history, whose routes are under the body's
// data-base), "index" (the history's sessions), "usage" (its tokens and
// cost). A file uagent-stream html wrote holds its data (the events, the
// summary, the intervals) in the page itself, and asks for nothing.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const base = document.body.dataset.base || "/";
const embedded = (() => {
  const e = document.getElementById("embedded");
  if (!e) return null;
  try { return JSON.parse(e.textContent); } catch (x) { return null; }
})();

// getJSON is what the server (or the file) says of name: summary,
// session, intervals, children; null when it says nothing.
async function getJSON(name) {
  if (embedded) return embedded[name] === undefined ? null : embedded[name];
  const res = await fetch(base + name, { cache: "no-store" });
  if (!res.ok) return null;
  return res.json();
}

// The page keeps the transcript and draws; what pairs with what (turns,
// tool operations, repeated notices) is the server's fold, read from
// /intervals, and the totals are its /summary.
const state = {
  start: null, // Date of the first line with a time, for the time column
  noticeLines: new Map(), // line number -> the notice's li, until /intervals says which lines count
  session: null, // the session_opened of a session stream of the harness
  runs: 0, // runs of the session so far
  streaming: new Map(), // the server's number of a streamed item -> its li, until a live event says what took its place
  line: "", // the number of the line being shown (its event's id)
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
  const s = (t - state.start) / 1000;
  if (s < 60) return s.toFixed(3) + "s";
  const m = Math.floor(s / 60);
  if (m < 60) return m + "m" + (s % 60).toFixed(1).padStart(4, "0") + "s";
  return Math.floor(m / 60) + "h" + String(m % 60).padStart(2, "0") + "m" + String(Math.floor(s % 60)).padStart(2, "0") + "s";
}

function add(cls, t, parts, line) {
  const li = el("li", cls);
  line = line || state.line;
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
  state.meta = d;
  const m = $("meta");
  m.replaceChildren();
  for (const [k, v] of [["model", [d.provider, d.model].filter(Boolean).join(" ")], ["effort", d.effort],
    ["workspace", d.workspace], ["session", d.session_id], ["run", d.run_id]]) {
    if (!v) continue;
    const row = el("div");
    row.appendChild(el("dt", "", k));
    const dd = el("dd", "", shown(v)); // a stream's string, what a reader cannot see escaped
    dd.title = shown(v);
    if (k === "session" && document.body.dataset.history && !state.session) { // the run's session, linked
      dd.replaceChildren(Object.assign(el("a", "", shown(v)), { href: "/sessions/" + encodeURIComponent(d.session_id) + "/" }));
    }
    row.appendChild(dd);
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
    if (!state.about) $("title").textContent = "uah session " + (s.id || ""); // else the history's title stays
    return;
  }
  if (!state.about) $("title").textContent = "uagent run " + (d.run_id || "");
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
      const li = add("turn", t, ["══ run " + state.runs + " · " + (d.run_id || ""), el("span", "run-cost", "")]);
      li.dataset.runId = d.run_id || "";
      runCosts();
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
    add("model", t, ["  model " + duration(d.duration_ms) + " · in " + thousands(u.input) + " · out " + thousands(u.output) +
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
  const runs = iv.runs || [];
  const top = runs.length ? 1 : 0; // a session's runs lane, above the model's
  const names = runs.length ? ["runs", "model"] : ["model"];
  for (let i = 1; i <= iv.lanes; i++) names.push("tools " + i);
  if (iv.more > 0) names.push("+" + iv.more + " more");
  const bars = [];
  for (const r of runs) bars.push({ lane: 0, kind: "run", cls: r.open ? "running" : r.ok ? "run" : "failed", b: r, label: "run " + r.turn + " · " + r.detail });
  for (const m of iv.turns) bars.push({ lane: top, kind: "turn", cls: m.open ? "running" : m.ok ? "model" : "failed", b: m, label: "turn " + m.turn });
  for (const o of iv.tools) {
    const lane = o.lane < iv.lanes ? o.lane + 1 + top : names.length - 1;
    bars.push({ lane, kind: "tool", cls: o.open ? "running" : o.ok ? "tool" : "failed", b: o, label: o.label + (o.detail ? " · " + o.detail : "") });
  }
  const lanesEnd = names.length * 22;
  svg.setAttribute("height", String(lanesEnd + 40));
  // the axis: five ticks, times since the start
  for (let i = 0; i <= 4; i++) {
    const ms = (span * i) / 4, tx = x(ms);
    const tick = document.createElementNS(SVG, "line");
    for (const [k, v] of [["class", "tick"], ["x1", String(tx)], ["x2", String(tx)], ["y1", String(lanesEnd - 2)], ["y2", String(lanesEnd + 3)]]) tick.setAttribute(k, v);
    svg.appendChild(tick);
    const label = document.createElementNS(SVG, "text");
    for (const [k, v] of [["class", "axis"], ["x", String(tx)], ["y", String(lanesEnd + 14)], ["text-anchor", i === 0 ? "start" : i === 4 ? "end" : "middle"]]) label.setAttribute(k, v);
    label.textContent = duration(ms);
    svg.appendChild(label);
  }
  // the legend
  let lx = 90;
  for (const [cls, what] of [...(runs.length ? [["run", "run"]] : []), ["model", "model turn"], ["tool", "tool"], ["failed", "failed"], ["running", "still going"]]) {
    const sw = document.createElementNS(SVG, "rect");
    for (const [k, v] of [["class", "swatch " + cls], ["x", String(lx)], ["y", String(lanesEnd + 24)], ["width", "10"], ["height", "10"]]) sw.setAttribute(k, v);
    svg.appendChild(sw);
    const t = document.createElementNS(SVG, "text");
    for (const [k, v] of [["class", "legend"], ["x", String(lx + 14)], ["y", String(lanesEnd + 33)]]) t.setAttribute(k, v);
    t.textContent = what;
    svg.appendChild(t);
    lx += 14 + what.length * 7 + 16;
  }
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
    const iv = await getJSON("intervals");
    if (!iv) return;
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
    const got = await getJSON(state.session ? "session" : "summary");
    if (!got) return;
    let s = got, st = got.stats || {};
    if (state.session) {
      const t = got.totals || {};
      s = { status: (got.runs || []).length ? got.runs[got.runs.length - 1].status : "", wall_ms: t.wall_ms };
      st = { model_ms: t.model_ms, turns: t.turns, tool_calls: t.tool_calls, tokens: t.tokens };
    }
    const tk = st.tokens || {};
    const box = $("totals");
    box.replaceChildren();
    const cost = state.about ? [["cost (API-price estimate)", money(state.about.cost_usd, state.about.unpriced_tokens)]] : [];
    // spent apart from the runs: compactions' own calls (the history's log, else the stream's), subagents
    const comp = (state.about && state.about.compaction) || (state.session && (got.totals || {}).compaction);
    if (comp && comp.calls) {
      cost.push(["compactions", thousands(comp.calls) + " calls · " + thousands((comp.tokens || {}).input) + "/" + thousands((comp.tokens || {}).output) +
        (comp.cost_usd !== undefined ? " · " + money(comp.cost_usd, comp.unpriced_tokens) : "")]);
    }
    const tried = state.about && state.about.attempts;
    if (tried && (tried.retry || tried.failed || tried.canceled)) {
      cost.push(["model attempts", [["retried", tried.retry], ["failed", tried.failed], ["canceled", tried.canceled]]
        .filter(([, n]) => n).map(([w, n]) => thousands(n) + " " + w).join(" · ")]);
    }
    const subs = state.about && state.about.subagents;
    if (subs && subs.sessions) {
      cost.push(["subagents", thousands(subs.sessions) + " sessions · " + thousands(subs.runs) + " runs · " +
        thousands((subs.tokens || {}).input) + "/" + thousands((subs.tokens || {}).output) + " · " + money(subs.cost_usd, subs.unpriced_tokens)]);
    }
    for (const [k, v] of [["status", s.status], ["wall", duration(s.wall_ms)], ["model", duration(st.model_ms)],
      ["tools", duration(st.tool_busy_ms)], ["turns", thousands(st.turns)], ["tool calls", thousands(st.tool_calls)],
      ["tokens in", thousands(tk.input)], ["tokens out", thousands(tk.output)], ...cost].filter(([k]) => !state.session || k !== "tools")) {
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

// replay is an EventSource of the events a file holds (the server's
// Server-Sent Events, as it sent them), played once to the same listeners.
function replay(text) {
  const listeners = {};
  const src = { readyState: 1, onopen: null, onerror: null, close() { this.readyState = 2; },
    addEventListener(type, f) { (listeners[type] = listeners[type] || []).push(f); } };
  setTimeout(() => {
    if (src.onopen) src.onopen();
    for (const block of String(text).split("\n\n")) {
      let type = "message", data = "", id = "";
      for (const line of block.split("\n")) {
        const i = line.indexOf(":");
        if (i <= 0) continue;
        const k = line.slice(0, i), v = line.slice(i + 1).replace(/^ /, "");
        if (k === "event") type = v; else if (k === "data") data += (data ? "\n" : "") + v; else if (k === "id") id = v;
      }
      if (!data || src.readyState === 2) continue;
      for (const f of listeners[type] || []) f({ data, lastEventId: id });
    }
  }, 0);
  return src;
}

function start() {
  const es = embedded ? replay(embedded.events) : new EventSource(base + "events");
  es.onopen = () => setState("live");
  es.onerror = () => { if (es.readyState !== EventSource.CLOSED) setState("reconnecting"); };
  for (const type of Object.keys(handlers)) {
    es.addEventListener(type, (ev) => {
      let d;
      try { d = JSON.parse(ev.data); } catch (e) { return; }
      const t = at(d);
      if (t && !state.start) state.start = t;
      state.line = ev.lastEventId;
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
      state.line = ev.lastEventId;
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
    toLine();
  });
  setTimeout(toLine, 1000);
}

// children lists a session's subagents and reviewers, linked.
async function children() {
  const kids = await getJSON("children");
  if (!kids || !kids.length) return;
  $("children-box").hidden = false;
  for (const k of kids) {
    const li = el("li");
    const a = el("a", "", shown(k.title || k.session_id));
    a.href = "/sessions/" + encodeURIComponent(k.session_id) + "/";
    li.appendChild(a);
    li.appendChild(document.createTextNode(" · " + (k.source === "review" ? "review" : "subagent") + " · " + plural(k.runs, "run") + " · " + shown(k.status)));
    $("children").appendChild(li);
  }
}

// ---- the history: its sessions, and its usage ----

// shown makes a string of the history safe to show, as the command's
// sanitizer does: what a reader cannot see or that reorders text (C0 and
// C1 controls, DEL, the bidirectional controls, the invisible
// default-ignorable code points) becomes a visible escape, \x1b or
// \u202e; it is then set as text, never markup.
const invisible = /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2028\u2029\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8]|\udb40[\udc00-\udfff]/g;
function shown(s) {
  return String(s === undefined || s === null ? "" : s).replace(invisible, (c) => {
    if (c === "\n") return "\\n";
    const code = c.codePointAt(0);
    if (code < 0x20 || code === 0x7f) return "\\x" + code.toString(16).padStart(2, "0");
    return [...c].map((u) => "\\u" + u.codePointAt(0).toString(16).padStart(4, "0")).join("");
  });
}

function money(usd, unpriced) {
  if (usd === null || usd === undefined) return "?";
  const v = usd > 0 && usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2);
  return (unpriced > 0 ? "≥$" : "$") + v;
}

function compact(n) {
  n = Number(n) || 0;
  if (n < 1000) return String(n);
  if (n < 1e6) return (n / 1e3).toFixed(1) + "k";
  if (n < 1e9) return (n / 1e6).toFixed(1) + "M";
  return (n / 1e9).toFixed(1) + "G";
}

// when shows a time as the command does, 2026-11-28 15:00, in the zone
// the address names (?tz=), else the server's (data-tz, when it knows
// its name), else this browser's.
const zone = new URLSearchParams(location.search).get("tz") || document.body.dataset.tz || undefined;
let isoFormat;
try {
  isoFormat = new Intl.DateTimeFormat("sv-SE", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
} catch (e) {
  isoFormat = new Intl.DateTimeFormat("sv-SE", { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
}
function when(t) {
  if (!t) return "-";
  const d = new Date(t);
  return isNaN(d) ? "-" : isoFormat.format(d);
}

// thousands is a count with separators, 100,868.
function thousands(v) { return (Number(v) || 0).toLocaleString("en-US"); }

// plural is "1 run", "2 runs".
function plural(n, one) { return thousands(n) + " " + one + (Number(n) === 1 ? "" : "s"); }

// cell is a table's cell of a token (an id, a number, a model, a status,
// a path): never wrapped inside, cut with … where space runs out, the
// whole of it on hover.
function cell(text, cls) {
  const td = el("td", "tok" + (cls ? " " + cls : ""), text);
  td.title = String(text);
  return td;
}

// marked is a search's snippet with what was searched for marked (the
// first match of each, compared case-insensitively), as text.
function marked(snippet, q) {
  const span = el("span", "snippet");
  const text = shown(snippet), lower = text.toLowerCase(), needle = String(q || "").toLowerCase();
  let i = needle ? lower.indexOf(needle) : -1, from = 0;
  while (i >= 0 && needle) {
    span.appendChild(document.createTextNode(text.slice(from, i)));
    span.appendChild(el("mark", "", text.slice(i, i + needle.length)));
    from = i + needle.length;
    i = lower.indexOf(needle, from);
  }
  span.appendChild(document.createTextNode(text.slice(from)));
  return span;
}

// The index: a page of the history's sessions (/api/sessions, the
// objects of ls --json, with the filters and the search as parameters),
// each title a link to its session, each hit a link to its run at its
// line; updated as the history changes (/api/events).
const index = { offset: 0, limit: 100, version: 0 };

function indexQuery() {
  const q = new URLSearchParams();
  for (const [k, v] of new FormData($("filters"))) if (v) q.set(k, v);
  q.set("offset", String(index.offset));
  q.set("limit", String(index.limit));
  return q;
}

async function showIndex() {
  const res = await fetch("/api/sessions?" + indexQuery(), { cache: "no-store" });
  const tbody = $("sessions").tBodies[0];
  if (!res.ok) {
    tbody.replaceChildren();
    const tr = el("tr", "error");
    tr.appendChild(el("td", "", "the history could not be listed: " + (await res.text())));
    tbody.appendChild(tr);
    return;
  }
  const list = await res.json();
  tbody.replaceChildren();
  let unpriced = 0;
  const models = new Set();
  for (const s of list) {
    const tr = el("tr", s.parent_session_id ? "child" : "");
    tr.dataset.session = s.session_id;
    tr.dataset.status = s.status;
    const title = el("a", "", (s.parent_session_id ? (s.source === "review" ? "↳ review: " : "↳ ") : "") + shown(s.title || s.session_id));
    title.href = "/sessions/" + encodeURIComponent(s.session_id) + "/";
    const tk = s.tokens || {};
    const titleCell = el("td", "title");
    titleCell.appendChild(title);
    tr.append(cell(when(s.last_activity_at)), titleCell, cell(thousands(s.runs), "num"), cell(shown(s.status)), cell(shown(s.model)),
      cell(compact(tk.input) + "/" + compact(tk.output), "num"), cell(money(s.cost_usd, s.unpriced_tokens), "num"), cell(shown(s.workspace), "path"));
    models.add(shown(s.model));
    tbody.appendChild(tr);
    unpriced += s.unpriced_tokens || 0;
    for (const m of s.matches || []) {
      const hit = el("tr", "hit");
      const td = el("td");
      td.colSpan = 8;
      const a = el("a", "", "⌕ " + shown(m.run_id) + " · " + when(m.at) + " · ");
      a.href = "/runs/" + encodeURIComponent(m.run_id) + "/#line-" + m.line;
      td.appendChild(a);
      td.appendChild(marked(m.snippet, new FormData($("filters")).get("q")));
      hit.appendChild(td);
      tbody.appendChild(hit);
    }
  }
  const paging = $("paging");
  paging.replaceChildren();
  if (index.offset > 0) {
    const prev = el("a", "", "← newer");
    prev.href = "#";
    prev.onclick = (e) => { e.preventDefault(); index.offset = Math.max(0, index.offset - index.limit); showIndex(); };
    paging.appendChild(prev);
    paging.appendChild(document.createTextNode(" "));
  }
  if (res.headers.get("X-Next-Offset")) {
    const next = el("a", "", "older →");
    next.id = "next";
    next.href = "#";
    next.onclick = (e) => { e.preventDefault(); index.offset = Number(res.headers.get("X-Next-Offset")); showIndex(); };
    paging.appendChild(next);
  }
  $("estimate").textContent = shown(res.headers.get("X-Estimate") || "");
  // the model filter offers the models the history shows
  const dl = $("models");
  for (const m of models) if (m && ![...dl.options].some((o) => o.value === m)) dl.appendChild(Object.assign(el("option"), { value: m }));
  setState("live");
}

function startIndex() {
  $("index-view").hidden = false;
  $("run-view").hidden = true;
  $("title").textContent = "uagent history";
  // The filters are the address's (a form sent as a page asks for it), so
  // that a filtered index is a link.
  const params = new URLSearchParams(location.search);
  for (const f of $("filters").elements) if (f.name && params.has(f.name)) f.value = params.get(f.name);
  index.offset = Number(params.get("offset")) || 0;
  $("filters").addEventListener("submit", (e) => {
    e.preventDefault();
    index.offset = 0;
    const q = indexQuery();
    q.delete("limit");
    history.replaceState(null, "", "/?" + q);
    showIndex();
  });
  showIndex();
  const es = new EventSource("/api/events");
  es.onerror = () => { if (es.readyState !== EventSource.CLOSED) setState("reconnecting"); };
  es.addEventListener("changed", () => showIndex());
}

// The usage page: tokens and cost by day, week, month or model, as a bar
// chart drawn here, and the table of uagent-stream usage (/api/usage:
// the same rows). Every period between the first and the last is on the
// axis, those without a run too; a period with tokens and no price is
// marked unpriced ("?", not a bar of $0), one partly priced "≥".
const usageBy = new URLSearchParams(location.search).get("by") || "day";

// periods is rows on the server's axis (/api/usage's periods: every
// day, week or month from the first row's to the last's), a period
// without a row as an empty one; rows as they are without an axis.
function periods(rows, axis) {
  if (!axis || !axis.length) return rows;
  const have = new Map(rows.map((r) => [r.period, r]));
  return axis.map((p) => have.get(p) || { period: p, total_tokens: 0, cost_usd: null, unpriced_tokens: 0, empty: true });
}

function drawUsage(rows) {
  const svg = $("usage-chart");
  svg.replaceChildren();
  const width = svg.clientWidth || 1000, height = 200, left = 60;
  const max = Math.max(1, ...rows.map((r) => r.total_tokens || 0));
  const maxCost = Math.max(0.000001, ...rows.map((r) => r.cost_usd || 0));
  const w = Math.max(2, (width - left - 10) / Math.max(rows.length, 1));
  const text = (x, y, cls, t) => {
    const e = document.createElementNS(SVG, "text");
    e.setAttribute("x", String(x));
    e.setAttribute("y", String(y));
    if (cls) e.setAttribute("class", cls);
    e.textContent = t;
    svg.appendChild(e);
    return e;
  };
  text(2, 12, "legend tokens", "■ tokens (at most " + compact(max) + ")");
  text(260, 12, "legend cost", "■ cost, API-price estimate (at most " + money(maxCost, 0) + "); ? unpriced, ≥ partly priced");
  const every = Math.ceil(rows.length / Math.max(1, Math.floor((width - left) / 48))); // a label per 48 px at most
  rows.forEach((r, i) => {
    const h = ((r.total_tokens || 0) / max) * (height - 40);
    const bar = document.createElementNS(SVG, "rect");
    for (const [k, v] of [["class", "bar tokens" + (r.empty ? " empty" : "")], ["x", String(left + i * w)], ["y", String(height - 10 - h)], ["width", String(Math.max(w * 0.45, 1))], ["height", String(h)]]) bar.setAttribute(k, v);
    bar.dataset.period = r.period;
    bar.dataset.tokens = String(r.total_tokens || 0);
    const title = document.createElementNS(SVG, "title");
    title.textContent = shown(r.period) + " · " + (r.empty ? "no run" : thousands(r.total_tokens) + " tokens · " + money(r.cost_usd, r.unpriced_tokens));
    bar.appendChild(title);
    svg.appendChild(bar);
    const cx = left + i * w + w * 0.45;
    if (r.cost_usd !== null && r.cost_usd !== undefined) {
      const ch = (r.cost_usd / maxCost) * (height - 40);
      const cost = document.createElementNS(SVG, "rect");
      for (const [k, v] of [["class", "bar cost" + (r.unpriced_tokens > 0 ? " partial" : "")], ["x", String(cx)], ["y", String(height - 10 - ch)], ["width", String(Math.max(w * 0.45, 1))], ["height", String(ch)]]) cost.setAttribute(k, v);
      cost.dataset.period = r.period;
      svg.appendChild(cost);
      if (r.unpriced_tokens > 0) text(cx, height - 14 - ch, "mark partial", "≥").dataset.period = r.period;
    } else if (!r.empty && (r.total_tokens || 0) > 0) {
      text(cx, height - 14, "mark unpriced", "?").dataset.period = r.period;
    }
    if (i % every === 0) text(left + i * w, height + 6, "axis", shown(by(r.period)));
  });
  function by(p) { return usageBy === "day" ? String(p).slice(5) : String(p); }
}

async function startUsage() {
  $("usage-view").hidden = false;
  $("run-view").hidden = true;
  $("title").textContent = "uagent usage";
  const sw = $("usage-by");
  for (const b of ["day", "week", "month", "model"]) {
    const q = new URLSearchParams(location.search);
    q.set("by", b);
    const a = el(b === usageBy ? "b" : "a", "", b);
    if (b !== usageBy) a.href = "/usage?" + q;
    sw.append(a, " ");
  }
  $("usage").tHead.rows[0].cells[0].textContent = usageBy;
  const res = await fetch("/api/usage" + location.search, { cache: "no-store" });
  if (!res.ok) return;
  const u = await res.json();
  drawUsage(periods(u.rows || [], u.periods));
  const tbody = $("usage").tBodies[0];
  for (const r of [...(u.rows || []), u.total]) {
    const tr = el("tr", r === u.total ? "total" : "");
    const tk = r.tokens || {};
    const n = thousands;
    for (const c of [shown(r.period), r.sessions, r.runs, n(r.uncached_input), n(tk.cached_input), n(tk.cache_write_input),
      n(tk.output) + " (" + n(tk.reasoning) + ")", n(r.total_tokens), money(r.cost_usd, r.unpriced_tokens)]) tr.appendChild(cell(c));
    tbody.appendChild(tr);
  }
  $("usage-estimate").textContent = shown(u.estimate || "");
  setState("live");
}

// about shows what the history says of a run or a session (/about: the
// listing's object): its title, what it is (a uagent or a uah session),
// its cost, its session linked.
async function about() {
  const a = await getJSON("about");
  if (!a) return;
  state.about = a;
  const kind = a.run_id ? "uagent run" : (a.source ? "uah session" : "uagent session");
  $("title").textContent = kind + ": " + shown(a.title || a.run_id || a.session_id);
  document.title = $("title").textContent;
  meta(state.meta || {});
  totals();
  runCosts();
}

// runCosts puts each run's cost estimate on its line of a session's
// transcript, as the history lists the session's runs.
function runCosts() {
  const list = (state.about && state.about.run_list) || [];
  for (const r of list) {
    const li = document.querySelector('#transcript li[data-run-id="' + CSS.escape(r.run_id) + '"] .run-cost');
    if (li) li.textContent = " · " + money(r.cost_usd, r.unpriced_tokens) + " (API-price estimate)";
  }
}

// A run's page opened at a line (#line-N, a search's hit) shows it.
function toLine() {
  const m = /^#line-(\d+)$/.exec(location.hash);
  if (!m) return;
  const li = document.querySelector('#transcript li[data-line="' + m[1] + '"]');
  if (li) { li.classList.add("hit"); li.scrollIntoView(); }
}

switch (document.body.dataset.view) {
  case "index": $("nav").hidden = false; startIndex(); break;
  case "usage": $("nav").hidden = false; startUsage(); break;
  default:
    if (document.body.dataset.history) { $("nav").hidden = false; children(); about(); }
    start();
}
