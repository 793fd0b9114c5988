from jouet_git.cli import entry

entry()
