// Compares the TypeScript reader's reports (stdin, one JSON object per
// line) with `uagent-stream stats` of the same files (run through the
// command named by UAGENT_STREAM). Exit 1 on any difference.
"use strict";
const { execFileSync } = require("node:child_process");
const lines = require("node:fs").readFileSync(0, "utf8").trim().split("\n");
const cmd = (process.env.UAGENT_STREAM || "uagent-stream").split(" ");
let failed = 0;
for (const text of lines) {
  const r = JSON.parse(text);
  let out;
  try {
    out = execFileSync(cmd[0], [...cmd.slice(1), "stats", "--allow-errors", r.file], { encoding: "utf8" });
  } catch (e) {
    out = e.stdout; // stats exits 1 on unreadable lines; its summary is still printed
  }
  const s = JSON.parse(out);
  const want = {
    tokens: s.stats.tokens,
    turn_started: s.stats.turns,
    model_responded: s.stats.model_responses,
    user_message: s.stats.user_messages,
    tool_calls: s.stats.tool_calls,
  };
  const got = {
    tokens: r.tokens,
    turn_started: r.counts.turn_started ?? 0,
    model_responded: r.counts.model_responded ?? 0,
    user_message: r.counts.user_message ?? 0,
    tool_calls: r.tool_calls,
  };
  const same = JSON.stringify(want) === JSON.stringify(got);
  console.log((same ? "same  " : "DIFFER") + " " + r.file + " " + JSON.stringify(r.counts));
  if (!same) {
    console.log("  stats:      " + JSON.stringify(want) + "\n  typescript: " + JSON.stringify(got));
    failed++;
  }
}
console.log(lines.length - failed + " passed, " + failed + " failed");
process.exit(failed ? 1 : 0);
