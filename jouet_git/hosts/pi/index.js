// jouet-git for Pi: installed by `jouet setup pi`; `jouet setup pi --uninstall` removes it.
//
// Pi loads extensions/*/index.js and calls its default export with the extension API; handlers
// registered with pi.on(event, handler) are called with (event, ctx), ctx.cwd being the session's
// directory:
// - tool_call {toolName, toolCallId, input}: jouet's rules decide; {block: true, reason} stops the
//   tool and hands the reason to the model.
// - tool_result {toolName, input, content, details, isError}: each text part of the content is
//   screened for secrets and {content} returned when one was replaced. Pi ignores what a handler
//   returns for a failed tool, so an error's text is not screened.
// - input {text, images, source}: the person's text, screened the same way ({action: "transform"})
//   and kept as the session's request.
// The runner beside this file (runner.mjs) runs `jouet hook neutral --host pi`.

import { checkToolCall, createRunner, loadSettings, screenParts, screenText } from "./runner.mjs";

function sessionOf(ctx) {
  try {
    return ctx?.sessionManager?.getSessionId?.();
  } catch {
    return undefined;
  }
}

export default function jouetGit(pi) {
  const runner = createRunner({ ...loadSettings(new URL("./jouet.json", import.meta.url)), host: "pi" });
  const where = (ctx) => ctx?.cwd || process.cwd();

  pi.on("tool_call", async (event, ctx) => {
    const verdict = await checkToolCall(runner, { tool: event?.toolName, args: event?.input, sessionId: sessionOf(ctx), cwd: where(ctx) });
    return verdict.block ? { block: true, reason: verdict.reason } : undefined;
  });

  pi.on("tool_result", async (event, ctx) => {
    if (!event || event.isError) return undefined;
    const content = await screenParts(runner, event.content, { tool: event.toolName, sessionId: sessionOf(ctx), cwd: where(ctx) });
    return content ? { content } : undefined;
  });

  pi.on("input", async (event, ctx) => {
    const result = await screenText(runner, "input", { text: event?.text, sessionId: sessionOf(ctx), cwd: where(ctx) });
    return result.changed ? { action: "transform", text: result.text, images: event.images } : { action: "continue" };
  });
}
