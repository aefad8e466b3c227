"""``python -m secondseat``: the same as the ``secondseat`` command."""

import sys

from secondseat.cli import main

sys.exit(main())
