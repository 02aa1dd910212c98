// Runs the SQL of docs/tables.md's "Analyzing many runs" in DuckDB, as written, on
// an export, and checks the answers against `uagent-stream stats` of the
// same files: tokens and model time per run, calls per tool and run, failed
// calls, cut-off runs, tokens and model time by model and day. The queries
// with no stats to compare with must run and answer.
//
// A FILE may be a run directory of uagent's state directory: its stream is
// what `uagent-stream convert` writes of it.
//
//   UAGENT_STREAM=path/to/uagent-stream node check.mjs EXPORT_DIR docs/tables.md FILE…
import { DuckDBInstance } from "@duckdb/node-api";
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

const [exportDir, readmePath, ...files] = process.argv.slice(2);
const bin = process.env.UAGENT_STREAM;
if (!exportDir || !readmePath || files.length === 0 || !bin) {
  console.error("usage: UAGENT_STREAM=BIN node check.mjs EXPORT_DIR docs/tables.md FILE…");
  process.exit(2);
}

// The queries: each ```sql block of the section, named by its first line,
// "-- name: what it answers".
const readme = readFileSync(readmePath, "utf8");
const section = readme.slice(readme.indexOf("\n## Analyzing many runs\n"));
const queries = {};
for (const m of section.slice(0, section.indexOf("\n## ", 5)).matchAll(/```sql\n([\s\S]*?)```/g)) {
  const name = /^-- ([\w-]+):/.exec(m[1]);
  if (name) queries[name[1]] = m[1];
}

// A run directory's status is its state's one word (finished: its
// summary's; running; or cut_off, stopped), as ls --runs says it, not
// stats' (which keeps uagent stats' rule for a run without a final
// summary).
const states = new Map(); // state directory -> Map(run_id -> status)
const stateOf = (dir) => {
  const home = dirname(dirname(resolve(dir)));
  if (!states.has(home)) {
    const runs = JSON.parse(execFileSync(bin, ["ls", "--runs", "--json", "--limit", "0", "--state-dir", home], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
    states.set(home, new Map(runs.map((r) => [r.run_id, r.status])));
  }
  return states.get(home);
};

// What stats says of each file, and whether the file has a run_finished.
const want = new Map(); // run_id -> { summary, file, cutOff, status }
for (const f of files) {
  let out;
  try {
    out = execFileSync(bin, ["stats", "--allow-errors", f], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch (e) {
    out = e.stdout; // an empty stream: no summary
  }
  const summary = out.trim() ? JSON.parse(out) : null;
  let text;
  try {
    text = statSync(f).isDirectory()
      ? execFileSync(bin, ["convert", f], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      : readFileSync(f, "utf8");
  } catch (e) {
    text = e.stdout; // a run directory with problems: what could be read of it
  }
  const finished = text.split("\n").some((l) => {
    try { return JSON.parse(l).type === "run_finished"; } catch { return false; }
  });
  const id = summary ? summary.run_id : "";
  if (want.has(id)) throw new Error(`run_id ${JSON.stringify(id)} is in two files: the check needs one run per id`);
  const status = statSync(f).isDirectory() ? stateOf(f).get(id) : summary?.status;
  want.set(id, { summary, file: f, cutOff: !finished, status });
}

process.chdir(exportDir);
const db = await DuckDBInstance.create(":memory:");
const con = await db.connect();
const run = async (name) => {
  if (!queries[name]) throw new Error(`README has no query ${name}`);
  return (await con.runAndReadAll(queries[name])).getRowObjectsJson();
};

let passed = 0, failed = 0;
const check = (what, ok, detail) => {
  if (ok) { passed++; return; }
  failed++;
  console.error(`FAIL ${what}: ${detail}`);
};
const num = (v) => (v === null || v === undefined ? 0 : Number(v));

// tokens and model time per run
const tokens = await run("tokens");
check("tokens: one row per run", tokens.length === want.size, `${tokens.length} rows, ${want.size} runs`);
for (const r of tokens) {
  const s = want.get(r.run_id)?.summary;
  if (!s) { check("tokens: run known", false, r.run_id); continue; }
  const t = s.stats.tokens;
  const got = [r.tokens_input, r.tokens_cached_input, r.tokens_cache_write_input, r.tokens_output, r.tokens_reasoning, r.model_ms].map(num);
  const exp = [t.input, t.cached_input, t.cache_write_input, t.output, t.reasoning, s.stats.model_ms];
  check(`tokens of ${r.run_id}`, JSON.stringify(got) === JSON.stringify(exp), `${got} vs stats ${exp}`);
}

// calls per tool and run
const tools = await run("tools");
const byRun = new Map();
for (const r of tools) {
  if (!byRun.has(r.run_id)) byRun.set(r.run_id, {});
  byRun.get(r.run_id)[r.name] = num(r.calls);
}
for (const [id, { summary }] of want) {
  if (!summary) continue;
  const got = byRun.get(id) || {};
  const exp = summary.stats.tools_by_name || {};
  const same = Object.keys(got).length === Object.keys(exp).length && Object.entries(exp).every(([k, v]) => got[k] === v);
  check(`tools_by_name of ${id}`, same, `${JSON.stringify(got)} vs stats ${JSON.stringify(exp)}`);
}

// failed calls and cut-off runs
const failedRows = await run("failed");
check("failed: one row per run", failedRows.length === want.size, `${failedRows.length} rows`);
for (const r of failedRows) {
  const w = want.get(r.run_id);
  if (!w) { check("failed: run known", false, r.run_id); continue; }
  check(`failed calls of ${r.run_id}`, num(r.failed_calls) === (w.summary ? w.summary.stats.failed_tool_calls : 0),
    `${r.failed_calls} vs stats ${w.summary?.stats.failed_tool_calls}`);
  check(`cut_off of ${r.run_id}`, r.cut_off === w.cutOff, `${r.cut_off}, the file has ${w.cutOff ? "no " : ""}run_finished`);
  if (w.summary) check(`status of ${r.run_id}`, r.status === w.status, `${r.status} vs ${w.status} (stats, or ls --runs of a run directory)`);
}

// tokens and model time by model and day
const days = await run("by-day");
const agg = new Map();
for (const { summary } of want.values()) {
  if (!summary) continue;
  const day = summary.started_at.startsWith("0001-") ? null : summary.started_at.slice(0, 10);
  const key = `${summary.model}|${day}`;
  const a = agg.get(key) || { runs: 0, in: 0, out: 0, model: 0 };
  a.runs++; a.in += summary.stats.tokens.input; a.out += summary.stats.tokens.output; a.model += summary.stats.model_ms;
  agg.set(key, a);
}
const emptyRuns = [...want.values()].filter((w) => !w.summary).length;
let dayRuns = 0;
for (const r of days) {
  dayRuns += num(r.runs);
  const key = `${r.model}|${r.day === null ? null : String(r.day).slice(0, 10)}`;
  const a = agg.get(key);
  if (!a) { check(`by-day ${key}`, r.model === "" && r.day === null, "a group stats does not have"); continue; }
  const extra = r.model === "" && r.day === null ? emptyRuns : 0; // files with no line at all
  check(`by-day ${key}`, num(r.runs) === a.runs + extra && num(r.tokens_input) === a.in && num(r.tokens_output) === a.out && num(r.model_ms) === a.model,
    `${JSON.stringify(r)} vs stats ${JSON.stringify(a)}`);
}
check("by-day: every run counted", dayRuns === want.size, `${dayRuns} of ${want.size}`);

// sessions: the runs that share a session_id, their tokens summed
const sessions = await run("sessions");
const bySession = new Map();
for (const { summary } of want.values()) {
  if (!summary || !summary.session_id) continue;
  const a = bySession.get(summary.session_id) || { runs: 0, in: 0, out: 0, calls: 0 };
  a.runs++; a.in += summary.stats.tokens.input; a.out += summary.stats.tokens.output; a.calls += summary.stats.tool_calls;
  bySession.set(summary.session_id, a);
}
check("sessions: one row per session", sessions.length === bySession.size, `${sessions.length} rows, ${bySession.size} sessions`);
for (const r of sessions) {
  const a = bySession.get(r.session_id);
  if (!a) { check(`session ${r.session_id} known`, false, "a session stats does not have"); continue; }
  const got = [r.runs, r.tokens_input, r.tokens_output, r.tool_calls].map(num);
  check(`session ${r.session_id}`, JSON.stringify(got) === JSON.stringify([a.runs, a.in, a.out, a.calls]), `${got} vs stats ${JSON.stringify(a)}`);
}
const seq = await run("conversation");
const seen = new Map();
for (const r of seq) {
  const n = (seen.get(r.session_id) || 0) + 1;
  seen.set(r.session_id, n);
  check(`session_seq of ${r.run_id}`, num(r.session_seq) === n, `${r.session_seq}, its place is ${n}`);
}

// the questions stats does not answer: they run, as written, and answer
// (on an export of runs without tool calls or notices, EMPTY=1, they run
// and answer nothing: every table has a file, empty or not)
for (const name of ["failing-tools", "durations", "slow-turns", "history"]) {
  const rows = await run(name);
  check(`${name} answers`, process.env.EMPTY === "1" || rows.length > 0, "no rows");
}

console.log(`duckdb: ${Object.keys(queries).length} README queries on ${want.size} runs`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
