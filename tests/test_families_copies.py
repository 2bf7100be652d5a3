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
    "\n"
    "def place(t):\n"
    "    return t.to('cpu')\n"
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


def test_a_clone_of_a_tensor_another_module_made_protects_nothing_when_the_name_is_only_rebound(tmp_path):
    use = (
        "import torch\n"
        "from pkg.make import ramp, settings\n"
        "\n"
        "def f(t):\n"
        "    x = ramp()\n"
        "    y = x.clone()\n"
        "    x = x + t\n"
        "    return x * y\n"
        "\n"
        "def g(path):\n"
        "    cfg = settings()\n"
        "    c = cfg.clone()\n"
        "    c.merge_from_file(path)\n"
    )
    assert findings(tmp_path, use, "TPL101") == [("pkg/use.py", "TPL101", 6, 9)]


def test_a_clone_read_at_once_by_arithmetic_is_extra_unless_another_module_may_write_it(tmp_path):
    use = (
        "import torch\n"
        "from pkg.make import ramp, shift_\n"
        "\n"
        "def f(self, t):\n"
        "    d = self.mean.clone() - ramp()\n"
        "    e = shift_(self.mean.clone(), t)\n"
        "    return d, e\n"
    )
    assert findings(tmp_path, use, "TPL101") == [("pkg/use.py", "TPL101", 5, 9)]


def test_a_clone_only_read_after_a_reshape_is_extra_unless_handed_to_another_module(tmp_path):
    use = (
        "import torch\n"
        "from pkg.make import ramp, shift_\n"
        "\n"
        "def f(t):\n"
        "    x = ramp()\n"
        "    p = x.clone().reshape(-1, 2)\n"
        "    q = x.clone().reshape(-1, 2)\n"
        "    shift_(q, t)\n"
        "    return p.sum(0), q\n"
    )
    assert findings(tmp_path, use, "TPL101") == [("pkg/use.py", "TPL101", 6, 9)]


def test_a_copy_stored_into_a_tensor_another_module_made_is_read_there(tmp_path):
    use = (
        "import torch\n"
        "from pkg.make import cache, volume\n"
        "\n"
        "def f(planes):\n"
        "    out = volume(4)\n"
        "    store = cache()\n"
        "    for d in range(4):\n"
        "        out[d] = planes[d].unsqueeze(0).contiguous()\n"
        "        store[d] = planes[d].unsqueeze(0).contiguous()\n"
        "    return out, store\n"
    )
    assert findings(tmp_path, use, "TPL101") == [("pkg/use.py", "TPL101", 8, 18)]


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


def test_an_array_another_module_returns_is_copied_by_torch_tensor_unless_a_dtype_converts_it(tmp_path):
    use = (
        "import torch\n"
        "from pkg.io import as_float, read\n"
        "\n"
        "def f(path, img):\n"
        "    a = torch.tensor(read(path), dtype=torch.float32)\n"
        "    b = torch.tensor(read(path))\n"
        "    c = torch.tensor(as_float(img))\n"
        "    d = torch.tensor(as_float(img), dtype=torch.float16)\n"
        "    return a, b, c, d\n"
    )
    assert findings(tmp_path, use, "TPL105") == [("pkg/use.py", "TPL105", 6, 9), ("pkg/use.py", "TPL105", 7, 9)]


def test_a_new_tensor_another_module_hands_back_is_kept_when_its_result_is_stored(tmp_path):
    use = (
        "import torch\n"
        "from pkg.make import place\n"
        "\n"
        "def f(keys, batches):\n"
        "    totals = {}\n"
        "    for k in keys:\n"
        "        totals[k] = place(torch.zeros(1))\n"
        "    for b in batches:\n"
        "        zero = place(torch.zeros(1))\n"
        "        print(zero + b)\n"
        "    return totals\n"
    )
    assert findings(tmp_path, use, "TPL106") == [("pkg/use.py", "TPL106", 9, 22)]


def test_a_loop_over_an_array_another_module_returns_gives_elements_without_a_bridge(tmp_path):
    use = (
        "import torch\n"
        "from pkg.io import read\n"
        "from pkg.make import ramp\n"
        "\n"
        "def f(path):\n"
        "    out = [torch.tensor(z) for z in read(path)]\n"
        "    for z in read(path):\n"
        "        out.append(torch.tensor(z))\n"
        "    return out, ramp().detach().cpu().numpy().copy()\n"
    )
    assert findings(tmp_path, use, "TPL105") == [("pkg/use.py", "TPL105", 9, 17)]
