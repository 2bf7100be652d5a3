"""Compilers, device routes and inference results (TPL002, TPL003, TPL008) reached through another
module: a compiler imported by name there, a device type or a number read there. The same families in
one file are the rules' own examples."""

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


DEVICES = (
    "def device_kind(x):\n    return x.device.type\n\n"
    "def gpu_name():\n    import torch\n    return torch.cuda.get_device_name(0)\n"
)


def test_a_device_type_from_another_module_is_a_device_test_and_a_report_is_not(tmp_path):
    route = (
        "import torch\nfrom pkg.devices import device_kind, gpu_name\n\n"
        "def warp(x):\n    kind = device_kind(x)\n    if kind == 'cuda':\n        return fused(x)\n"
        "    if device_kind(x) != 'cpu':\n        return other(x)\n"
        "    return {'gpu': gpu_name(), 'out': plain(x)}\n"
    )
    files = {"pkg/__init__.py": "", "pkg/devices.py": DEVICES, "pkg/route.py": route}
    assert lint_package(tmp_path, files, "TPL003") == [
        ("pkg/route.py", "TPL003", 6, 8),
        ("pkg/route.py", "TPL003", 8, 8),
    ]


def test_a_device_type_from_a_helper_in_the_same_file_is_a_device_test(tmp_path):
    route = (
        "import torch\n\ndef _kind(x):\n    return x.device.type\n\n"
        "def warp(x):\n    if _kind(x) == 'mps':\n        return fused(x)\n    return plain(x)\n"
    )
    files = {"pkg/__init__.py": "", "pkg/route.py": route}
    assert lint_package(tmp_path, files, "TPL003") == [("pkg/route.py", "TPL003", 7, 8)]


def test_a_number_read_by_another_modules_helper_under_inference_mode_is_no_inference_tensor(tmp_path):
    stats = "import torch\n\ndef peak(x):\n    return float(x.max())\n\ndef double(x):\n    return x * 2\n"
    route = (
        "import torch\nfrom pkg.stats import peak, double\n\n"
        "def score(x):  # torchperf: prevalidated\n    with torch.inference_mode():\n        value = peak(x)\n"
        "    return value\n\n"
        "def scale(x):  # torchperf: prevalidated\n    with torch.inference_mode():\n        out = double(x)\n"
        "    return out\n"
    )
    files = {"pkg/__init__.py": "", "pkg/stats.py": stats, "pkg/route.py": route}
    assert lint_package(tmp_path, files, "TPL008") == [("pkg/route.py", "TPL008", 10, 10)]


BUILT_DEVICES = (
    "def device_for(rank: int) -> str:\n    return 'cuda:%d' % rank\n\n"
    "def label_for(rank):\n    return 'gpu ' + str(rank)\n\n"
    "def pick(rank, gpu):\n    if gpu:\n        return f'cuda:{rank}'\n    return 'cpu'\n\n"
    "def key_of(x):\n    return f\"{x['device']}\"\n"
)


def test_a_device_string_built_by_another_modules_helper_is_a_device_route(tmp_path):
    route = (
        "import torch\nfrom pkg.devices import device_for, label_for, pick\n\n"
        "def shard(x, k):\n    y = x.to(device_for(k))\n"
        "    return y, torch.zeros(3, device=device_for(k)), x.to(pick(k, False)), label_for(k)\n"
    )
    files = {"pkg/__init__.py": "", "pkg/devices.py": BUILT_DEVICES, "pkg/route.py": route}
    assert lint_package(tmp_path, files, "TPL003") == [
        ("pkg/route.py", "TPL003", 5, 14),
        ("pkg/route.py", "TPL003", 6, 30),
    ]


def test_a_device_string_built_by_a_helper_in_the_same_file_is_a_device_route(tmp_path):
    route = (
        "import torch\n\ndef _next_gpu(k):\n    return 'cuda:' + str(k + 1)\n\n"
        "def _tag(k):\n    return 'cuda' + str(k)\n\n"
        "def pipeline(x, k):\n    device = _next_gpu(k)\n    return x.to(_next_gpu(k)), device, _tag(k)\n"
    )
    files = {"pkg/__init__.py": "", "pkg/route.py": route}
    assert lint_package(tmp_path, files, "TPL003") == [
        ("pkg/route.py", "TPL003", 10, 14),
        ("pkg/route.py", "TPL003", 11, 17),
    ]


def test_a_module_level_alias_imported_from_another_module_names_what_it_spells(tmp_path):
    aliases = (
        "import torch\nfrom typing import TypeAlias\n\nDevice: TypeAlias = torch.device\n"
        "CPU = Device('cpu')\ncuda_module = torch.cuda\n"
    )
    route = (
        "from pkg.aliases import Device, cuda_module\n\n"
        "def place(x):\n    target = Device('cuda', index=0)\n    cuda_module.synchronize()\n    return x\n"
    )
    files = {"pkg/__init__.py": "", "pkg/aliases.py": aliases, "pkg/route.py": route}
    assert lint_package(tmp_path, files, "TPL003") == [
        ("pkg/route.py", "TPL003", 4, 14),
        ("pkg/route.py", "TPL003", 5, 5),
    ]
