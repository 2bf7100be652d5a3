"""torchperf-lint: find breaches of the eager CPU PyTorch performance contract."""

from pathlib import Path

__version__ = "0.1.0"

# The build maps the checkout's rules/, reference_kernels/ and skill/ folders into this package. When
# this folder is imported straight from a checkout without that mapping (``python -m torchperf_lint``
# in the repository root shadows an installed wheel), find those subpackages beside it as well.
_CHECKOUT = Path(__file__).resolve().parent.parent
if (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / "rules" / "__init__.py").is_file():
    __path__.append(str(_CHECKOUT))
