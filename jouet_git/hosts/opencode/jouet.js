// jouet-git for OpenCode: installed by `jouet setup opencode`; `jouet setup opencode --uninstall` removes it.
//
// OpenCode loads every .js file in its plugins directory and calls each function the module exports
// with its context ({directory, worktree, ...}); the hooks it returns are called in turn:
// - tool.execute.before(input {tool, sessionID, callID}, output {args}): jouet's rules decide the
//   call; a denial throws, which stops the tool and hands the advice to the model.
// - tool.execute.after(input {tool, sessionID, callID, args}, output {title, output, metadata}):
//   the text the tool returns is screened for secrets, each one replaced in output.output.
// - chat.message(input {sessionID, ...}, output {message, parts}): the person's text is screened the
//   same way, and kept as the session's request.
// The runner beside this file (jouet/runner.mjs) runs `jouet hook neutral --host opencode`.

import { checkToolCall, createRunner, loadSettings, screenText } from "./jouet/runner.mjs";

export const JouetGitPlugin = async (context) => {
  const runner = createRunner({ ...loadSettings(new URL("./jouet/jouet.json", import.meta.url)), host: "opencode" });
  const cwd = context?.directory || context?.worktree || process.cwd();
  return {
    "tool.execute.before": async (input, output) => {
      const verdict = await checkToolCall(runner, { tool: input?.tool, args: output?.args, sessionId: input?.sessionID, cwd });
      if (verdict.block) throw new Error(verdict.reason);
    },
    "tool.execute.after": async (input, output) => {
      if (!output || typeof output.output !== "string") return;
      const result = await screenText(runner, "tool_result", { text: output.output, tool: input?.tool, sessionId: input?.sessionID, cwd });
      if (result.changed) output.output = result.text;
    },
    "chat.message": async (input, output) => {
      for (const part of output?.parts ?? []) {
        if (!part || part.type !== "text" || typeof part.text !== "string" || part.synthetic) continue;
        const result = await screenText(runner, "input", { text: part.text, sessionId: input?.sessionID, cwd });
        if (result.changed) part.text = result.text;
      }
    },
  };
};
