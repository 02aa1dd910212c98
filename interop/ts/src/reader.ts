// A TypeScript reader of uagent v1 streams, typed by the declarations that
// json-schema-to-typescript generated from schema/line.schema.json. For
// each file it prints one JSON object: the lines per type and the summed
// token usage, to be compared with `uagent-stream stats` on the same file.
import { readFileSync } from "node:fs";
import type { UagentV1StreamLine } from "./stream";

// The lines of the types this version of the contract knows: the members of
// the generated union whose type is a literal (the Unknown branch's type is
// any string). Derived from the schema, not listed by hand.
type KnownOf<L> = L extends { type: infer T } ? (string extends T ? never : L) : never;
type KnownLine = KnownOf<UagentV1StreamLine>;

// Every known type, once: a type added to the schema and missing here, or
// listed here and gone from the schema, does not compile.
const known: Record<KnownLine["type"], true> = {
  run_started: true, preflight_warning: true, user_message: true, developer_message: true, control_input: true,
  turn_started: true, model_responded: true, tool_called: true, tool_started: true, tool_finished: true,
  assistant_message: true, reasoning: true, runner_error: true, run_finished: true,
};

function isKnown(line: UagentV1StreamLine): line is KnownLine {
  return Object.hasOwn(known, line.type);
}

interface Report {
  file: string;
  lines: number;
  counts: Record<string, number>;
  tokens: { input: number; cached_input: number; cache_write_input: number; output: number; reasoning: number };
  tool_calls: number;
}

function read(file: string): Report {
  const report: Report = {
    file, lines: 0, counts: {},
    tokens: { input: 0, cached_input: 0, cache_write_input: 0, output: 0, reasoning: 0 },
    tool_calls: 0,
  };
  const calls = new Set<string>();
  let finished = false;
  for (const text of readFileSync(file, "utf8").split("\n")) {
    if (text.trim() === "") continue;
    const line = JSON.parse(text) as UagentV1StreamLine;
    report.lines++;
    const kind = isKnown(line) ? line.type : "unknown";
    report.counts[kind] = (report.counts[kind] ?? 0) + 1;
    if (!isKnown(line) || finished) continue; // the stats fold nothing after run_finished
    // The compiler checks that every known type is handled: adding a type
    // to the schema makes this switch fail to compile until it is.
    switch (line.type) {
      case "model_responded": {
        const u = line.usage;
        report.tokens.input += u?.input ?? 0;
        report.tokens.cached_input += u?.cached_input ?? 0;
        report.tokens.cache_write_input += u?.cache_write_input ?? 0;
        report.tokens.output += u?.output ?? 0;
        report.tokens.reasoning += u?.reasoning ?? 0;
        break;
      }
      case "tool_called":
      case "tool_started":
      case "tool_finished":
        calls.add(line.call_id);
        break;
      case "run_finished":
        finished = true;
        break;
      case "run_started":
      case "preflight_warning":
      case "user_message":
      case "developer_message":
      case "control_input":
      case "turn_started":
      case "assistant_message":
      case "reasoning":
      case "runner_error":
        break;
      default: {
        const unhandled: never = line;
        throw new Error("unhandled line type: " + JSON.stringify(unhandled));
      }
    }
  }
  report.tool_calls = calls.size;
  return report;
}

for (const file of process.argv.slice(2)) {
  console.log(JSON.stringify(read(file)));
}
