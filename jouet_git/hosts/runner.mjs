// jouet-git: the runner its in-process host plugins share (OpenCode, Pi, OpenClaw).
// Installed by `jouet setup opencode|pi|openclaw`; `jouet setup HOST --uninstall` removes it.
//
// Each check runs `jouet hook neutral --host HOST` (the host-neutral protocol: one JSON object on
// stdin, one on stdout) in the host's working directory. jouet gets 60 seconds. When it does not
// answer in time, crashes, or prints nothing this runner can parse, a tool call is blocked with
// "Blocked: jouet did not answer." (as the protocol's own runner does); a tool's result or the
// person's prompt is passed on as it was, and the reason is written to the console.
//
// The jouet to run is named in jouet.json beside this file ({"command": ["/path/to/jouet"]});
// without it, `jouet` is looked up on PATH.

import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

export const LIMIT_MS = 60_000;
export const NO_ANSWER = "Blocked: jouet did not answer.";
const MAX_OUTPUT = 16 * 1024 * 1024;

/** The settings in jouet.json at URL: {command: [program, ...args], limitMs}. */
export function loadSettings(url) {
  const settings = { command: ["jouet"], limitMs: LIMIT_MS };
  try {
    const data = JSON.parse(readFileSync(url, "utf8"));
    if (Array.isArray(data.command) && data.command.length > 0 && data.command.every((w) => typeof w === "string")) {
      settings.command = data.command;
    }
    if (Number.isInteger(data.limitMs) && data.limitMs > 0) settings.limitMs = data.limitMs;
  } catch {
    // No settings file, or one that does not parse: jouet on PATH, 60 seconds.
  }
  return settings;
}

/** What one answer says, or null when it is not the protocol's reply. */
export function parseAnswer(stdout) {
  let body;
  try {
    body = JSON.parse(stdout);
  } catch {
    return null;
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return null;
  const { ok, decision, onward, findings } = body;
  if (typeof ok !== "boolean" || (decision !== "allow" && decision !== "block") || typeof onward !== "string") {
    return null;
  }
  if (!Array.isArray(findings) || !findings.every((f) => typeof f === "string")) return null;
  return { ok, decision, onward, findings };
}

function argv(settings, host) {
  return [...settings.command.slice(1), "hook", "neutral", "--host", host];
}

function settle(code, signal, stdout, stderr, timedOut, limitMs) {
  if (timedOut) return { answered: false, why: `jouet took more than ${limitMs / 1000} s and was stopped` };
  const answer = parseAnswer(stdout);
  if (answer === null) {
    const detail = stderr.trim().split("\n").pop() || "";
    const how = signal ? `was killed by ${signal}` : `exited ${code}`;
    return { answered: false, why: `jouet ${how} without an answer${detail ? `: ${detail}` : ""}`, stderr };
  }
  return { answered: true, ...answer, code, stderr };
}

/** A runner for HOST: run(payload, cwd) -> Promise of the answer, runSync the same, blocking. */
export function createRunner({ command = ["jouet"], limitMs = LIMIT_MS, host, env = process.env }) {
  const settings = { command, limitMs };
  function run(payload, cwd) {
    return new Promise((resolve) => {
      let stdout = "";
      let stderr = "";
      let timedOut = false;
      let done = false;
      const finish = (result) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(result);
      };
      let child;
      try {
        child = spawn(settings.command[0], argv(settings, host), { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
      } catch (error) {
        finish({ answered: false, why: `cannot run ${settings.command[0]}: ${error.message}` });
        return;
      }
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, settings.limitMs);
      child.on("error", (error) => finish({ answered: false, why: `cannot run ${settings.command[0]}: ${error.message}` }));
      child.stdout.setEncoding("utf8");
      child.stderr.setEncoding("utf8");
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
        if (stdout.length > MAX_OUTPUT) child.kill("SIGKILL");
      });
      child.stderr.on("data", (chunk) => {
        if (stderr.length < MAX_OUTPUT) stderr += chunk;
      });
      child.on("close", (code, signal) => finish(settle(code, signal, stdout, stderr, timedOut, settings.limitMs)));
      child.stdin.on("error", () => {}); // jouet gone before reading: its exit says the rest
      child.stdin.end(JSON.stringify(payload));
    });
  }
  function runSync(payload, cwd) {
    const result = spawnSync(settings.command[0], argv(settings, host), {
      cwd, env, input: JSON.stringify(payload), encoding: "utf8", timeout: settings.limitMs, killSignal: "SIGKILL",
      maxBuffer: MAX_OUTPUT,
    });
    if (result.error && result.error.code !== "ETIMEDOUT") {
      return { answered: false, why: `cannot run ${settings.command[0]}: ${result.error.message}` };
    }
    const timedOut = Boolean(result.error) || (result.signal === "SIGKILL" && result.status === null);
    return settle(result.status, result.signal, result.stdout || "", result.stderr || "", timedOut, settings.limitMs);
  }
  return { run, runSync, host };
}

function report(host, what, why) {
  console.warn(`jouet (${host}): ${what}: ${why}`);
}

function withSession(payload, sessionId) {
  return typeof sessionId === "string" && sessionId ? { ...payload, session_id: sessionId } : payload;
}

/** Whether the host should run a tool call: {block, reason}. */
export async function checkToolCall(runner, { tool, args, sessionId, cwd }) {
  const payload = withSession({ stage: "tool_call", tool: String(tool), arguments: args ?? {} }, sessionId);
  if (typeof payload.arguments !== "string" && (typeof payload.arguments !== "object" || Array.isArray(payload.arguments))) {
    payload.arguments = { value: payload.arguments };
  }
  const answer = await runner.run(payload, cwd);
  return toolCallVerdict(runner, answer);
}

function toolCallVerdict(runner, answer) {
  if (!answer.answered) {
    report(runner.host, "a tool call was blocked", answer.why);
    return { block: true, reason: `${NO_ANSWER} (${answer.why})` };
  }
  if (answer.decision === "block" || !answer.ok) return { block: true, reason: answer.onward };
  return { block: false, reason: "" };
}

function textVerdict(runner, stage, text, answer) {
  if (!answer.answered) {
    report(runner.host, `${stage} passed on unscreened`, answer.why);
    return { text, changed: false, findings: [], answered: false };
  }
  return { text: answer.onward, changed: answer.onward !== text, findings: answer.findings, answered: true };
}

function textPayload(stage, text, tool, sessionId) {
  const payload = { stage, text };
  if (stage === "tool_result") payload.tool = String(tool || "unknown");
  return withSession(payload, sessionId);
}

/** TEXT screened at STAGE (tool_result, output or input): {text, changed, findings, answered}. */
export async function screenText(runner, stage, { text, tool, sessionId, cwd }) {
  if (typeof text !== "string" || text === "") return { text, changed: false, findings: [], answered: true };
  return textVerdict(runner, stage, text, await runner.run(textPayload(stage, text, tool, sessionId), cwd));
}

/** The same, blocking (for a host's synchronous hooks). */
export function screenTextSync(runner, stage, { text, tool, sessionId, cwd }) {
  if (typeof text !== "string" || text === "") return { text, changed: false, findings: [], answered: true };
  return textVerdict(runner, stage, text, runner.runSync(textPayload(stage, text, tool, sessionId), cwd));
}

function isText(part) {
  return part !== null && typeof part === "object" && part.type === "text" && typeof part.text === "string";
}

/** CONTENT (a list of {type: "text", text} and other parts) with each text part screened as a
 * tool's result; null when nothing changed. Other parts (images) are returned as they came. */
export async function screenParts(runner, content, { tool, sessionId, cwd }) {
  if (!Array.isArray(content)) return null;
  let changed = false;
  const out = [];
  for (const part of content) {
    if (isText(part)) {
      const result = await screenText(runner, "tool_result", { text: part.text, tool, sessionId, cwd });
      if (result.changed) {
        changed = true;
        out.push({ ...part, text: result.text });
        continue;
      }
    }
    out.push(part);
  }
  return changed ? out : null;
}

/** The same, blocking (for a host's synchronous hooks). */
export function screenPartsSync(runner, content, { tool, sessionId, cwd }) {
  if (!Array.isArray(content)) return null;
  let changed = false;
  const out = content.map((part) => {
    if (!isText(part)) return part;
    const result = screenTextSync(runner, "tool_result", { text: part.text, tool, sessionId, cwd });
    if (!result.changed) return part;
    changed = true;
    return { ...part, text: result.text };
  });
  return changed ? out : null;
}
