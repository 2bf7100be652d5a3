"""What a name holds, read where the name is read: annotations, bound calls, binding order, narrowing."""

from __future__ import annotations

import libcst as cst
from facts import probe

from torchperf_lint.toolkit.types import (
    ARRAY,
    FRAME,
    ITEMS,
    TENSOR,
    TUPLE,
    VALUES,
    bound_value,
    kind_of,
    project_kind,
)


def kinds_of_calls_to_use(source: str) -> list[tuple[int, object]]:
    """The kind of the argument of every ``use(...)`` call."""

    def ask(ctx, node: cst.Call):
        return kind_of(ctx, node.args[0].value) if getattr(node.func, "value", None) == "use" else "skip"

    return [(line, kind) for line, kind in probe(source, cst.Call, ask) if kind != "skip"]


def test_annotations_name_tensors_and_arrays_and_their_optional_forms():
    source = (
        "import numpy as np\nimport numpy.typing as npt\nimport torch\nfrom typing import Optional\n"
        "def f(a: np.ndarray, b: npt.NDArray[np.uint8], t: torch.Tensor, o: Optional[torch.Tensor],\n"
        "      u: torch.Tensor | None, m: 'torch.Tensor', x):\n"
        "    use(a); use(b); use(t); use(o); use(u); use(m); use(x)\n"
    )
    assert kinds_of_calls_to_use(source) == [(7, k) for k in (ARRAY, ARRAY, TENSOR, TENSOR, TENSOR, None, None)]


def test_bound_calls_and_chains_give_the_kind():
    source = (
        "import numpy as np\nimport torch\ndef f(x):\n"
        "    a = np.asarray(x)\n    b = a.astype(np.float32).reshape(-1)\n    t = torch.from_numpy(b)\n"
        "    v = t.permute(1, 0)[0] * 2\n    n = t.numpy()\n    s = t.item()\n    c = np.float64(x)\n"
        "    use(a); use(b); use(t); use(v); use(n); use(s); use(c); use(t > 0); use(t is None)\n"
    )
    kinds = (ARRAY, ARRAY, TENSOR, TENSOR, ARRAY, None, None, TENSOR, None)
    assert kinds_of_calls_to_use(source) == [(11, k) for k in kinds]


def test_a_binding_takes_effect_after_its_right_hand_side():
    source = (
        "import numpy as np\nimport torch\ndef f(mean):\n    mean = np.asarray(mean)\n"
        "    mean = torch.tensor(use(mean))\n    use(mean)\n"
    )
    assert kinds_of_calls_to_use(source) == [(5, ARRAY), (6, TENSOR)]


def test_a_binding_in_a_branch_or_loop_joins_the_old_value():
    source = (
        "import torch\ndef f(mean: torch.Tensor, xs):\n    if isinstance(mean, float):\n"
        "        mean = [mean]\n    use(mean)\n    for x in xs:\n        y = torch.zeros(3)\n    use(y)\n"
        "    if xs:\n        z = torch.ones(1)\n    else:\n        z = torch.ones(2)\n    use(z)\n"
    )
    assert kinds_of_calls_to_use(source) == [(5, None), (8, None), (13, TENSOR)]


def test_isinstance_narrows_inside_and_forgets_in_the_other_arms():
    source = (
        "import torch\ndef f(size: torch.Tensor, alpha: torch.Tensor):\n    if isinstance(size, torch.Size):\n"
        "        use(size)\n    if isinstance(alpha, torch.Tensor):\n        use(alpha)\n    elif ok(alpha):\n"
        "        use(alpha)\n    else:\n        use(alpha)\n    use(alpha)\n"
    )
    assert kinds_of_calls_to_use(source) == [(4, None), (6, TENSOR), (8, None), (10, None), (11, None)]


def test_loop_targets_take_the_kind_of_what_they_iterate():
    source = (
        "import torch\nimport numpy as np\ndef f(t: torch.Tensor, a: np.ndarray, items):\n"
        "    for row in t:\n        use(row)\n    for v in a:\n        use(v)\n"
        "    for i in items:\n        use(i)\n"
    )
    assert kinds_of_calls_to_use(source) == [(5, TENSOR), (7, ARRAY), (9, None)]


def test_module_level_code_and_parameters_that_shadow_imports():
    source = "import numpy as np\nimport torch\nx = np.zeros(3)\nuse(x)\ndef g(np):\n    use(np.zeros(3))\n"
    assert kinds_of_calls_to_use(source) == [(4, ARRAY), (6, None)]


def test_an_else_arm_does_not_see_what_the_if_arm_bound():
    source = (
        "import torch\ndef f(x, c):\n    if c:\n        x = torch.ones(1)\n    else:\n        use(x)\n"
        "        x = torch.zeros(1)\n    use(x)\n"
    )
    assert kinds_of_calls_to_use(source) == [(6, None), (8, TENSOR)]


def test_functions_and_methods_of_the_file_give_their_annotated_return_kind():
    source = (
        "import torch\nfrom typing import List, Optional, Tuple\n"
        "def helper() -> torch.Tensor:\n    return torch.zeros(1)\n"
        "def pairs() -> List[Tuple[torch.Tensor, Optional[torch.Tensor], int]]:\n    return []\n"
        "class R:\n    def order(self) -> tuple[torch.Tensor, float]:\n        return torch.randperm(4), 1.0\n"
        "    def run(self):\n        idx, scale = self.order()\n"
        "        for a, b, n in pairs():\n"
        "            use(helper()); use(idx); use(scale); use(a); use(b); use(n)\n"
        "        for i in idx:\n            use(i)\n        use(pairs()[0][0])\n"
    )
    assert kinds_of_calls_to_use(source) == [(13, k) for k in (TENSOR, TENSOR, None, TENSOR, TENSOR, None)] + [
        (15, TENSOR),
        (16, TENSOR),
    ]


def test_a_local_binding_shadows_a_function_of_the_file():
    source = (
        "import torch\ndef helper() -> torch.Tensor:\n    return torch.zeros(1)\n"
        "def f(helper):\n    use(helper())\n"
    )
    assert kinds_of_calls_to_use(source) == [(5, None)]


def test_unpacking_a_tensor_or_array_gives_its_rows():
    source = (
        "import numpy as np\nimport torch\ndef f(x, t: torch.Tensor):\n    counts, edges = np.histogram(x)\n"
        "    values, indices = t.max(0)\n    first, *rest = t\n    n, c = t.shape[:2]\n"
        "    use(counts); use(edges); use(values); use(indices); use(first); use(rest); use(n)\n"
    )
    assert kinds_of_calls_to_use(source) == [
        (8, k) for k in (ARRAY, ARRAY, TENSOR, TENSOR, TENSOR, (ITEMS, TENSOR), None)
    ]


def test_comprehension_targets_hold_the_items_they_iterate():
    source = (
        "import torch\ndef f(t: torch.Tensor, xs, d):\n    [use(v) for v in t]\n    [use(x) for x in xs]\n"
        "    [use(b) for a in t for b in a]\n    [use(i) or use(v) for i, v in enumerate(t)]\n"
        "    {k: use(v) for k, v in d.items()}\n    v = 1\n    use(v)\n"
    )
    assert kinds_of_calls_to_use(source) == [
        (3, TENSOR),
        (4, None),
        (5, TENSOR),
        (6, None),
        (6, TENSOR),
        (7, None),
        (9, None),
    ]


def test_builtins_over_a_tensor():
    source = (
        "import torch\ndef f(t: torch.Tensor, s: torch.Tensor, n):\n"
        "    use(max(t)); use(sum(t)); use(min(t, s)); use(max(t, n)); use(abs(t)); use(any(t))\n"
        "    for a, b in zip(t, range(n)):\n        use(a); use(b)\n    for row in sorted(t):\n        use(row)\n"
    )
    assert kinds_of_calls_to_use(source) == [(3, k) for k in (TENSOR, TENSOR, TENSOR, None, TENSOR, None)] + [
        (5, TENSOR),
        (5, None),
        (7, TENSOR),
    ]


def test_dicts_of_tensors_give_their_values_not_their_keys():
    source = (
        "import torch\nfrom typing import Dict, Mapping\n"
        "def f(p: Dict[str, torch.Tensor], m: Mapping[str, torch.Tensor], n):\n"
        "    drawn = {'a': torch.rand(n), 'b': torch.zeros(n)}\n    mixed = {'a': torch.rand(n), 'b': n}\n"
        "    use(p['a']); use(m.get('a')); use(drawn['b']); use(mixed['a'])\n"
        "    for key in p:\n        use(key)\n    for value in drawn.values():\n        use(value)\n"
        "    for key, value in m.items():\n        use(key); use(value)\n"
    )
    assert kinds_of_calls_to_use(source) == [(6, k) for k in (TENSOR, TENSOR, TENSOR, None)] + [
        (8, None),
        (10, TENSOR),
        (12, None),
        (12, TENSOR),
    ]


def test_pandas_objects_are_frames_and_their_arrays_arrays():
    source = (
        "import pandas as pd\nimport torch\ndef f(path, frames, x: pd.Series):\n    table = pd.read_csv(path)\n"
        "    use(table); use(table['a'].isna()); use(x.all()); use(table.values); use(table.to_numpy())\n"
        "    for frame in frames:\n        use(frame.isna().all()); use(frame.loc[0]); use(frame.sum())\n"
        "    use(pd.api.types.is_numeric_dtype(x))\n"
    )
    assert kinds_of_calls_to_use(source) == [(5, k) for k in (FRAME, FRAME, FRAME, ARRAY, ARRAY)] + [
        (7, FRAME),
        (7, FRAME),
        (7, None),
        (8, None),
    ]


def test_what_a_project_function_returns_as_the_kernel_map_records_it():
    assert [
        project_kind(text) for text in ("tensor", "frame", "items:array", "values:tensor", "size:0", None)
    ] == [
        TENSOR,
        FRAME,
        (ITEMS, ARRAY),
        (VALUES, TENSOR),
        None,
        None,
    ]
    assert project_kind("tuple:,tensor,array") == (TUPLE, (None, TENSOR, ARRAY))
    assert project_kind("tuple:,") is None


def values_bound_to_names_used(source: str) -> list[tuple[int, object]]:
    """The source of the expression the argument of every ``use(name)`` was bound to (None: none)."""

    def ask(ctx, node: cst.Call):
        if getattr(node.func, "value", None) != "use":
            return "skip"
        found = bound_value(ctx, node.args[0].value)
        return None if found is None else cst.Module([]).code_for_node(found)

    return [(line, found) for line, found in probe(source, cst.Call, ask) if found != "skip"]


def test_a_name_keeps_the_expression_one_binding_gave_it():
    source = (
        "import torch\ndef f(x, c, xs):\n    peak = x.max()\n    use(peak)\n    if c:\n        peak = x.min()\n"
        "    use(peak)\n    total = x.sum()\n    if c:\n        print(c)\n    use(total)\n    total += 1\n"
        "    use(total)\n"
        "    use(x)\n    a, b = xs\n    use(a)\n    [use(peak) for peak in xs]\n"
    )
    assert values_bound_to_names_used(source) == [
        (4, "x.max()"),
        (7, None),
        (11, "x.sum()"),
        (13, None),
        (14, None),
        (16, None),
        (17, None),
    ]


def test_a_name_converted_to_numpy_when_it_is_a_tensor_holds_an_array_afterwards():
    source = (
        "import numpy as np\nimport torch\ndef f(x, y, t: torch.Tensor, z):\n"
        "    if isinstance(x, torch.Tensor):\n        x = x.numpy()\n    use(x)\n"
        "    if isinstance(y, torch.Tensor):\n        y = y.numpy()\n    else:\n        use(y)\n    use(y)\n"
        "    if isinstance(t, torch.Tensor):\n        t = t.numpy()\n    use(t)\n"
        "    if isinstance(z, torch.Tensor):\n        z = z.float()\n    use(z)\n"
    )
    assert kinds_of_calls_to_use(source) == [(6, ARRAY), (10, None), (11, ARRAY), (14, None), (17, None)]
