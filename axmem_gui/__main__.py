"""`python -m axmem_gui` starts the desktop app."""

from axmem_gui.app import main

raise SystemExit(main())
