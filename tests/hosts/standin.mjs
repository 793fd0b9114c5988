// Stand-in hosts for jouet's in-process plugins: each loads an installed plugin the way its host
// does and calls its hooks the way the host calls them, as their public sources have it:
//
// - OpenCode (anomalyco/opencode packages/opencode/src/plugin/index.ts): every export of the module
//   is a plugin function (newer versions also take a default {id, server} object); it is called
//   with the context and returns hooks; `trigger(name, input, output)` awaits each hook in turn
//   with the same output object, which hooks mutate; a throw from tool.execute.before fails the
//   tool with that error.
// - Pi (badlogic/pi-mono packages/coding-agent/src/core/extensions/runner.ts, agent-session.ts):
//   the default export is called with an API whose on(event, handler) registers handlers called
//   with (event, ctx). tool_call: the first result with block stops the call, and a handler that
//   throws blocks it too. tool_result: results merge (content, details, isError), a throw is
//   reported and skipped, and the session ignores the result for a failed tool. input: transforms
//   chain.
// - OpenClaw (openclaw/openclaw docs/plugins/hooks/*.md, manifest.md): openclaw.plugin.json (id,
//   configSchema) and package.json's openclaw.extensions name the entry; its default export's
//   register(api) registers handlers with api.on(hook, handler, {timeoutMs}). before_tool_call is a
//   gate: a block is final, and a handler that throws or runs past its budget (15 s by default)
//   blocks the call. tool_result_persist is synchronous: a returned promise is ignored.
//
// Usage: node standin.mjs HOST PLUGIN_PATH < steps.json > results.json
// A step: {"kind": "tool_call"|"tool_result"|"input", "tool", "args", "text", "isError", "session"}.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [host, pluginPath] = process.argv.slice(2);
const steps = JSON.parse(readFileSync(0, "utf8"));
const cwd = process.cwd();
const warnings = [];
console.warn = (...args) => warnings.push(args.join(" "));

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function opencode() {
  const mod = await import(pathToFileURL(pluginPath).href);
  const context = { directory: cwd, worktree: cwd, project: { id: "p" }, client: {}, $: null, serverUrl: new URL("http://localhost:4096") };
  const hooks = [];
  const def = mod.default;
  if (def && typeof def === "object" && ("id" in def || "server" in def)) {
    hooks.push(await def.server(context));
  } else {
    const seen = new Set();
    for (const entry of Object.values(mod)) {
      if (seen.has(entry)) continue;
      seen.add(entry);
      const plugin = typeof entry === "function" ? entry : typeof entry?.server === "function" ? entry.server : null;
      if (!plugin) throw new TypeError("Plugin export is not a function");
      hooks.push(await plugin(context));
    }
  }
  const trigger = async (name, input, output) => {
    for (const hook of hooks) if (hook[name]) await hook[name](input, output);
    return output;
  };
  return {
    async tool_call(step, n) {
      const output = { args: step.args };
      try {
        await trigger("tool.execute.before", { tool: step.tool, sessionID: step.session, callID: `call_${n}` }, output);
        return { ran: true, args: output.args };
      } catch (error) {
        return { ran: false, error: error.message };
      }
    },
    async tool_result(step, n) {
      const output = { title: step.tool, output: step.text, metadata: { exit: 0 } };
      await trigger("tool.execute.after", { tool: step.tool, sessionID: step.session, callID: `call_${n}`, args: step.args ?? {} }, output);
      return { text: output.output, title: output.title, metadata: output.metadata };
    },
    async input(step) {
      const output = { message: { id: "m1", role: "user", sessionID: step.session }, parts: [{ id: "p1", type: "text", text: step.text }] };
      await trigger("chat.message", { sessionID: step.session, agent: "build" }, output);
      return { text: output.parts[0].text };
    },
  };
}

async function pi() {
  const mod = await import(pathToFileURL(pluginPath).href);
  const handlers = new Map();
  const errors = [];
  const api = { on: (event, handler) => handlers.set(event, [...(handlers.get(event) ?? []), handler]) };
  await mod.default(api);
  const ctxFor = (step) => ({ cwd, hasUI: false, sessionManager: { getSessionId: () => step.session } });
  return {
    async tool_call(step, n) {
      const event = { type: "tool_call", toolName: step.tool, toolCallId: `call_${n}`, input: step.args };
      try {
        for (const handler of handlers.get("tool_call") ?? []) {
          const result = await handler(event, ctxFor(step));
          if (result?.block) return { ran: false, error: result.reason };
        }
        return { ran: true };
      } catch (error) {
        return { ran: false, error: error.message };
      }
    },
    async tool_result(step, n) {
      const original = [{ type: "text", text: step.text }];
      const current = { type: "tool_result", toolName: step.tool, toolCallId: `call_${n}`, input: step.args ?? {},
        content: original, details: undefined, isError: Boolean(step.isError) };
      let modified = false;
      for (const handler of handlers.get("tool_result") ?? []) {
        try {
          const result = await handler(current, ctxFor(step));
          if (!result) continue;
          if (result.content !== undefined) { current.content = result.content; modified = true; }
          if (result.details !== undefined) { current.details = result.details; modified = true; }
        } catch (error) {
          errors.push(error.message);
        }
      }
      const content = !modified || step.isError ? original : current.content;
      return { text: content.map((p) => p.text).join(""), parts: content.length, errors };
    },
    async input(step) {
      let text = step.text;
      for (const handler of handlers.get("input") ?? []) {
        const result = await handler({ type: "input", text, source: "interactive" }, ctxFor(step));
        if (result?.action === "transform") text = result.text;
      }
      return { text };
    },
  };
}

async function openclaw() {
  const manifest = JSON.parse(readFileSync(join(pluginPath, "openclaw.plugin.json"), "utf8"));
  if (typeof manifest.id !== "string" || typeof manifest.configSchema !== "object") throw new Error("invalid manifest");
  const pkg = JSON.parse(readFileSync(join(pluginPath, "package.json"), "utf8"));
  const entry = join(pluginPath, pkg.openclaw.extensions[0]);
  const mod = await import(pathToFileURL(entry).href);
  const plugin = mod.default;
  const registered = new Map();
  const api = {
    id: manifest.id, config: {}, pluginConfig: {}, logger: { info() {}, warn() {}, error() {} },
    on: (hook, handler, options = {}) => registered.set(hook, [...(registered.get(hook) ?? []), { handler, options }]),
  };
  if (typeof plugin === "function") plugin(api);
  else plugin.register(api);
  const ctxFor = (step) => ({ agentId: "main", sessionKey: "agent:main:main", sessionId: step.session, toolName: step.tool });
  return {
    manifestId: manifest.id,
    async tool_call(step, n) {
      const event = { toolName: step.tool, params: step.args, toolCallId: `call_${n}` };
      for (const { handler, options } of registered.get("before_tool_call") ?? []) {
        try {
          const result = await withTimeout(Promise.resolve(handler(event, ctxFor(step))), options.timeoutMs ?? 15_000, "before_tool_call");
          if (result?.block) return { ran: false, error: result.blockReason, timeoutMs: options.timeoutMs };
        } catch (error) {
          return { ran: false, error: `plugin hook failed: ${error.message}` };
        }
      }
      return { ran: true };
    },
    async tool_result(step, n) {
      let message = { role: "toolResult", toolCallId: `call_${n}`, toolName: step.tool, content: [{ type: "text", text: step.text }], isError: Boolean(step.isError), timestamp: 0 };
      for (const { handler } of registered.get("tool_result_persist") ?? []) {
        const result = handler({ toolName: step.tool, toolCallId: `call_${n}`, message }, ctxFor(step));
        if (result && typeof result.then === "function") {
          warnings.push("tool_result_persist returned a promise: ignored");
          continue;
        }
        if (result?.message) message = result.message;
      }
      return { text: message.content.map((p) => p.text).join(""), role: message.role };
    },
    async input(step) {
      for (const { handler, options } of registered.get("before_prompt_build") ?? []) {
        await withTimeout(Promise.resolve(handler({ prompt: step.text, messages: [] }, ctxFor(step))), options.timeoutMs ?? 15_000, "before_prompt_build");
      }
      return { text: step.text };
    },
  };
}

const hosts = { opencode, pi, openclaw };
const instance = await hosts[host]();
const results = [];
for (const [n, step] of steps.entries()) results.push(await instance[step.kind](step, n));
process.stdout.write(JSON.stringify({ results, warnings }) + "\n");
