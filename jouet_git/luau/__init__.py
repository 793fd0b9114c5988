"""Luau support: the translator from Luau to Lua 5.4 (translate.py) and the sandbox that runs rule scripts."""
