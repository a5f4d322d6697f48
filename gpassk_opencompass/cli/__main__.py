"""``python -m gpassk_opencompass.cli`` is the ``gpassk`` command."""

import sys

from gpassk_opencompass.cli import main

sys.exit(main())
