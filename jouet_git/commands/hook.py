"""The hooks a harness or git runs. `jouet setup` installs them; people rarely run them by hand.

  jouet hook HARNESS EVENT [ARGS]    the payload comes on stdin, as the harness sends it

  jouet hook claude pre|post|post-failure|session-start   Claude Code
  jouet hook git pre-commit|pre-push|post-checkout [ARGS]  git's own hooks (add --framework when
                                                            run by the pre-commit framework)
  jouet hook neutral [--session-dir DIR] [--host NAME]     the host-neutral protocol (any stage)
  jouet hook polyhook                                      a polyhook HookEvent (any event)

`jouet hook HARNESS --help` lists a harness's events. This command runs before every tool call an
agent makes, so it skips argparse and imports only what the call needs: the harness's adapter
(jouet_git/harness/), which translates, and harness/serve.py, which decides through the runner.
"""

from __future__ import annotations

import sys

USAGE = __doc__ or ""


def run_fast(argv: list[str]) -> int:
    from jouet_git.harness import ADAPTERS, adapter

    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write("usage: jouet hook HARNESS EVENT\n\n" + USAGE)
        return 0
    if not argv:
        sys.stderr.write("usage: jouet hook HARNESS EVENT\n\n" + USAGE)
        return 2
    found = adapter(argv[0])
    if found is None:
        known = ", ".join(ADAPTERS)
        sys.stderr.write(f"jouet hook: unknown harness '{argv[0]}' (jouet speaks to: {known})\n")
        return 2
    rest = argv[1:]
    if rest and rest[0] in ("-h", "--help"):
        sys.stdout.write(found.usage())
        return 0
    if not found.takes_event:
        from jouet_git.harness.serve import serve

        return serve(found, "", rest)
    if not rest or rest[0] not in found.events:
        # Possibly a harness running a hook set up wrongly: answer in the harness's own terms for
        # input jouet cannot read (for most, "no objection"), with the usage on stderr.
        given = f"unknown event '{rest[0]}'" if rest else "no event given"
        reply = found.bad_input(rest[0] if rest else "", f"jouet hook {found.name}: {given}")
        sys.stdout.write(reply.stdout)
        sys.stderr.write(reply.stderr + "\n" + found.usage())
        return reply.exit
    from jouet_git.harness.serve import serve

    return serve(found, rest[0], rest[1:])


def configure(parser: object) -> None:  # `jouet hook` never goes through argparse (see run_fast)
    pass


def run(args: object) -> int:
    return run_fast(sys.argv[2:])
