// Drives `uagent-stream a2a -- FAKE_UAGENT -state` with the official A2A
// JavaScript client (@a2a-js/sdk 1.3.0, A2A 1.0), as another agent does:
// the card, a streaming message, a second message that continues its
// context, get, list, cancel (SIGINT reaches the runner), resubscribe, a
// restart with the tasks still there, and the token.
//
//   UAGENT_STREAM=bin FAKE_UAGENT=bin node test.mjs
import { ClientFactory } from "@a2a-js/sdk/client";
import { Role, TaskState } from "@a2a-js/sdk";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Every file the test makes is under one directory, removed at exit.
const scratch = mkdtempSync(join(tmpdir(), "uagent-stream-a2a-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
const bin = process.env.UAGENT_STREAM, fake = process.env.FAKE_UAGENT;
let passed = 0, failed = 0;
const check = (what, ok, detail = "") => {
  if (ok) passed++;
  else { failed++; console.error(`FAIL ${what} ${detail}`); }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const state = mkdtempSync(join(scratch, "a2a-state-"));
const sigint = join(mkdtempSync(join(scratch, "a2a-")), "sigint");

// start serves the agent on a free port (the fake hangs, until SIGINT, on
// a prompt that says so: -hang applies to every run of this agent, so a
// second agent is started for it), and returns its URL and a stop.
async function start(extra = [], hang = false) {
  const args = ["a2a", "--addr", "127.0.0.1:0", "--state-dir", state, ...extra, "--", fake, "-state"];
  if (hang) args.push("-hang", "-sigint-to", sigint);
  const child = spawn(bin, args, { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, UAGENT_STATE_DIR: state } });
  let err = "";
  const url = await new Promise((res, rej) => {
    child.stderr.on("data", (b) => {
      err += b;
      const m = /uagent-stream: serving (http:\/\/127\.0\.0\.1:\d+\/)/.exec(err);
      if (m) res(m[1]);
    });
    child.on("exit", (code) => rej(new Error(`a2a exited ${code}: ${err}`)));
  });
  const exited = new Promise((res) => child.on("exit", (code) => res(code)));
  return { url, stop: async () => { child.kill("SIGINT"); return exited; } };
}

const text = (parts) => (parts || []).filter((p) => p.content?.$case === "text").map((p) => p.content.value).join("");
const message = (t, contextId = "") => ({ message: { messageId: crypto.randomUUID(), role: Role.ROLE_USER, contextId, parts: [{ content: { $case: "text", value: t } }] } });
const answer = (task) => text((task.artifacts || []).find((a) => a.name === "answer")?.parts);

let first, second;
{
  const agent = await start();
  const client = await new ClientFactory().createFromUrl(agent.url);
  const card = await (await fetch(agent.url + ".well-known/agent-card.json")).json();
  check("the card: streaming, the interface at the real port", card.capabilities?.streaming === true && card.supportedInterfaces?.[0]?.url === agent.url, JSON.stringify(card));

  // A streaming message: the task, working, the tool call's steps, the answer, completed.
  const kinds = [];
  const progress = [];
  let task;
  for await (const ev of client.sendMessageStream(message("the first question"))) {
    const p = ev.payload ?? ev;
    const c = p.$case ?? (p.kind || (p.status ? "statusUpdate" : p.artifact ? "artifactUpdate" : p.id ? "task" : "?"));
    const v = p.value ?? p;
    kinds.push(c);
    if (c === "task") task = v;
    if (c === "statusUpdate" && v.status?.message) progress.push(v.status.message.metadata?.["uagentkit/kind"]);
    if (c === "statusUpdate" && v.status?.state === TaskState.TASK_STATE_COMPLETED) kinds.push("completed");
    if (c === "artifactUpdate") check("the answer as an artifact", text(v.artifact.parts) === "answer to: the first question", JSON.stringify(v));
  }
  check("streaming: task, status updates, the artifact, completed", kinds[0] === "task" && kinds.includes("artifactUpdate") && kinds.at(-1) === "completed", kinds.join(","));
  check("progress: status messages marked by their kind", progress.length > 0 && progress.every((k) => ["tool_call", "text_delta", "assistant_message", "notice"].includes(k)), JSON.stringify(progress));
  first = await client.getTask({ id: task.id });
  check("get: completed, with its answer", first.status?.state === TaskState.TASK_STATE_COMPLETED && answer(first) === "answer to: the first question", JSON.stringify(first));
  check("get: the history is the conversation, not the progress", first.history?.length === 1 && text(first.history[0].parts) === "the first question", JSON.stringify(first.history));
  const again = [];
  for await (const ev of client.resubscribeTask({ id: task.id })) again.push(ev.payload?.value ?? ev.payload ?? ev);
  check("resubscribe to a finished task: the task as it ended, then the end", again.length === 1 && again[0].status?.state === TaskState.TASK_STATE_COMPLETED && answer(again[0]) === "answer to: the first question", JSON.stringify(again));
  check("a new context is a UUID v4", /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(first.contextId), first.contextId);

  // A second message continues the context: the same uagent session.
  const res = await client.sendMessage(message("the second question", first.contextId));
  second = res.payload?.value ?? res.task ?? res;
  check("a second message continues the conversation", answer(second) === "answer to: the second question (after: the first question)", JSON.stringify(second));
  const list = await client.listTasks({ contextId: first.contextId, pageSize: 10, includeArtifacts: true });
  check("list: the context's two tasks, the latest first", list.tasks?.length === 2 && list.tasks[0].id === second.id, JSON.stringify(list));
  check("the agent exits 0 on SIGINT", (await agent.stop()) === 0);
}

// A restart: the tasks are runs, and still there.
{
  const agent = await start();
  const client = await new ClientFactory().createFromUrl(agent.url);
  const got = await client.getTask({ id: second.id });
  check("after a restart, get finds the task, its answer", got.status?.state === TaskState.TASK_STATE_COMPLETED && answer(got) === "answer to: the second question (after: the first question)", JSON.stringify(got));
  const list = await client.listTasks({ contextId: first.contextId, pageSize: 10 });
  check("after a restart, list finds both", list.tasks?.length === 2, JSON.stringify(list));
  try {
    await client.cancelTask({ id: second.id });
    check("cancelling a finished task is refused", false, "it answered");
  } catch (e) {
    check("cancelling a finished task is the not-cancelable error", /cancel/i.test(String(e?.message ?? e)), String(e));
  }
  await agent.stop();
}

// Cancel and resubscribe, on a run that works until SIGINT.
{
  const agent = await start([], true);
  const client = await new ClientFactory().createFromUrl(agent.url);
  const res = await client.sendMessage({ ...message("hang on", first.contextId), configuration: { returnImmediately: true, acceptedOutputModes: [] } });
  const task = res.payload?.value ?? res.task ?? res;
  let working = false;
  for (let i = 0; i < 200 && !working; i++) {
    const got = await client.getTask({ id: task.id });
    working = got.status?.state === TaskState.TASK_STATE_WORKING && /sleep 1000/.test(text(got.status?.message?.parts));
    if (!working) await sleep(25);
  }
  check("the run works (its tool call said)", working);
  const states = [];
  const sub = (async () => {
    for await (const ev of client.resubscribeTask({ id: task.id })) {
      const p = ev.payload ?? ev;
      const v = p.value ?? p;
      if (v.status?.state !== undefined) states.push(v.status.state);
    }
  })();
  await sleep(200);
  const canceled = await client.cancelTask({ id: task.id });
  check("cancel: the task ends canceled", canceled.status?.state === TaskState.TASK_STATE_CANCELED, JSON.stringify(canceled));
  check("cancel: SIGINT reached the runner", existsSync(sigint) && readFileSync(sigint, "utf8") === "SIGINT\n");
  await sub;
  check("resubscribe: the rest of the task, to canceled", states.at(-1) === TaskState.TASK_STATE_CANCELED, JSON.stringify(states));
  await agent.stop();
}

// The token: every request but the card's needs it.
{
  const tokenFile = join(mkdtempSync(join(scratch, "a2a-")), "token");
  writeFileSync(tokenFile, "s3cret-token\n");
  const agent = await start(["--token-file", tokenFile]);
  const card = await fetch(agent.url + ".well-known/agent-card.json");
  check("the card without the token", card.status === 200);
  const client = await new ClientFactory().createFromUrl(agent.url);
  try {
    await client.getTask({ id: first.id });
    check("a request without the token is refused", false, "it answered");
  } catch (e) {
    check("a request without the token is refused (401)", /401|nauthori/.test(String(e?.message ?? e)), String(e));
  }
  const got = await client.getTask({ id: first.id }, { serviceParameters: { Authorization: "Bearer s3cret-token" } });
  check("with the token, it answers", got.id === first.id, JSON.stringify(got));
  await agent.stop();
}

console.log(`a2a: the official JavaScript client drove uagent-stream a2a`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
