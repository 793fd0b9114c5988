"""Rule plugins: folders of rules fetched from a directory or a git repository and pinned by hash.

    manifest.py  plugin.toml: the plugin's name, description, minimum jouet version and settings
    pins.py      where pins live: `[plugins.NAME]` in config.toml, and a repository's .jouet/plugins.toml
    store.py     jouet's copy of each plugin's content, in its data directory
    fetch.py     getting a plugin's content: a local directory, a git URL at an exact commit, or jouet's own
    sources.py   plugins as rule sources for the engine: they run only while their copy hashes to the pin
    diff.py      what changes between two versions of a plugin, shown before re-pinning

(The package is `plugin`, not `plugins`: the wheel ships jouet's first-party plugins as data in
`jouet_git/plugins/`.)
"""
