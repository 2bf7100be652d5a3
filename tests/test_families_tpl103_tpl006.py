"""TPL103 and TPL006 families in their other-module form: the helper that makes a value a tensor, an
array, a pandas object or a measure of a tensor lives in another module of the project, and the
project index tells the linted file what it returns. The local-variable and same-file-helper forms
are the rules' own examples."""

from __future__ import annotations

from pathlib import Path

from helpers import lint_package

STATS = (
    "import numpy as np\nimport pandas as pd\nimport torch\nfrom jaxtyping import Int\n"
    "from typing import Dict, Tuple\n\n"
    "def peak(t) -> torch.Tensor:\n    return t.amax()\n\n"
    "def peak_of(t):\n    return torch.amax(t)\n\n"
    "def order(n) -> torch.Tensor:\n    return torch.randperm(n)\n\n"
    "def params(n) -> Dict[str, torch.Tensor]:\n    return {'p': torch.rand(n)}\n\n"
    "def hist(x) -> Tuple[np.ndarray, np.ndarray]:\n    return np.histogram(x)\n\n"
    "def hist_raw(x):\n    return np.histogram(x)\n\n"
    "def load(path) -> pd.DataFrame:\n    return pd.read_csv(path)\n\n"
    "def load_raw(path):\n    return pd.read_csv(path)\n\n"
    "def probabilities(p) -> np.ndarray:\n    return np.asarray(p)\n\n"
    "def token_ids(t) -> 'Int[torch.Tensor, \"b n\"]':\n    return t.long()\n\n"
    "def similarities(a) -> np.array:\n    return np.corrcoef(a)\n\n"
    "def unpadded(loc) -> list[dict[str, np.ndarray]]:\n    return [{'polygons': np.asarray(p)} for p in loc]\n\n"
    "def boxes_by_name(loc) -> Dict[str, list[torch.Tensor]]:\n    return {'boxes': [torch.as_tensor(loc)]}\n\n"
    "def windows(width, sizes):\n    found = []\n    for s in sizes:\n        found.append(np.arange(s))\n"
    "    found = np.concatenate(found)\n    rates = found / width\n    return found[rates >= 0.5]\n\n"
    "def picked(t, mask):\n    kept = torch.as_tensor(t)\n    return kept[mask]\n\n"
    "def scores(a, b, per_atom=False):\n    d = torch.abs(a - b)\n    if per_atom:\n"
    "        return d.sum(-1), (d > 0).float()\n    total = torch.sum(d)\n    return d.mean(), total\n\n"
    "def as_numpy(t):\n    kept = torch.as_tensor(t)\n    return kept.numpy()\n"
)
DIST = "import torch.distributed\n\ndef all_reduce(t, op='SUM'):\n    torch.distributed.all_reduce(t)\n"
GEOMETRY = (
    "import torch\n\n"
    "def channels(x):\n    return x.shape[-1]\n\n"
    "def sizes(x):\n    return x.size()\n\n"
    "def inner_stride(x):\n    return x.stride(1)\n"
)


def lint(root: Path, module: str, code: str) -> list[tuple[str, int, int]]:
    """Findings of ``code`` in ``pkg/use.py``, next to the helpers in ``pkg/stats.py`` and ``pkg/geometry.py``."""
    files = {
        "pkg/__init__.py": "",
        "pkg/stats.py": STATS,
        "pkg/geometry.py": GEOMETRY,
        "pkg/dist.py": DIST,
        "pkg/use.py": module,
    }
    return [(path, row, column) for path, found, row, column in lint_package(root, files, code) if found == code]


# --- TPL103: code that only looks like kernel code ------------------------------------------------


def test_a_stop_test_on_a_flag_the_project_s_dist_module_exchanges_is_loop_state(tmp_path):
    module = (
        "import torch\nfrom pkg import dist\n\ndef f(step):\n    done = False\n    while not done:\n"
        "        flag = torch.ones(1)\n        dist.all_reduce(flag, op='MIN')\n        done = flag.item() == 1\n"
        "        step(flag.item())\n"
    )
    assert lint(tmp_path, module, "TPL103") == [("pkg/use.py", 10, 14)]


def test_rows_of_a_conditional_another_module_s_array_or_nones_are_no_tensors(tmp_path):
    module = (
        "import torch\nfrom pkg.stats import peak, probabilities\n\ndef f(preds, n):\n"
        "    rows = probabilities(preds) if preds is not None else [None] * n\n"
        "    peaks = peak(preds) if preds is not None else [None] * n\n"
        "    return [r.tolist() for r in rows], [p.item() for p in peaks]\n"
    )
    assert lint(tmp_path, module, "TPL103") == [("pkg/use.py", 7, 41)]


def test_reads_inside_assertions_are_checks_not_loop_work(tmp_path):
    module = (
        "import torch\nfrom .stats import peak\n\ndef check(candidates, x):\n    for fn in candidates:\n"
        "        out = fn(x)\n        assert float(peak(out)) < 1.0\n        kept = float(peak(out))\n"
    )
    assert lint(tmp_path, module, "TPL103") == [("pkg/use.py", 8, 16)]


def test_pandas_values_from_another_module_are_no_tensors(tmp_path):
    module = (
        "import torch\nfrom pkg.stats import load, load_raw\n\ndef f(paths):\n    for path in paths:\n"
        "        if load(path).isna().all().all():\n            continue\n"
        "        if load_raw(path).notna().any().any():\n            print(path)\n"
    )
    assert lint(tmp_path, module, "TPL103") == []


def test_numpy_values_unpacked_from_another_modules_function_are_no_tensors(tmp_path):
    module = (
        "import torch\nfrom .stats import hist, hist_raw\n\ndef f(samples):\n    for x in samples:\n"
        "        counts, edges = hist(x)\n        if counts.any():\n            print(int(counts.sum()))\n"
        "        raw, _ = hist_raw(x)\n        if raw.max() > 0:\n            print(raw.tolist())\n"
    )
    assert lint(tmp_path, module, "TPL103") == []


def test_a_read_the_loop_reaches_once_before_it_returns_is_not_per_iteration(tmp_path):
    module = (
        "import torch\nfrom .stats import peak\n\ndef first(tensors, lock):\n    for t in tensors:\n"
        "        value = int(peak(t))\n        with lock:\n            return value\n\n"
        "def every(tensors, lock):\n    for t in tensors:\n        value = int(peak(t))\n        with lock:\n"
        "            print(value)\n"
    )
    assert lint(tmp_path, module, "TPL103") == [("pkg/use.py", 12, 17)]


# --- TPL103: misses ---------------------------------------------------------------------------------


def test_int_of_each_element_of_a_tensor_from_another_module(tmp_path):
    module = "import torch\nfrom .stats import order\n\ndef f(n):\n    return [int(i) for i in order(n)]\n"
    assert lint(tmp_path, module, "TPL103") == [("pkg/use.py", 5, 13)]


def test_builtin_max_over_a_tensor_from_another_module_then_an_if(tmp_path):
    module = (
        "import torch\nfrom .stats import order\n\ndef f(xs, n):\n    for x in xs:\n"
        "        if max(order(n)) > 2:\n            print(x)\n"
    )
    assert lint(tmp_path, module, "TPL103") == [("pkg/use.py", 6, 12)]


def test_a_conditional_expression_on_a_tensor_from_another_module(tmp_path):
    module = (
        "import torch\nfrom .stats import peak_of\n\ndef f(xs, fill):\n"
        "    return [x if peak_of(x) else fill for x in xs]\n"
    )
    assert lint(tmp_path, module, "TPL103") == [("pkg/use.py", 5, 18)]


def test_an_if_on_a_tensor_taken_from_a_dict_another_module_returns(tmp_path):
    module = (
        "import torch\nfrom .stats import params\n\ndef f(n):\n    drawn = params(n)\n    for i in range(n):\n"
        "        if drawn['p'][i] > 0.5:\n            print(i)\n"
    )
    assert lint(tmp_path, module, "TPL103") == [("pkg/use.py", 7, 12)]


def test_a_local_bound_to_another_modules_reduction_and_tested_later(tmp_path):
    module = (
        "import torch\nfrom .stats import peak_of\n\ndef f(batches):\n    for x in batches:\n"
        "        top = peak_of(x)\n        if top > 0:\n            print(x)\n"
    )
    assert lint(tmp_path, module, "TPL103") == [("pkg/use.py", 7, 12)]


# --- TPL006: misses -----------------------------------------------------------------------------------


def test_a_size_another_module_returns_then_a_permute(tmp_path):
    module = (
        "import torch\nfrom .geometry import channels\n\ndef f(img):\n    if channels(img) == 3:\n"
        "        img = img.permute(2, 0, 1)\n    return img\n\n"
        "def g(img):\n    if channels(img) == 1:\n        return img.permute(2, 0, 1)\n    return img\n"
    )
    assert lint(tmp_path, module, "TPL006") == [("pkg/use.py", 5, 8)]


def test_a_shape_another_module_returns_picks_the_axes_of_a_reduction(tmp_path):
    module = (
        "import torch\nfrom pkg.geometry import sizes\n\ndef f(img):\n    if sizes(img)[-1] <= 4:\n"
        "        return img.mean(dim=(0, 1))\n    return img.mean(dim=(1, 2))\n\n"
        "def g(img):\n    if sizes(img)[-1] <= 4:\n        return img.mean(dim=1)\n"
        "    return img.float().mean(dim=1)\n"
    )
    assert lint(tmp_path, module, "TPL006") == [("pkg/use.py", 5, 8)]


def test_a_stride_another_module_returns_then_a_permute_that_is_not_a_round_trip(tmp_path):
    module = (
        "import torch\nfrom .geometry import inner_stride\n\ndef f(x):\n    if inner_stride(x) == 1:\n"
        "        x = x.permute(0, 2, 3, 1)\n    return x\n\n"
        "def g(x):\n    if inner_stride(x) == 1:\n        x = pad(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)\n"
        "    return x\n"
    )
    assert lint(tmp_path, module, "TPL006") == [("pkg/use.py", 5, 8)]


def test_shaped_and_np_array_annotations_of_another_modules_helpers(tmp_path):
    module = (
        "import torch\nfrom pkg.stats import similarities, token_ids\n\ndef f(t, n):\n"
        "    ids, sims = token_ids(t), similarities(t)\n"
        "    return [int(ids[0, i]) for i in range(n)], [sims[i].tolist() for i in range(n)]\n"
    )
    assert lint(tmp_path, module, "TPL103") == [("pkg/use.py", 6, 13)]


def test_arrays_nested_in_containers_another_module_returns_are_no_tensors(tmp_path):
    module = (
        "import torch\nfrom pkg.stats import unpadded, boxes_by_name\n\ndef f(preds, loc):\n    out = []\n"
        "    for pred, rect in zip(preds, unpadded(loc)):\n        for poly in rect['polygons']:\n"
        "            out.append(poly.tolist())\n    for box in boxes_by_name(loc)['boxes']:\n"
        "        out.append(box.tolist())\n    return out\n"
    )
    assert lint(tmp_path, module, "TPL103") == [("pkg/use.py", 10, 20)]


def test_a_mask_or_slice_of_another_modules_array_is_no_tensor_and_of_a_tensor_is_one(tmp_path):
    module = (
        "import torch\nfrom pkg.stats import windows, picked\n\ndef f(w, sizes, bs, mask):\n"
        "    found = windows(w, sizes)\n    out = []\n    for window in found[0:bs]:\n"
        "        out.append(window.tolist())\n    for row in picked(sizes, mask):\n"
        "        out.append(row.tolist())\n    return out\n"
    )
    assert lint(tmp_path, module, "TPL103") == [("pkg/use.py", 10, 20)]


def test_tensor_methods_in_a_tuple_another_module_returns_give_tensors_and_numpy_an_array(tmp_path):
    module = (
        "import torch\nfrom pkg.stats import scores, as_numpy\n\ndef f(cands, a, t):\n    best = 0.0\n"
        "    arr = as_numpy(t)\n    for c in cands:\n        lddt, total = scores(a, c)\n"
        "        if lddt > best:\n            best = lddt\n        if arr[0] > 0:\n            print(c)\n"
        "    return best\n"
    )
    assert lint(tmp_path, module, "TPL103") == [("pkg/use.py", 9, 12)]
