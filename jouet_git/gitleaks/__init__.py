"""Running gitleaks for jouet: finding the binary, reading its config, and deciding when to skip it.

gitleaks takes about a second to start, so jouet runs it only when the lines to scan could match one
of its rules: `precheck` looks for the rules' keywords in those lines (and in what gitleaks would
decode from them), against the same config that gitleaks will load (`config`).
"""
