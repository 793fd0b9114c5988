"""Trusting what a repository ships: its `.jouet/` rules, scripts and plugin declarations.

    content.py  what a directory holds that can run, hashed (also used for plugin pins)
    snapshot.py the copy of the bytes `jouet trust` showed and hashed: the only copy hooks run
    store.py    the trust records, outside the repository, keyed by its git common dir
    state.py    whether a work tree's `.jouet/` is trusted, changed or untrusted, and what changed
    review.py   what a set of rules would do, shown before anyone trusts or pins them

Nothing here runs a rule. The rule engine asks state.py whether a repository's rules run, and from
which copy.
"""
