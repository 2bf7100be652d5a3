"""torchperf-lint: find breaches of the eager CPU PyTorch performance contract."""

__version__ = "0.1.0"
