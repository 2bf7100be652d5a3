"""TPL101, TPL105 and TPL106 across modules: what a function of another module returns decides whether a
copy protects anything, whether a bridge copies an array, and whether a store keeps a new tensor.

The same families are covered through a local variable and a helper of the same file by each rule's
own examples; these lint a small project as the command line does, the project index included.
"""

from helpers import lint_package

MAKE = (
    "import torch\n"
    "\n"
    "def ramp():\n"
    "    return torch.arange(8.0)\n"
    "\n"
    "def volume(n):\n"
    "    return torch.zeros(n, 4)\n"
    "\n"
    "def cache():\n"
    "    return {}\n"
    "\n"
    "def settings():\n"
    "    return Config()\n"
    "\n"
    "def shift_(a, b):\n"
    "    a -= b\n"
    "    return a\n"
)
IO = (
    "import numpy as np\n"
    "\n"
    "def read(path):\n"
    "    return np.load(path)\n"
    "\n"
    "def as_float(a):\n"
    "    return a.astype(np.float32)\n"
)


def findings(tmp_path, use: str, code: str) -> list[tuple[str, str, int, int]]:
    files = {"pkg/__init__.py": "", "pkg/make.py": MAKE, "pkg/io.py": IO, "pkg/use.py": use}
    return lint_package(tmp_path, files, code)


def test_a_new_tensor_stored_into_another_module_s_container_is_kept_and_into_its_tensor_copied(tmp_path):
    use = (
        "import torch\n"
        "from pkg.make import cache, volume\n"
        "\n"
        "def f(keys):\n"
        "    grid = volume(4)\n"
        "    table = cache()\n"
        "    for k in keys:\n"
        "        grid[k] = torch.zeros(4)\n"
        "        table[k] = torch.zeros(4)\n"
        "    return grid, table\n"
    )
    assert findings(tmp_path, use, "TPL106") == [("pkg/use.py", "TPL106", 8, 19)]
