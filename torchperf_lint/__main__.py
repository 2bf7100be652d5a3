"""Allow ``python -m torchperf_lint``."""

from torchperf_lint.cli import main

raise SystemExit(main())
