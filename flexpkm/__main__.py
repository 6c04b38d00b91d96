"""``python -m flexpkm``: the command line (:mod:`flexpkm.cli`)."""
import sys

from flexpkm.cli import main

sys.exit(main())
