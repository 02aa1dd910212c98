// bench.mjs DIR: DuckDB's CPU for "tokens and tool calls per run" over
// DIR/*.jsonl, one thread, timed inside the process (its start-up not
// counted), four rounds: the peer of `uagent-stream stats` in
// BENCHMARKS.md ("Many runs").
//
//   cd bench && go run ./split -size 95 -o /tmp/many
//   cd interop/duckdb && npm ci && node bench.mjs /tmp/many
import { DuckDBInstance } from "@duckdb/node-api";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node bench.mjs DIR");
  process.exit(2);
}
const db = await DuckDBInstance.create(":memory:", { threads: "1" });
const con = await db.connect();
const glob = `${dir}/*.jsonl`.replaceAll("'", "''");
const q = `select filename, sum(usage.input), sum(usage.output), count(*) filter (where type = 'tool_called')
from read_ndjson('${glob}', filename = true, columns = {type: 'VARCHAR', usage: 'STRUCT(input BIGINT, output BIGINT)'}, maximum_object_size = 100000000)
group by all`;
for (let i = 0; i < 4; i++) {
  const c0 = process.cpuUsage();
  const r = await con.runAndReadAll(q);
  const c = process.cpuUsage(c0);
  console.log(`duckdb: ${r.getRows().length} runs, cpu ${((c.user + c.system) / 1e6).toFixed(3)} s (user ${(c.user / 1e6).toFixed(3)}, system ${(c.system / 1e6).toFixed(3)})`);
}
