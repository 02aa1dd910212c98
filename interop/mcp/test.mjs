// Drives `uagent-stream mcp` with the official MCP TypeScript client SDK
// (@modelcontextprotocol/sdk), as an agent's client does: it starts the
// server on stdio over a generated history, lists its tools and calls
// each, and holds every answer to what the command itself prints of the
// same history (ls --json, ls --search, usage --json, cat).
//
//   UAGENT_STREAM=bin HOMES="home1 home2" node test.mjs
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { execFileSync } from "node:child_process";
import { isDeepStrictEqual } from "node:util";

const bin = process.env.UAGENT_STREAM;
const homes = process.env.HOMES.split(/\s+/).filter(Boolean).flatMap((h) => ["--state-dir", h]);
const BIG = "20261201-090000-b16b16b1", HOSTILE = "20261201-100000-4057113e";
const hostile = "\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\u202e\u200b\x00<script>&";
let passed = 0, failed = 0;
const check = (what, ok, detail = "") => {
  if (ok) passed++;
  else { failed++; console.error(`FAIL ${what} ${String(detail).slice(0, 2000)}`); }
};
const cli = (...args) => execFileSync(bin, [...args, ...homes], { maxBuffer: 64 << 20, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, NO_COLOR: "1" } });
const raw = (s) => ["\x1b", "\x07", "\x00", "\u202e", "\u200b"].filter((c) => s.includes(c));

const transport = new StdioClientTransport({ command: bin, args: ["mcp", "--timezone", "UTC", ...homes], stderr: "inherit" });
const client = new Client({ name: "uagent-stream-mcp-check", version: "1" });
await client.connect(transport);
const proc = transport._process; // to see how it exits
const exited = new Promise((res) => proc.once("exit", (code, signal) => res({ code, signal, at: Date.now() })));

const call = async (name, args = {}) => {
  const res = await client.callTool({ name, arguments: args });
  return { res, text: res.content?.[0]?.text ?? "", out: res.structuredContent, size: Buffer.byteLength(JSON.stringify(res)) };
};
// all pages of a listing's items, by its cursor
const pages = async (name, args, key) => {
  const items = [];
  let cursor;
  for (let i = 0; i < 1000; i++) {
    const { res, out } = await call(name, { ...args, ...(cursor ? { cursor } : {}) });
    if (res.isError) throw new Error(`${name}: ${res.content[0].text}`);
    items.push(...out[key]);
    if (!(cursor = out.next_cursor)) return items;
  }
  throw new Error(`${name}: no end to its pages`);
};

// Its tools, each with a schema for its input and for its output.
{
  const { tools } = await client.listTools();
  check("tools: sessions, search, get, usage", isDeepStrictEqual(tools.map((t) => t.name).sort(), ["get", "search", "sessions", "usage"]), tools.map((t) => t.name));
  for (const t of tools) {
    check(`${t.name}: input and output schemas`, t.inputSchema?.type === "object" && t.outputSchema?.type === "object", JSON.stringify(t));
    check(`${t.name}: read-only`, t.annotations?.readOnlyHint === true);
  }
}

// sessions, a page at a time, are ls --json's.
{
  const want = JSON.parse(cli("ls", "--json"));
  const got = await pages("sessions", { limit: 37 }, "sessions");
  check(`sessions equal ls --json's (${want.length})`, want.length > 50 && isDeepStrictEqual(got, want), `${got.length} vs ${want.length}`);
  const { out } = await call("sessions", { source: "tui", limit: 5 });
  check("sessions: a filter", out.sessions.length === 5 && out.sessions.every((s) => s.source === "tui"), JSON.stringify(out).slice(0, 300));
}

// search hits are ls --search's, in its order.
{
  const text = "make the decoder";
  const want = JSON.parse(cli("ls", "--search", text, "--json")).flatMap((s) => (s.matches ?? []).map((m) => ({ session_id: s.session_id, run_id: m.run_id, at: m.at, line: m.line, snippet: m.snippet })));
  const got = await pages("search", { text }, "hits");
  check(`search hits equal ls --search's (${want.length})`, want.length > 100 && isDeepStrictEqual(got, want), `${got.length} vs ${want.length}`);
}

// A run's text holds its prompt and answer; a session is its runs.
{
  const runs = JSON.parse(cli("ls", "--runs", "--json"));
  const r = runs.find((x) => x.title.startsWith("task 7:"));
  const { res, out, text } = await call("get", { id: r.run_id });
  check("get a run: its prompt and answer", !res.isError && out.text.includes("task 7: make the decoder faster") && out.text.includes("Done.") && text.includes(out.text), text.slice(0, 500));
  check("get a run: its status and cost", out.kind === "run" && out.status === r.status && isDeepStrictEqual(out.cost_usd, r.cost_usd), JSON.stringify(out).slice(0, 500));
  const s = await call("get", { id: r.session_id });
  check("get a session", !s.res.isError && s.out.kind === "session" && s.out.text.includes("task 7: make the decoder faster"), s.text.slice(0, 300));
}

// usage is usage --json's, by every grouping.
for (const by of ["day", "week", "month", "session", "model", "workspace"]) {
  const want = JSON.parse(cli("usage", "--by", by, "--breakdown", "--json", "--timezone", "UTC"));
  const { out } = await call("usage", { by, breakdown: true });
  check(`usage by ${by}: rows and total equal usage --json's`, isDeepStrictEqual(out.rows, want.rows) && isDeepStrictEqual(out.total, want.total) && out.estimate === want.estimate,
    JSON.stringify({ got: out.total, want: want.total }));
}

// A 5 MB answer comes back in pages of at most 256 KiB, which together are
// what cat prints.
{
  const want = cli("cat", "--no-color", BIG);
  let got = "", cursor, n = 0, biggest = 0;
  for (; n < 1000; n++) {
    const { res, out, size } = await call("get", { id: BIG, ...(cursor ? { cursor } : {}) });
    if (res.isError) { check("get a 5 MB run", false, res.content[0].text); break; }
    biggest = Math.max(biggest, size);
    got += out.text;
    if (!(cursor = out.next_cursor)) break;
  }
  check(`a 5 MB answer in bounded pages (${n + 1} pages, the biggest ${biggest} bytes)`, want.length > 5e6 && n > 10 && biggest <= 256 * 1024);
  check("the pages are cat's text", got === want, `${got.length} vs ${want.length}`);
}

// A hostile title comes back escaped: its value as ls --json's, no raw
// control, bidi or zero-width character in any text.
{
  const sessions = await pages("sessions", { limit: 1000 }, "sessions");
  const h = sessions.find((s) => s.title.startsWith("Say hi"));
  check("the hostile title, as it is", h?.title === "Say hi " + hostile, JSON.stringify(h?.title));
  const list = await call("sessions", { limit: 1000 });
  check("sessions' text: nothing raw", raw(list.text).length === 0 && list.text.includes("\\u202e"), raw(list.text));
  const g = await call("get", { id: HOSTILE });
  check("get's text: nothing raw", !g.res.isError && raw(g.text).length === 0 && raw(g.out.text).length === 0 && g.text.includes("\\u202e"), raw(g.text));
  const s = await call("search", { text: "say hi" });
  check("search's text: nothing raw", raw(s.text).length === 0 && s.out.hits.length > 0, s.text.slice(0, 300));
}

// An unknown id is the tool's error, naming it; the next call works.
{
  const bad = await call("get", { id: "no-such-run" });
  check("an unknown id is an error naming it", bad.res.isError === true && bad.text.includes("no-such-run"), bad.text);
  const next = await call("get", { id: "latest" });
  check("the next call works", !next.res.isError && next.out.kind === "run", next.text.slice(0, 200));
}

// Each run and session is a resource.
{
  const { resources, nextCursor } = await client.listResources();
  check("resources: uagent:// URIs, a page at a time", resources.length > 0 && resources.every((r) => r.uri.startsWith("uagent://")) && nextCursor, resources.length);
  const run = resources.find((r) => r.uri.startsWith("uagent://run/")) ?? { uri: `uagent://run/${HOSTILE}` };
  const read = await client.readResource({ uri: run.uri });
  check("a resource reads", read.contents[0].text.length > 0, run.uri);
}

// It exits, 0, when its stdin closes (the SDK's close ends stdin, then
// waits 2 s before it sends SIGTERM).
{
  const closed = Date.now();
  await client.close();
  const { code, signal, at } = await exited;
  check("the server exits when its stdin closes", code === 0 && signal === null && at - closed < 1900, JSON.stringify({ code, signal, ms: at - closed }));
}

console.log(`mcp: ${passed} checks passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
