"""The project index: what a summary records, and that a warm index parses only what changed."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from helpers import lint_package

from torchperf_lint import cli
from torchperf_lint.config import Settings
from torchperf_lint.index import build as index_build
from torchperf_lint.index.build import summarize_bytes
from torchperf_lint.index.claims import Claim, claims_of
from torchperf_lint.index.conditions import failing_condition, renamed
from torchperf_lint.kernel_map import project as project_maps
from torchperf_lint.kernel_map.infer import KernelMap


@pytest.fixture
def package(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.torchperf-lint]\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    for index in range(6):
        (tmp_path / "pkg" / f"m{index}.py").write_text(f"import torch\n\ndef f{index}(x):\n    return x\n")
    monkeypatch.chdir(tmp_path)
    project_maps.forget()
    return tmp_path


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The files the index parsed (every summary is built by ``summarize_file``)."""
    seen: list[str] = []
    real = index_build.summarize_file

    def spy(task):
        seen.append(task.path.name)
        return real(task)

    monkeypatch.setattr(index_build, "summarize_file", spy)
    return seen


def index_run(root: Path) -> int:
    project_maps.forget()  # a new process: only the stored index is left
    found = project_maps.project_map(root, Settings(root=root, source=root / "pyproject.toml"), root / ".cache")
    return found.index.parsed


def test_a_changed_file_re_indexes_only_itself(package, parses):
    assert index_run(package) == 7
    assert index_run(package) == 0
    (package / "pkg" / "m3.py").write_text("import torch\n\ndef f3(x):\n    return x * 2\n")
    parses.clear()
    assert index_run(package) == 1
    assert parses == ["m3.py"]


def test_a_touched_but_unchanged_file_is_hashed_not_parsed(package, parses):
    index_run(package)
    stat = (package / "pkg" / "m1.py").stat()
    os.utime(package / "pkg" / "m1.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    parses.clear()
    assert index_run(package) == 0 and parses == []


def test_a_damaged_manifest_or_summary_is_rebuilt_and_nothing_else(package, parses):
    index_run(package)
    summaries = sorted((package / ".cache").glob("index-v*/summaries/*/*.json"))
    assert len(summaries) == 7
    summaries[0].write_text("{not json")
    (facts,) = (package / ".cache").glob("index-v*/facts/*.json")
    facts.unlink()  # so the map is inferred again, from every summary
    parses.clear()
    assert index_run(package) == 0 and len(parses) == 1  # only the damaged summary is parsed again
    (manifest,) = (package / ".cache").glob("index-v*/projects/*.json")
    manifest.write_text('{"tool": "another version", "files": {}}')
    assert index_run(package) == 7


def test_an_edit_that_only_moves_lines_reuses_the_stored_facts(package, monkeypatch):
    index_run(package)
    inferred: list[int] = []
    real = project_maps.KernelMap

    def spy(*args, **kwargs):
        inferred.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(project_maps, "KernelMap", spy)
    (package / "pkg" / "m2.py").write_text("import torch\n\n\n# moved down\ndef f2(x):\n    return x\n")
    assert index_run(package) == 1 and inferred == []
    (package / "pkg" / "m2.py").write_text("import torch\nfrom pkg.m1 import f1\n\ndef f2(x):\n    return f1(x)\n")
    assert index_run(package) == 1 and inferred == [1]


def test_a_pre_commit_run_on_two_files_parses_no_other_file(package, parses, capsys):
    cli.main(["check", "-q", "pkg/m0.py", "pkg/m1.py"])
    assert sorted(parses) == ["__init__.py", *(f"m{i}.py" for i in range(6))]
    parses.clear()
    (package / "pkg" / "m0.py").write_text("import torch\n\ndef f0(x):\n    return x.cuda()\n")
    project_maps.forget()
    cli.main(["check", "-q", "pkg/m0.py", "pkg/m1.py"])
    assert parses == ["m0.py"]
    assert "pkg/m0.py:4:12: TPL003" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("docstring", "expected"),
    [
        ("Sample one prevalidated CPU volume.", [Claim(1, "Sample one prevalidated CPU volume.", None, None)]),
        (
            "Resize.\n\nCallers validate the container, layout, dtype, and control data.",
            [
                Claim(
                    3,
                    "Callers validate the container, layout, dtype, and control data.",
                    None,
                    ("container", "dtype", "layout", "shape", "value"),
                )
            ],
        ),
        (
            "Shapes and dtypes are validated by the caller.",
            [Claim(1, "Shapes and dtypes are validated by the caller.", None, ("dtype", "shape"))],
        ),
        (
            "Warp.\n\n    Args:\n        volume: Prevalidated CDHW volume.\n        size: Output size.\n",
            [Claim(4, "volume: Prevalidated CDHW volume.", ("volume",), None)],
        ),
        (
            "The caller owns validation of the layout.",
            [Claim(1, "The caller owns validation of the layout.", None, ("layout", "shape"))],
        ),
        ("Warp.\n\nThe prevalidated kernels are applied in depth order.", []),
        ("Callers need not validate anything: this function checks.", []),
        ("Validate the volume and raise on a bad one.", []),
    ],
    ids=[
        "adjective",
        "verb-list",
        "passive",
        "args-entry",
        "owns",
        "adjective-elsewhere",
        "negated",
        "imperative",
    ],
)
def test_docstring_claims(docstring, expected):
    assert list(claims_of(docstring, 1, ("volume", "size"))) == expected


def test_an_if_raise_and_an_assert_of_the_same_condition_compare_equal():
    negative = ast.parse("not isinstance(x, torch.Tensor)", mode="eval").body
    positive = ast.parse("isinstance( x ,torch.Tensor )", mode="eval").body
    assert failing_condition(negative, asserted=False) == failing_condition(positive, asserted=True)
    assert renamed("x.ndim != 4", {"x": "volume"}) == "volume.ndim != 4"
    assert renamed("k > 0", {"x": "volume"}) is None


def test_names_follow_relative_imports_and_aliases_across_modules():
    types = summarize_bytes(b"import torch\nVolume = torch.Tensor\n", "pkg.types", False)
    kernel = summarize_bytes(
        b"import torch.nn.functional as F\nfrom .types import Volume\n\n"
        b"def _route(volume: Volume) -> Volume:\n    return F.pad(volume, (1, 1))\n",
        "pkg.kernels",
        False,
    )
    (function,) = kernel.functions
    assert function.params[0].annotation == "pkg.types.Volume"
    assert function.heavy == (("torch.nn.functional.pad", None),)
    kernel_map = KernelMap([types, kernel])
    assert kernel_map.kind_of_type("pkg.types.Volume") == "tensor"
    assert kernel_map.returns("pkg.kernels._route") == "tensor"
    assert kernel_map.roles["pkg.kernels._route"].primitive == (
        "takes a tensor, returns data and calls `torch.nn.functional.pad`"
    )


def test_a_file_cpython_cannot_parse_has_an_empty_summary():
    summary = summarize_bytes(b"def f(:\n", "pkg.broken", False)
    assert summary.functions == () and summary.syntax_error is not None


def test_a_helper_in_another_module_tells_the_rules_what_it_returns(tmp_path):
    """TPL103 reads a tensor inside a loop; a NumPy array produced by another module's function is not one."""
    found = lint_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/stats.py": "import numpy as np\n\ndef edges(n) -> np.ndarray:\n    return np.arange(n)\n",
            "pkg/grid.py": "import torch\n\ndef cells(n) -> torch.Tensor:\n    return torch.arange(n)\n",
            "pkg/loop.py": "import torch\nfrom .stats import edges\nfrom pkg.grid import cells\n\n"
            "def f(n):\n    for i in range(n):\n        a = edges(n).tolist()\n        b = cells(n).tolist()\n",
        },
        "TPL103",
    )
    assert found == [("pkg/loop.py", "TPL103", 8, 13)]


def test_a_module_reaching_torch_through_the_project_is_linted_for_tensor_methods_and_devices(tmp_path):
    """A file that names no torch but imports a project module that does works on tensors:
    `.requires_grad_()` and a device test there are torch's. A `.tolist()` (NumPy has one too) and
    a file whose project imports never reach torch stay silent."""
    body = (
        "def evaluate(batch, device_type):\n    samples = batch['input'].requires_grad_(True)\n"
        "    if device_type == 'cuda':\n        return samples\n"
        "    for row in batch['rows']:\n        print(row.tolist())\n"
    )
    found = lint_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/tensors.py": "import torch\n\nclass LabelTensor(torch.Tensor):\n    pass\n",
            "pkg/text.py": "def words(s):\n    return s.split()\n",
            "pkg/condition.py": "from pkg.tensors import LabelTensor\n\n" + body,
            "pkg/config.py": "from .text import words\n\n" + body,
        },
        "TPL001",
        "TPL003",
        "TPL103",
    )
    assert sorted(found) == [("pkg/condition.py", "TPL001", 4, 15), ("pkg/condition.py", "TPL003", 5, 8)]


def test_a_helper_returning_locals_bound_to_arrays_returns_arrays(tmp_path):
    """What a helper's locals hold flows to its callers: locals bound to NumPy calls in the function's
    own block are arrays, a local bound in a branch to something else is not."""
    found = lint_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/prepare.py": "import numpy as np\n\ndef prepare(e, flag):\n    e = np.nan_to_num(e)\n"
            "    a = np.abs(e) if flag else np.clip(e, 0, None)\n    return e, a\n\n"
            "def maybe(e, flag):\n    if flag:\n        e = np.abs(e)\n    return e\n",
            "pkg/loop.py": "import torch\nfrom pkg.prepare import maybe, prepare\n\n"
            "def f(es):\n    es, ab = prepare(es, True)\n    m = maybe(es, False)\n"
            "    for i in range(3):\n        if ab[i].sum() == 0:\n            continue\n"
            "        if m[i].sum() == 0:\n            continue\n",
        },
        "TPL103",
    )
    assert found == [("pkg/loop.py", "TPL103", 10, 12)]


def test_a_function_returning_an_astype_result_returns_an_array():
    summary = summarize_bytes(
        b"import numpy as np\n\ndef as_float(a):\n    return a.astype(np.float32)\n", "pkg.io", False
    )
    assert KernelMap([summary]).returns("pkg.io.as_float") == "array"


def test_tensor_methods_give_tensors_numpy_an_array_and_item_a_number():
    """A long chain of a tensor's methods is read link by link, once each (a chain of 40 links)."""
    chain = "torch.zeros(3)" + ".float()" * 40
    source = (
        "import torch\n\n"
        f"def chained(x):\n    return {chain}\n\n"
        "def pair(a, b):\n    d = torch.abs(a - b)\n    return d.sum(), (d > 0).float()\n\n"
        "def as_array(a):\n    return torch.abs(a).numpy()\n\n"
        "def count(a):\n    return torch.abs(a).item()\n"
    )
    kernel_map = KernelMap([summarize_bytes(source.encode(), "pkg.t", False)])
    kinds = {name: kernel_map.returns(f"pkg.t.{name}") for name in ("chained", "pair", "as_array", "count")}
    assert kinds == {"chained": "tensor", "pair": "tuple:tensor,tensor", "as_array": "array", "count": "scalar"}


def test_a_summary_records_the_containers_and_measures_a_function_returns():
    summary = summarize_bytes(
        b"import numpy as np\nimport pandas as pd\nimport torch\nfrom typing import Dict, List, Tuple\n\n"
        b"def pair(x) -> Tuple[np.ndarray, np.ndarray]:\n    return np.histogram(x)\n\n"
        b"def mixed(x) -> tuple[int, torch.Tensor]:\n    return 1, torch.zeros(1)\n\n"
        b"def rows(x) -> List[torch.Tensor]:\n    return list(x)\n\n"
        b"def table(x) -> Dict[str, torch.Tensor]:\n    return {}\n\n"
        b"def frame(path) -> pd.DataFrame:\n    return pd.read_csv(path)\n\n"
        b"def raw(path):\n    return pd.read_csv(path)\n\n"
        b"def both(x):\n    return torch.zeros(1), np.zeros(1)\n\n"
        b"def channels(img):\n    if img.ndim == 2:\n        return 1\n    return img.shape[-3]\n\n"
        b"def shape(x, y) -> torch.Size:\n    return y.size()\n\n"
        b"def inner(x):\n    return x.stride(1)\n\n"
        b"def forwarded(x):\n    return channels(x)\n\n"
        b"def counts(x) -> Tuple[int, int]:\n    return 1, 2\n",
        "pkg.m",
        False,
    )
    recorded = {f.name: f.returns for f in summary.functions}
    assert recorded == {
        "pair": "type:tuple[numpy.ndarray,numpy.ndarray]",
        "mixed": "type:tuple[,torch.Tensor]",
        "rows": "type:items[torch.Tensor]",
        "table": "type:values[torch.Tensor]",
        "frame": "type:pandas.DataFrame",
        "raw": "frame",
        "both": "tuple:tensor,array",
        "channels": "size:0",
        "shape": "shape:1",
        "inner": "stride:0",
        "forwarded": "=pkg.m.channels",
        "counts": None,
    }
    kernel_map = KernelMap([summary])
    kinds = {name: kernel_map.returns(f"pkg.m.{name}") for name in recorded}
    assert kinds == {
        "pair": "tuple:array,array",
        "mixed": "tuple:,tensor",
        "rows": "items:tensor",
        "table": "values:tensor",
        "frame": "frame",
        "raw": "frame",
        "both": "tuple:tensor,array",
        "channels": "size:0",
        "shape": "shape:1",
        "inner": "stride:0",
        "forwarded": None,  # a measure names the callee's parameter, not necessarily the caller's
        "counts": None,
    }
