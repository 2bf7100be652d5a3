"""Compilers and device routes (TPL002, TPL003) reached through another module: a compiler imported
by name there, a device literal handed over from there. The same families in one file are the rules'
own examples."""

from __future__ import annotations

from helpers import lint_package

OPTIONAL = (
    "from monai.utils import optional_import\n\n"
    "trt, has_trt = optional_import('torch_tensorrt')\n\n"
    "def load_trt():\n    import importlib\n    return importlib.import_module('torch_tensorrt')\n"
)


def test_a_compiler_imported_by_name_in_another_module_is_a_compiler(tmp_path):
    route = (
        "import torch\nfrom pkg.optional import trt, load_trt\n\n"
        "def fast(model):\n    return trt.compile(model)\n\n"
        "def faster(model):\n    return load_trt().compile(model)\n"
    )
    files = {"pkg/__init__.py": "", "pkg/optional.py": OPTIONAL, "pkg/route.py": route}
    assert lint_package(tmp_path, files, "TPL002") == [
        ("pkg/route.py", "TPL002", 5, 12),
        ("pkg/route.py", "TPL002", 8, 12),
    ]
