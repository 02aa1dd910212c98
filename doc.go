// Package stream implements the uagent v1 JSONL stream contract: the line
// format that `uagent --stream` writes, one JSON object per line, and that
// programs outside uagent read.
//
// The package covers the whole life of a stream:
//
//   - write: domain events ([Event]) become wire DTOs ([EventToDTO]) and one
//     line each through a [Sink];
//   - read: a [Decoder] turns lines back into the same DTO values, surviving
//     long lines, unknown types, bad lines and cut-off endings;
//   - summarize: a [StatsCollector] recomputes a run's [Stats] exactly as the
//     uagent runner does, and [Summarize] rebuilds a run's [SummaryDTO];
//   - check: [Validate] reports every violation of the stream rules;
//   - drive: [Start] runs `uagent --stream` and reports its [Outcome];
//     [Open] replays a recording through the same interface.
//
// # Wire
//
// Every line is {"v":1,"type":"…","at":"…", …fields}. at is the event's time
// in UTC, RFC 3339 with nanoseconds and trailing zeros trimmed. Writers emit
// fields in the order of the DTO structs; readers accept any key order and
// ignore unknown fields and unknown event types. A stream that has started
// ends with exactly one run_finished line.
//
// One table lists the event types (wire name, DTO type, domain type).
// Encoding, decoding, validation and the JSON Schema in schema/ all read it.
package stream
