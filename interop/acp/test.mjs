// Drives `uagent-stream acp -- FAKE_UAGENT …` with the official ACP client
// SDK (@agentclientprotocol/sdk), through its client API, as an editor
// does: initialize, sessions, prompts, updates, cancel.
//
//   UAGENT_STREAM=bin FAKE_UAGENT=bin RUN=testdata/run.jsonl node test.mjs
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Readable, Writable } from "node:stream";

// Every file the test makes is under one directory, removed at exit.
const scratch = mkdtempSync(join(tmpdir(), "uagent-stream-acp-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
const bin = process.env.UAGENT_STREAM, fake = process.env.FAKE_UAGENT, run = resolve(process.env.RUN);
let passed = 0, failed = 0;
const check = (what, ok, detail = "") => {
  if (ok) passed++;
  else { failed++; console.error(`FAIL ${what} ${detail}`); }
};

// agent starts the agent on a command and runs op with a connected client;
// it returns the updates by session and checks that the agent exits 0 once
// the client has gone.
async function agent(command, op, flags = []) {
  const child = spawn(bin, ["acp", "--grace", "300ms", ...flags, "--", fake, ...command], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((res) => child.on("exit", (code, signal) => res({ code, signal })));
  const updates = new Map();
  const app = client({ name: "uagent-stream-check" }).onNotification(methods.client.session.update, ({ params }) => {
    if (!updates.has(params.sessionId)) updates.set(params.sessionId, []);
    updates.get(params.sessionId).push(params.update);
  });
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  let result;
  try {
    result = await app.connectWith(stream, async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      check("initialize: protocol version 1", init.protocolVersion === 1, JSON.stringify(init));
      return op(ctx, updates);
    });
  } finally {
    child.stdin.end();
  }
  const { code } = await exited;
  check(`the agent exits 0 when the editor closes (${command.join(" ")})`, code === 0, `code ${code}`);
  return result;
}

const session = async (ctx) => (await ctx.request(methods.agent.session.new, { cwd: mkdtempSync(join(scratch, "acp-")), mcpServers: [] })).sessionId;
const prompt = (ctx, sessionId, text) => ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
const kinds = (ups) => ups.map((u) => u.sessionUpdate + (u.toolCallId ? ` ${u.toolCallId} ${u.status}` : ""));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A prompt on a recorded run: the updates in order, every tool call ending
// in the right status, the answer text, end_turn; the prompt on stdin.
{
  const stdinFile = join(mkdtempSync(join(scratch, "acp-")), "stdin.txt");
  await agent(["-stdin-to", stdinFile, "-replay", run], async (ctx, updates) => {
    const id = await session(ctx);
    const res = await prompt(ctx, id, "count the lines");
    check("end_turn", res.stopReason === "end_turn", JSON.stringify(res));
    const ups = updates.get(id) || [];
    const want = ["agent_message_chunk", "agent_thought_chunk",
      "tool_call call_ls pending", "tool_call call_wc pending", "tool_call call_cat pending",
      "tool_call_update call_ls in_progress", "tool_call_update call_wc in_progress", "tool_call_update call_cat in_progress",
      "tool_call_update call_ls completed", "tool_call_update call_wc completed", "tool_call_update call_cat failed",
      "agent_message_chunk"];
    check("the updates, in order", JSON.stringify(kinds(ups)) === JSON.stringify(want), JSON.stringify(kinds(ups)));
    check("the answer", ups.at(-1)?.content?.text === "a.txt has 3 lines; b.txt does not exist.", JSON.stringify(ups.at(-1)));
    check("the tool call's kind and input", ups[2]?.kind === "execute" && ups[2]?.rawInput?.command === "ls", JSON.stringify(ups[2]));
  });
  check("the prompt on the runner's stdin", readFileSync(stdinFile, "utf8") === "count the lines");
}

// A failing run: a JSON-RPC error naming the status.
await agent(["-replay", run, "-lines", "12", "-exit", "1"], async (ctx) => {
  const id = await session(ctx);
  try {
    await prompt(ctx, id, "x");
    check("a failing run is an error", false, "it answered");
  } catch (e) {
    check("a failing run is an error naming its status", String(e.message).includes("status error") && e.data?.status === "error", JSON.stringify(e));
  }
});

// Cancel during a hanging run: cancelled within the grace period, no
// process left.
{
  const pidFile = join(mkdtempSync(join(scratch, "acp-")), "pid");
  await agent(["-replay", run, "-lines", "12", "-hang", "-grandchild", pidFile], async (ctx, updates) => {
    const id = await session(ctx);
    const answer = prompt(ctx, id, "x");
    for (let i = 0; i < 200 && (updates.get(id) || []).length < 6; i++) await sleep(20);
    const start = Date.now();
    await ctx.notify(methods.agent.session.cancel, { sessionId: id });
    const res = await answer;
    check("cancelled", res.stopReason === "cancelled", JSON.stringify(res));
    check("within the grace period", Date.now() - start < 3000, `${Date.now() - start} ms`);
  });
  const pid = Number(readFileSync(pidFile, "utf8"));
  let alive = true;
  for (let i = 0; i < 100 && alive; i++) {
    try { process.kill(pid, 0); await sleep(20); } catch { alive = false; }
  }
  check("no process left", !alive, `pid ${pid}`);
}

// Two sessions prompting at once.
await agent(["-replay", run, "-delay", "5ms"], async (ctx, updates) => {
  const [a, b] = [await session(ctx), await session(ctx)];
  const [ra, rb] = await Promise.all([prompt(ctx, a, "x"), prompt(ctx, b, "y")]);
  check("two sessions at once", ra.stopReason === "end_turn" && rb.stopReason === "end_turn");
  check("each its own updates", (updates.get(a) || []).length === 12 && (updates.get(b) || []).length === 12);
});

// Hostile text in every field: no terminal control reaches the editor.
{
  const evil = "a\u001b[2Jb\u009bc\u202ed\u2066e\u0007f";
  const at = "2026-09-23T12:00:00Z";
  const lines = [
    { type: "run_started", run_id: evil }, { type: "preflight_warning", code: evil, message: evil },
    { type: "runner_error", message: evil }, { type: "reasoning", text: evil },
    { type: "tool_called", call_id: evil, name: evil, label: evil, arguments: JSON.stringify({ [evil]: evil }) },
    { type: "tool_started", call_id: evil, op_id: "o", name: evil, label: evil },
    { type: "tool_finished", call_id: evil, op_id: "o", name: evil, label: evil, ok: false, detail: evil, duration_ms: 1 },
    { type: "assistant_message", text: evil, final: true },
    { type: "run_finished", summary: { status: "ok" } },
  ].map((l) => JSON.stringify({ v: 1, at, ...l }) + "\n").join("");
  const file = join(mkdtempSync(join(scratch, "acp-")), "hostile.jsonl");
  writeFileSync(file, lines);
  await agent(["-replay", file], async (ctx, updates) => {
    const id = await session(ctx);
    await prompt(ctx, id, "x");
    const text = JSON.stringify(updates.get(id));
    const raw = JSON.parse(text);
    const strings = [];
    const walk = (v) => { if (typeof v === "string") strings.push(v); else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) { strings.push(k); walk(x); } };
    walk(raw);
    const bad = strings.filter((s) => /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u.test(s));
    check("hostile text is escaped in every update", bad.length === 0 && strings.length > 10, JSON.stringify(bad));
  });
}

// One conversation, one uagent session: two prompts run with one
// --session, the ACP session's id; the effort chosen reaches the next run;
// after the agent restarts, session/list shows the session with its first
// prompt as title, session/load replays both exchanges, and a third
// prompt continues it. The fake uagent saves its runs in the state
// directory as uagent does (runner records), and answers with the prompts
// of the session that came before.
{
  const state = mkdtempSync(join(scratch, "acp-state-"));
  const args = join(mkdtempSync(join(scratch, "acp-")), "args.txt");
  const cwd = mkdtempSync(join(scratch, "acp-cwd-"));
  process.env.UAGENT_STATE_DIR = state;
  const said = (ups, kind) => (ups || []).filter((u) => u.sessionUpdate === kind).map((u) => u.content?.text);
  let id;
  await agent(["-state", "-args-to", args], async (ctx, updates) => {
    const s = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });
    id = s.sessionId;
    const effort = (s.configOptions || []).find((o) => o.id === "effort");
    check("session/new offers the effort", effort?.category === "thought_level" && effort?.options?.map((o) => o.value).join() === "low,medium,high,xhigh,max", JSON.stringify(s.configOptions));
    await prompt(ctx, id, "the first question");
    const set = await ctx.request(methods.agent.session.setConfigOption, { sessionId: id, configId: "effort", value: "low" });
    check("the effort is set", set.configOptions?.find((o) => o.id === "effort")?.currentValue === "low", JSON.stringify(set));
    await prompt(ctx, id, "the second question");
    check("the conversation goes on", said(updates.get(id), "agent_message_chunk").includes("answer to: the second question (after: the first question)"), JSON.stringify(said(updates.get(id), "agent_message_chunk")));
  });
  const runs = readFileSync(args, "utf8").trim().split("\n");
  check("two prompts, one --session: the ACP session's id", runs.length === 2 && runs.every((r) => r.includes(`--session ${id}`)), JSON.stringify(runs));
  check("the effort set to low reaches the next run", !runs[0].includes("-e low") && runs[1].endsWith("-e low"), JSON.stringify(runs));
  await agent(["-state", "-args-to", args], async (ctx, updates) => {
    const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const caps = init.agentCapabilities || {};
    check("initialize offers loadSession, list, resume and close", caps.loadSession === true && caps.sessionCapabilities?.list && caps.sessionCapabilities?.resume && caps.sessionCapabilities?.close, JSON.stringify(caps));
    const list = await ctx.request(methods.agent.session.list, { cwd });
    check("after a restart, session/list shows the session, its first prompt the title", list.sessions?.length === 1 && list.sessions[0].sessionId === id && list.sessions[0].title === "the first question" && !!list.sessions[0].updatedAt, JSON.stringify(list));
    await ctx.request(methods.agent.session.load, { sessionId: id, cwd, mcpServers: [] });
    const ups = updates.get(id) || [];
    check("session/load replays the user's text", JSON.stringify(said(ups, "user_message_chunk")) === JSON.stringify(["the first question", "the second question"]), JSON.stringify(said(ups, "user_message_chunk")));
    check("session/load replays the answers", JSON.stringify(said(ups, "agent_message_chunk")) === JSON.stringify(["answer to: the first question", "answer to: the second question (after: the first question)"]), JSON.stringify(said(ups, "agent_message_chunk")));
    check("session/load replays the tool calls to their last state", ups.filter((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed").length === 2, JSON.stringify(kinds(ups)));
    await prompt(ctx, id, "the third question");
    check("a third prompt continues the session", said(updates.get(id), "agent_message_chunk").includes("answer to: the third question (after: the first question | the second question)"), JSON.stringify(said(updates.get(id), "agent_message_chunk")));
    try {
      await ctx.request(methods.agent.session.load, { sessionId: "00000000-0000-4000-8000-000000000000", cwd, mcpServers: [] });
      check("session/load of an unknown session is an error", false, "it answered");
    } catch (e) {
      check("session/load of an unknown session is an invalid-params error", e.code === -32602, JSON.stringify(e));
    }
  });
  delete process.env.UAGENT_STATE_DIR;
}

// A history in two homes, uagent's and uah's (testdata/history): every
// session of the workspace once, titled by uah's sidecar where it has
// one, the subagent under its parent (in _meta), not at the top; a
// subagent's session loads by its id.
{
  const history = resolve(process.env.HISTORY);
  const flags = ["--state-dir", join(history, "uagent"), "--state-dir", join(history, "uah")];
  await agent(["-state"], async (ctx, updates) => {
    const list = await ctx.request(methods.agent.session.list, { cwd: "/home/dev/demo" });
    const top = (list.sessions || []).map((s) => [s.sessionId, s.title]);
    check("session/list: the sessions of both homes, once, with uah's titles", JSON.stringify(top) === JSON.stringify([
      ["4d5e6f70-0000-4000-8000-000000000003", "Summarize the log."],
      ["7a1b2c3d-0000-4000-8000-000000000001", "Make the tests pass, then tell me why they failed"],
      ["5f3c2a1e-1111-4222-8333-944455556666", "Now list b.txt."],
    ]), JSON.stringify(top));
    const parent = (list.sessions || []).find((s) => s.sessionId.startsWith("7a1b2c3d"));
    const subs = parent?._meta?.["uagentkit/subagents"] || [];
    check("session/list: the subagent under its parent", subs.length === 1 && subs[0].sessionId === "subagent-9e8f7a6b-0000-4000-8000-000000000002" && subs[0].title === "Find the failing test.", JSON.stringify(parent));
    const sub = subs[0]?.sessionId;
    await ctx.request(methods.agent.session.load, { sessionId: sub, cwd: history, mcpServers: [] });
    const said = (updates.get(sub) || []).filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content?.text);
    check("session/load of the subagent's session", JSON.stringify(said) === JSON.stringify(["Find the failing test."]), JSON.stringify(said));
  }, flags);
}

console.log(`acp: the official client SDK drove uagent-stream acp`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
