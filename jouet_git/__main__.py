import sys

from jouet_git.cli import main

sys.exit(main())
