"""The rule engine: load rules, match them against a call, decide.

Kept free of imports so that `import jouet_git.engine.match` costs only that module.
"""
