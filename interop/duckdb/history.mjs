// Runs docs/tables.md's "history" query in DuckDB, as written, on an export (with
// --content) of testdata/history, uagent's state directory and uah's home,
// and checks the sessions table's uah columns against what that history
// holds, written by hand in testdata/history/README.md: each session once,
// its title (uah's sidecar's first prompt, else its first run's), where
// uah began it, and a subagent's parent.
//
//   node history.mjs EXPORT_DIR docs/tables.md
import { DuckDBInstance } from "@duckdb/node-api";
import { readFileSync } from "node:fs";

const [exportDir, readmePath] = process.argv.slice(2);
const readme = readFileSync(readmePath, "utf8");
const m = /```sql\n(-- history:[\s\S]*?)```/.exec(readme);
if (!m) throw new Error("README has no history query");
process.chdir(exportDir);
const con = await (await DuckDBInstance.create(":memory:")).connect();
const rows = (await con.runAndReadAll(m[1])).getRowObjectsJson().map((r) => [r.session_id, r.source, r.title, r.parent_session_id, Number(r.runs)]);
const want = [
  ["5f3c2a1e-1111-4222-8333-944455556666", "", "Now list b.txt.", "", 1],
  ["7a1b2c3d-0000-4000-8000-000000000001", "tui", "Make the tests pass, then tell me why they failed", "", 1],
  ["subagent-9e8f7a6b-0000-4000-8000-000000000002", "subagent", "Find the failing test.", "7a1b2c3d-0000-4000-8000-000000000001", 1],
  ["4d5e6f70-0000-4000-8000-000000000003", "run", "Summarize the log.", "", 2],
];
const ok = JSON.stringify(rows) === JSON.stringify(want);
console.log(`duckdb: the history query on an export of uagent's and uah's homes: ${ok ? "as written by hand" : "FAIL"}`);
if (!ok) {
  console.error(`got  ${JSON.stringify(rows)}\nwant ${JSON.stringify(want)}`);
  process.exit(1);
}
