// jouet-git for OpenClaw: installed by `jouet setup openclaw`; `jouet setup openclaw --uninstall` removes it.
//
// OpenClaw reads openclaw.plugin.json beside this file, then calls register(api) of the default
// export; handlers registered with api.on(hook, handler, options) are called with (event, ctx):
// - before_tool_call {toolName, params}: jouet's rules decide; {block: true, blockReason} stops the
//   tool. OpenClaw blocks the call itself when a handler throws or runs out of time; jouet asks for
//   its runner's 60 seconds (plus a margin) instead of the default 15.
// - tool_result_persist {toolName, message}: synchronous; each text part of the tool result about
//   to be written to the transcript is screened for secrets and {message} returned when one was
//   replaced. (after_tool_call only observes, so it cannot change a result.)
// - before_prompt_build {prompt}: the person's request is screened and kept for the session; this
//   hook cannot change the prompt, so a secret the person typed is not withheld here.
// OpenClaw hands hooks no working directory: jouet runs in the exec call's `workdir` when it has
// one, else in the gateway's own directory.
// The runner beside this file (runner.mjs) runs `jouet hook neutral --host openclaw`.

import { LIMIT_MS, checkToolCall, createRunner, loadSettings, screenPartsSync, screenText } from "./runner.mjs";

function sessionOf(ctx) {
  return ctx?.sessionId || ctx?.sessionKey;
}

function whereOf(event) {
  const dir = event?.params?.workdir ?? event?.params?.cwd;
  return typeof dir === "string" && dir ? dir : process.cwd();
}

export default {
  id: "jouet",
  name: "jouet-git",
  description: "jouet-git's rules on every tool call, and secrets screened out of tool results",
  register(api) {
    const settings = loadSettings(new URL("./jouet.json", import.meta.url));
    const runner = createRunner({ ...settings, host: "openclaw" });

    api.on(
      "before_tool_call",
      async (event, ctx) => {
        const verdict = await checkToolCall(runner, { tool: event?.toolName, args: event?.params, sessionId: sessionOf(ctx), cwd: whereOf(event) });
        return verdict.block ? { block: true, blockReason: verdict.reason } : undefined;
      },
      { timeoutMs: (settings.limitMs || LIMIT_MS) + 5_000 },
    );

    api.on("tool_result_persist", (event, ctx) => {
      const message = event?.message;
      if (!message || typeof message !== "object") return undefined;
      const content = screenPartsSync(runner, message.content, { tool: event.toolName ?? ctx?.toolName, sessionId: sessionOf(ctx), cwd: process.cwd() });
      return content ? { message: { ...message, content } } : undefined;
    });

    api.on("before_prompt_build", async (event, ctx) => {
      await screenText(runner, "input", { text: event?.prompt, sessionId: sessionOf(ctx), cwd: process.cwd() });
      return undefined;
    });
  },
};
