"""jouet-git: one set of rules for AI agents' tool calls and for git's own hooks."""

__version__ = "0.1.0.dev0"
