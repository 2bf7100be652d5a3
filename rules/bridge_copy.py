"""TPL105: NumPy/Torch bridges that copy where a zero-copy view exists."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.fixes import UNSAFE, NodeEdit, PendingFix
from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit import dtypes, writes
from torchperf_lint.toolkit.exemptions import test_files
from torchperf_lint.toolkit.functions import binding_loop, parameters
from torchperf_lint.toolkit.matching import int_value, is_literal, keyword, method_name, positional, source_of
from torchperf_lint.toolkit.traversal import in_source_order, walk
from torchperf_lint.toolkit.types import ARRAY, TENSOR, bound_value, kind_of

_NUMPY_COPIES = frozenset({"numpy.array"})
#: Zero-copy bridges from an array to a tensor.
_BRIDGES = frozenset({"torch.from_numpy", "torch.as_tensor"})


#: NumPy reductions: over every element (no ``axis``) they give one NumPy scalar.
_FULL_REDUCTIONS = frozenset(
    "mean sum prod max min amax amin argmax argmin std var median average nanmean nansum nanmax nanmin "
    "nanstd nanvar ptp all any count_nonzero".split()
)
#: Annotations of a Python number.
_NUMBERS = frozenset({"int", "float"})
#: Named numbers of NumPy and ``math``.
_CONSTANTS = frozenset(f"{module}.{name}" for module in ("numpy", "math") for name in ("pi", "e", "tau", "inf"))
#: NumPy functions that return a view with a negative stride, which no zero-copy bridge takes.
_FLIPS = frozenset({"numpy.flip", "numpy.fliplr", "numpy.flipud", "numpy.rot90"})
#: NumPy functions that map numbers to numbers: given Python numbers they return a NumPy scalar
#: (constructors such as ``np.zeros(3)`` take a shape instead, and return an array).
_ELEMENTWISE = frozenset(
    f"numpy.{name}"
    for name in (
        "radians",
        "degrees",
        "deg2rad",
        "rad2deg",
        "sin",
        "cos",
        "tan",
        "arcsin",
        "arccos",
        "arctan",
        "arctan2",
        "hypot",
        "exp",
        "expm1",
        "log",
        "log1p",
        "log2",
        "log10",
        "sqrt",
        "power",
        "abs",
        "absolute",
        "floor",
        "ceil",
        "round",
        "float32",
        "float64",
        "int32",
        "int64",
    )
)


class BridgeCopy(Rule):
    code = "TPL105"
    name = "bridge-copy"
    hint = "Use torch.from_numpy/torch.as_tensor, or drop the extra copy."
    summary = "A copying NumPy/Torch bridge where a zero-copy one exists"
    message = "`{what}` copies an existing array or tensor; {instead}"
    why = (
        "`torch.tensor(x)` always copies, even when `x` is already an array or tensor, and "
        "`np.array(t.numpy())` or `.numpy().copy()` on a fresh result copy a buffer nobody else "
        "holds. `torch.from_numpy`/`torch.as_tensor` and `Tensor.numpy()` share memory; the copy is "
        "a full pass over the volume that buys nothing."
    )
    example = "weights = torch.tensor(np.load(path))"
    use_instead = "weights = torch.from_numpy(np.load(path))"
    notes = (
        "`torch.tensor(x)` is flagged when `x` is known to hold an array or a tensor where it "
        "is read: a call into `numpy` or a torch function that returns a tensor, a `.numpy()` result, an "
        "array `.astype` made (NumPy's `astype` returns an array whatever it is called on, so "
        "`torch.tensor(a.astype(...))` copies the array `astype` just made a second time), a method "
        "chain on one of those, a project function known to return one (in this file or another module), "
        "or a name bound to one of them or annotated `np.ndarray`, `npt.NDArray[...]` or `torch.Tensor` "
        "(also a shaped type such as `Float[torch.Tensor, 'n']`, or a type alias of the module for one). "
        "A rebinding takes effect after its right-hand side, so in `mean = torch.tensor(mean)` the "
        "argument is whatever `mean` held before (often a list). Exempt: literals (`torch.tensor([1, "
        "2])`) and values of unknown type, since converting a Python list or number has to copy (a "
        "value a test has just shown to be no tensor counts as unknown, whatever its annotation: `if "
        "not torch.is_tensor(v): v = torch.tensor(v)`); a copy of a value the function hands to "
        "`torch.from_numpy` or `torch.as_tensor` before it, which is the fallback for arrays the "
        "bridge cannot take (read-only, negative strides, dtypes torch lacks); a view with a negative "
        "stride (`a[::-1]`, `a[:, ::-2]`, `np.flip(a)`, `np.fliplr`, `np.flipud`, `np.rot90`, directly or "
        "through the name bound to one), which both bridges refuse, so only a copy converts it; a copy "
        "made into a "
        "learnable parameter (`nn.Parameter(torch.tensor(embeddings))`, directly or through the name "
        "it is bound to; not one made with `requires_grad=False`), which training writes in place "
        "and which must not write through to the "
        "caller's array; an element picked from an "
        "array by plain "
        "positions (`scores[-1]`, `table[i, j]`, directly or "
        "through a name, or a loop's target over an array, `for z in np.linspace(a, b, n)`), which "
        "is a NumPy scalar when the array has that many axes and has no "
        "zero-copy bridge, unless the function indexes the same array over more axes elsewhere "
        "(`signal[:, i, j] = 1` beside `torch.tensor(signal[0])`); an elementwise NumPy function of "
        "Python numbers (`np.radians(alpha)` with `alpha=40` a parameter default, or annotated `float`; "
        "also NumPy's and `math`'s constants, arithmetic on numbers and nested calls: "
        "`np.log(np.sqrt(2 * np.pi))`), which gives a NumPy scalar too, as does a reduction over every "
        "element (`np.mean(scores)`, `a.sum()` of an array, with no axis); and a "
        "conversion: `torch.tensor(x, dtype=...)` unless `x` is known to have that dtype already "
        "(`a.astype(np.float32)` with `dtype=torch.float32`), since converting copies whichever "
        "function does it. A dtype is known from what the code spells: `astype`, `dtype=`, a tensor cast "
        "such as `.float()`, or the float default of a NumPy or torch constructor, through a name only "
        "when its last binding is on every way to the call (an `if`/`elif` chain binding it in each arm "
        "may give several dtypes). The legacy "
        "constructors (`torch.Tensor(x)`, `torch.FloatTensor(x)`, `torch.ByteTensor(x)`...) are not "
        "flagged: measured on torch 2.13, given an array or a tensor of their own dtype they share its "
        "memory (as `torch.as_tensor` does), and given another dtype they convert, which copies anyway. "
        "`.numpy().copy()` is "
        "flagged only on a fresh result (`f(x).numpy().copy()`, also through `.detach().cpu()`), where "
        "nothing else can see the buffer; `t.detach().cpu().numpy()` of a CPU tensor is `t`'s own memory."
    ) + test_files(
        "tests build expected values from reference arrays with `torch.tensor(...)` on purpose, so the "
        "expectation owns its memory and no kernel can write through to it"
    )
    fix = UNSAFE
    fix_safety = (
        "`torch.tensor(...)` becomes `torch.as_tensor(...)` with the same arguments (unsafe: the "
        "result now shares memory with the argument, so later writes to either are seen by both). "
        "The NumPy-side copies have no fix."
    )
    valid = (
        # a dtype asked of a name bound in each arm of a chain, in different dtypes
        "import numpy as np\nimport torch\ndef noise(kind, n, s):\n    if kind == 'normal':\n"
        "        f = np.random.randn(n, 3) * s\n    elif kind == 'uniform':\n"
        "        f = np.random.uniform(-s, s, size=(n, 3))\n    else:\n"
        "        f = np.zeros((n, 3), dtype=np.float32)\n"
        "    return torch.tensor(f, dtype=torch.float32)\n",
        # a view with a negative stride, which no zero-copy bridge takes: inline, through a name, np.flip
        "import numpy as np\nimport torch\ndef f(index, a: np.ndarray, img: np.ndarray):\n    r = a[:, ::-1]\n"
        "    return torch.tensor(np.array(index)[::-1]), torch.tensor(r), torch.tensor(np.flip(img, 0))\n",
        # a reduction over every element gives one NumPy scalar: directly, through a name, a method
        "import numpy as np\nimport torch\ndef f(batch_ssim, device):\n"
        "    return torch.tensor(np.mean(batch_ssim), device=device)\n",
        "import numpy as np\nimport torch\ndef f(values):\n    total = np.sum(values)\n"
        "    return torch.tensor(total)\n",
        "import numpy as np\nimport torch\ndef f(scores: np.ndarray):\n    return torch.tensor(scores.max())\n",
        # a caller's array made into a trainable parameter: training writes it in place
        "import numpy as np\nimport torch\nfrom torch import nn\ndef f(m: np.ndarray):\n"
        "    w = nn.Parameter(torch.tensor(m), requires_grad=True)\n    t = torch.tensor(m)\n"
        "    v = torch.nn.parameter.Parameter(t)\n    return w, v\n",
        "import torch\nt = torch.tensor([1.0, 2.0])\n",
        # the copy is the fallback for arrays the zero-copy bridge cannot take
        "import numpy as np\nimport torch\ndef wrap(a: np.ndarray):\n    if a.flags.writeable:\n        try:\n"
        "            return torch.from_numpy(a)\n        except TypeError:\n            pass\n"
        "    return torch.tensor(a)\n",
        "import numpy as np\nimport torch\ndef wrap(a: np.ndarray):\n    try:\n        t = torch.as_tensor(a)\n"
        "    except ValueError:\n        t = torch.tensor(a)\n    return t\n",
        "import numpy as np\nimport torch\ndef wrap(a: np.ndarray):\n"
        "    if min(a.strides) > 0 and a.flags.writeable:\n        return torch.from_numpy(a)\n"
        "    return torch.tensor(a)\n",
        # NumPy on Python numbers gives a NumPy scalar, which no function shares
        "import numpy as np\nimport torch\nclass Loss:\n    def __init__(self, alpha=40):\n"
        "        self.alpha = torch.tensor(np.radians(alpha))\n",
        "import numpy as np\nimport torch\ndef f(theta: float):\n    return torch.tensor(np.cos(theta))\n",
        "import numpy as np\nimport torch\nSQRT2 = torch.tensor(np.sqrt(2.0))\n",
        "import math\nimport numpy as np\nimport torch\nLOG_2PI = torch.tensor(np.log(np.sqrt(2 * np.pi)))\n"
        "HALF = torch.tensor(np.exp(-math.pi / 2))\n",
        "import numpy as np\nimport torch\ndef f(scale: float):\n    return torch.tensor(np.log(scale * np.e))\n",
        # where a test says the value is no tensor, the annotation no longer holds
        "import torch\nfrom torch import Tensor\ndef f(matrix: Tensor):\n"
        "    if not isinstance(matrix, Tensor):\n        matrix = torch.tensor(matrix)\n    return matrix\n",
        "import torch\ndef f(value: torch.Tensor):\n    if not torch.is_tensor(value):\n"
        "        value = torch.tensor(value)\n    return value * 2\n",
        "import torch\ndef f(value: torch.Tensor):\n    if torch.is_tensor(value):\n        return value\n"
        "    return torch.tensor(value)\n",
        # an element picked by plain indices may be a NumPy scalar, which only a copy converts
        "import numpy as np\nimport torch\ndef f(scores: np.ndarray):\n    return torch.tensor(scores[-1])\n",
        "import numpy as np\nimport torch\ndef f(table: np.ndarray, i, j):\n    value = table[i, j]\n"
        "    return torch.tensor(value).float()\n",
        "import numpy as np\nimport torch\ndef f(classes, label):\n"
        "    return torch.tensor(np.where(classes == label)[0][0])\n",
        "import torch\ndef f(values):\n    return torch.tensor(values)\n",
        "import numpy as np\nimport torch\ndef f(t):\n    a = t.numpy().copy()\n    return a\n",
        "import torch\nimport numpy as np\nt = torch.from_numpy(np.zeros(3))\n",
        "import torch\nseed = torch.tensor(torch.cuda.initial_seed())\n",
        "import torch\ndef f(mean):\n    if isinstance(mean, (tuple, list)):\n        mean = torch.tensor(mean)\n"
        "    return mean\n",
        "import torch\nimport numpy as np\ndef f(x):\n    x = np.asarray(x)\n    x = x.tolist()\n"
        "    return torch.tensor(x)\n",
        "import torch\ndef f(labels):\n    return torch.LongTensor(labels)\n",
        "import torch\ndef f(mean):\n    if isinstance(mean, float):\n        mean = torch.tensor([mean])\n"
        "    if isinstance(mean, (tuple, list)):\n        mean = torch.tensor(mean)\n    return mean\n",
        "import torch\nimport numpy as np\nstd = torch.tensor(np.float64(s) + 1e-6, dtype=torch.float64)\n",
        "import torch\ndef f(kpts, size: torch.Tensor):\n    if isinstance(size, torch.Size):\n"
        "        size = torch.tensor(size)[None]\n    return kpts / size\n",
        "import torch\nimport numpy as np\nfrom numpy.typing import NDArray\n"
        "def f(a: NDArray[np.uint8]):\n    return torch.from_numpy(a), a.tolist()\n",
        "import torch\ndef f(alpha: torch.Tensor):\n    if isinstance(alpha, torch.Tensor):\n"
        "        a = alpha[0]\n    else:\n        a = torch.tensor(alpha[0])\n    return a\n",
        "import numpy as np\nimport torch\nt = torch.tensor(np.zeros(3), dtype=torch.float32)\n",
        "import numpy as np\nimport torch\ndef f(path, img):\n    a = np.load(path)\n"
        "    x = img.astype(np.float32)\n"
        "    return torch.tensor(a, dtype=torch.float32), torch.tensor(x, dtype=torch.float16)\n",
        "import numpy as np\nimport torch\ndef _load(path):\n    return np.load(path)\n"
        "def f(path):\n    return torch.tensor(_load(path), dtype=torch.float32)\n",
        "import numpy as np\nimport torch\ndef f(img):\n    return torch.from_numpy(img.astype(np.float32))\n",
        "import numpy as np\nimport torch\nt = torch.FloatTensor(np.zeros(3))\n",
        # legacy constructors share an array or tensor of their own dtype, and convert any other
        "import numpy as np\nimport torch\nt = torch.DoubleTensor(np.zeros(3))\n"
        "mask = torch.ByteTensor(np.array(rows))\n"
        "def f(arr: np.ndarray, x: torch.Tensor):\n    return torch.FloatTensor(arr), torch.Tensor(x)\n",
        # a loop's target over an array is one of its elements: in a loop, a comprehension, through a name
        "import numpy as np\nimport torch\ndef f(lo, hi, n, out):\n    for z in np.linspace(lo, hi, n):\n"
        "        out.append(torch.tensor(z))\n",
        "import numpy as np\nimport torch\ndef f(n):\n    return [torch.tensor(z) for z in np.arange(n)]\n",
        "import numpy as np\nimport torch\ndef f(lo, hi, n):\n    steps = np.linspace(lo, hi, n)\n"
        "    for z in steps:\n        print(torch.tensor(z))\n",
        # ``.numpy()`` of the caller's tensor, through methods that may hand its own memory back
        "import torch\ndef f(t):\n    return t.detach().cpu().numpy().copy()\n",
        "import torch\ndef f(t):\n    return t.permute(1, 2, 0).contiguous().numpy().copy()\n",
    )
    invalid = (
        Invalid(  # positive steps keep the strides positive: the bridge takes the view
            "import numpy as np\nimport torch\ndef g(a: np.ndarray):\n"
            "    return torch.tensor(a[::2]), torch.tensor(a[1:])\n",
            ((4, 12), (4, 34)),
            fixed="import numpy as np\nimport torch\ndef g(a: np.ndarray):\n"
            "    return torch.as_tensor(a[::2]), torch.as_tensor(a[1:])\n",
        ),
        Invalid(  # a reduction along an axis gives an array
            "import numpy as np\nimport torch\ndef f(scores: np.ndarray):\n"
            "    return torch.tensor(np.mean(scores, axis=0)), torch.tensor(scores.sum(1))\n",
            ((4, 12), (4, 51)),
        ),
        Invalid(  # the copy is only read, or handed to something that is no parameter
            "import numpy as np\nimport torch\nfrom torch import nn\ndef f(m: np.ndarray):\n"
            "    t = torch.tensor(m)\n"
            "    frozen = nn.Parameter(torch.tensor(m), requires_grad=False)\n"
            "    return Wrapper(torch.tensor(m)), t.sum(), frozen\n",
            ((5, 9), (6, 27), (7, 20)),
        ),
        Invalid(  # the bridge took another value, or comes after the copy: no fallback
            "import numpy as np\nimport torch\ndef f(a: np.ndarray, b: np.ndarray):\n"
            "    x = torch.from_numpy(b)\n    y = torch.tensor(a)\n    z = torch.tensor(b)\n"
            "    return x, y, z, torch.from_numpy(a)\n",
            ((5, 9),),
        ),
        Invalid(  # arithmetic with an array is an array
            "import numpy as np\nimport torch\ndef f(angles: np.ndarray):\n"
            "    return torch.tensor(np.log(2 * np.pi * angles))\n",
            ((4, 12),),
        ),
        Invalid(  # NumPy on an array, or on a parameter rebound to one, gives an array
            "import numpy as np\nimport torch\ndef f(angles: np.ndarray, alpha=40):\n"
            "    alpha = np.asarray(angles)\n"
            "    return torch.tensor(np.radians(angles)), torch.tensor(np.radians(alpha))\n",
            ((5, 12), (5, 46)),
        ),
        Invalid(
            "import numpy as np\nimport torch\nt = torch.tensor(np.zeros(3), dtype=torch.float64)\n",
            ((3, 5),),
            fixed="import numpy as np\nimport torch\nt = torch.as_tensor(np.zeros(3), dtype=torch.float64)\n",
        ),
        Invalid(
            "import numpy as np\nimport torch\ndef f(img):\n    x = img.astype(np.float32)\n"
            "    return torch.tensor(x), torch.tensor(img.astype('f4').reshape(-1), dtype=torch.float)\n",
            ((5, 12), (5, 29)),
            fixed="import numpy as np\nimport torch\ndef f(img):\n    x = img.astype(np.float32)\n"
            "    return torch.as_tensor(x), torch.as_tensor(img.astype('f4').reshape(-1), dtype=torch.float)\n",
        ),
        Invalid(
            "import numpy as np\nimport torch\ndef _as_float(a):\n    return a.astype(np.float32)\n"
            "def f(img):\n    return torch.tensor(_as_float(img))\n",
            ((6, 12),),
        ),
        Invalid(
            "import numpy as np\nimport torch\ndef _load(path):\n    return np.load(path)\n"
            "def f(path):\n    return torch.tensor(_load(path))\n",
            ((6, 12),),
        ),
        Invalid(
            "import numpy as np\nimport torch\ndef f(a: np.ndarray, i, keep: np.ndarray):\n"
            "    rows = a[i:]\n    return torch.tensor(a[:, i]), torch.tensor(rows), torch.tensor(a[keep])\n",
            ((5, 12), (5, 35), (5, 55)),
        ),
        Invalid(
            "import numpy as np\nimport torch\ndef f(m):\n    if not isinstance(m, np.ndarray):\n"
            "        return m\n    return torch.tensor(m)\n",
            ((6, 12),),
            fixed="import numpy as np\nimport torch\ndef f(m):\n    if not isinstance(m, np.ndarray):\n"
            "        return m\n    return torch.as_tensor(m)\n",
        ),
        Invalid(
            "import numpy as np\nimport torch\ndef f(path, mask):\n    split = np.load(path)\n"
            "    mask[torch.tensor(split['train'])] = True\n    part = split[f'{path}']\n"
            "    return torch.tensor(part)\n",
            ((5, 10), (7, 12)),
        ),
        Invalid(
            "import numpy as np\nimport torch\ndef f(signal: np.ndarray, i, j):\n    signal[:, i, j] = 1.0\n"
            "    first = signal[0]\n    return torch.tensor(signal[0]), torch.tensor(first)\n",
            ((6, 12), (6, 37)),
        ),
        Invalid(
            "import numpy as np\nimport torch\ndef f(a: np.ndarray):\n    return torch.tensor(a)\n",
            ((4, 12),),
            fixed="import numpy as np\nimport torch\ndef f(a: np.ndarray):\n    return torch.as_tensor(a)\n",
        ),
        Invalid("import numpy as np\nimport torch\na = np.array(t.numpy())\n", ((3, 5),)),
        Invalid("import torch\na = (x * 2).numpy().copy()\n", ((2, 5),)),
        Invalid("import torch\ndef f(model, x):\n    return model(x).detach().cpu().numpy().copy()\n", ((3, 12),)),
        Invalid("import torch\ndef f(x):\n    y = torch.ones(3)\n    return torch.tensor(y)\n", ((4, 12),)),
        Invalid(
            "import torch\nimport numpy.typing as npt\ndef f(a: npt.NDArray[np.uint8], t: torch.Tensor | None):\n"
            "    return torch.tensor(a), torch.tensor(t)\n",
            ((4, 12), (4, 29)),
            fixed="import torch\nimport numpy.typing as npt\n"
            "def f(a: npt.NDArray[np.uint8], t: torch.Tensor | None):\n"
            "    return torch.as_tensor(a), torch.as_tensor(t)\n",
        ),
        Invalid(
            "import torch\nimport numpy as np\ndef f(mask):\n    mask = torch.tensor(np.array(mask))\n"
            "    return torch.tensor(mask)\n",
            ((4, 12), (5, 12)),
            fixed="import torch\nimport numpy as np\ndef f(mask):\n    mask = torch.as_tensor(np.array(mask))\n"
            "    return torch.as_tensor(mask)\n",
        ),
        Invalid(
            "import torch\nimport numpy as np\nfrom numpy.typing import NDArray\n"
            "def f(a: NDArray[np.uint8], rows):\n"
            "    return torch.tensor(a), torch.tensor(np.stack(rows).astype(np.float32))\n",
            ((5, 12), (5, 29)),
            fixed="import torch\nimport numpy as np\nfrom numpy.typing import NDArray\n"
            "def f(a: NDArray[np.uint8], rows):\n"
            "    return torch.as_tensor(a), torch.as_tensor(np.stack(rows).astype(np.float32))\n",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualname = self.ctx.qualname(node.func)
        args = positional(node)
        if qualname == "torch.tensor" and args and self._is_array(node, args[0].value):
            if self._converts(node, args[0].value) or self._falls_back_from_bridge(node, args[0].value):
                return
            if self._becomes_parameter(node):
                return
            self.report(
                node,
                fix=self._as_tensor_fix(node),
                what="torch.tensor(...)",
                instead="use `torch.as_tensor`/`torch.from_numpy`",
            )
        elif qualname in _NUMPY_COPIES and args and _is_numpy_call(args[0].value) and len(node.args) == 1:
            self.report(node, what="np.array(t.numpy())", instead="`t.numpy()` is already an array")
        elif method_name(node) == "copy" and not node.args and self.ctx.imports_torch:
            receiver = node.func.value  # type: ignore[attr-defined]
            if _is_numpy_call(receiver) and _is_fresh(receiver.func.value):
                self.report(node, what=".numpy().copy()", instead="the fresh result's buffer is already private")

    def _is_array(self, node: cst.Call, value: cst.BaseExpression) -> bool:
        """Known to hold a NumPy array or a tensor where it is read (unknown values are not), or an
        array ``.astype`` just made. An element picked from an array by plain indices (``scores[-1]``,
        ``table[i, j]``) may be a NumPy scalar, which has no zero-copy bridge, so it does not count."""
        kind = kind_of(self.ctx, value)
        if kind == ARRAY and (
            self._may_be_element(value)
            or self._of_python_numbers(value)
            or self._reduces_to_scalar(value)
            or self._has_negative_strides(value)
        ):
            return False
        return kind in (ARRAY, TENSOR) or dtypes.from_astype(self.ctx, value, node)

    def _becomes_parameter(self, node: cst.Call) -> bool:
        """``nn.Parameter(torch.tensor(embeddings))``, directly or through the name the copy is bound
        to: training updates a parameter in place, so a tensor sharing the caller's array would write
        through to it. The copy keeps the caller's array as it was."""
        parent = self.ctx.parent
        grandparent = self.ctx.ancestors[-3] if len(self.ctx.ancestors) > 2 else None
        if isinstance(parent, cst.Arg) and isinstance(grandparent, cst.Call):
            return _trained(self.ctx, grandparent)
        if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1):
            return False
        target = parent.targets[0].target
        function = self.ctx.enclosing_function()
        if not isinstance(target, cst.Name) or function is None:
            return False
        return any(
            isinstance(found, cst.Call)
            and _trained(self.ctx, found)
            and any(isinstance(arg.value, cst.Name) and arg.value.value == target.value for arg in found.args)
            for found in walk(function.body)
        )

    def _falls_back_from_bridge(self, node: cst.Call, value: cst.BaseExpression) -> bool:
        """The function hands the same value to ``torch.from_numpy`` or ``torch.as_tensor`` before
        this copy: the copy is the fallback for arrays the bridge cannot take (read-only buffers,
        negative strides, dtypes torch lacks), reached when it failed or was not tried."""
        function = self.ctx.enclosing_function()
        if function is None:
            return False
        text = source_of(value)
        for found in in_source_order(function.body):
            if found is node:
                return False
            if isinstance(found, cst.Call) and self.ctx.qualname(found.func) in _BRIDGES:
                bridged = positional(found)
                if bridged and source_of(bridged[0].value) == text:
                    return True
        return False

    def _of_python_numbers(self, value: cst.BaseExpression) -> bool:
        """``np.radians(alpha)``, an elementwise NumPy function, where every argument is a Python
        number (a literal, or a parameter whose default is one or that is annotated ``int``/``float``):
        NumPy gives back a scalar, not an array, and a scalar has no zero-copy bridge."""
        if not (isinstance(value, cst.Call) and self.ctx.qualname(value.func) in _ELEMENTWISE):
            return False
        args = [arg.value for arg in value.args]
        return bool(args) and len(positional(value)) == len(args) and all(self._is_number(a) for a in args)

    def _reduces_to_scalar(self, value: cst.BaseExpression) -> bool:
        """``np.mean(scores)`` or ``a.sum()`` with no axis (directly or through the name bound to it):
        a reduction over every element gives one NumPy scalar, which no function shares."""
        if isinstance(value, cst.Name):
            value = bound_value(self.ctx, value) or value
        if not isinstance(value, cst.Call) or keyword(value, "axis") is not None:
            return False
        qualname = self.ctx.qualname(value.func) or ""
        if qualname.startswith("numpy.") and qualname[6:] in _FULL_REDUCTIONS:
            return len(positional(value)) == 1
        method = method_name(value)
        return (
            method in _FULL_REDUCTIONS and not positional(value) and kind_of(self.ctx, value.func.value) == ARRAY
        )  # type: ignore[attr-defined]

    def _has_negative_strides(self, value: cst.BaseExpression) -> bool:
        """``a[::-1]``, ``a[:, ::-2]``, ``np.flip(a)``, ``np.fliplr``/``flipud``/``rot90`` (directly or
        through the name bound to one): a view with a negative stride, which ``torch.from_numpy`` and
        ``torch.as_tensor`` refuse, so a copy is the only bridge."""
        if isinstance(value, cst.Name):
            value = bound_value(self.ctx, value) or value
        if isinstance(value, cst.Call):
            return (self.ctx.qualname(value.func) or "") in _FLIPS
        return isinstance(value, cst.Subscript) and any(
            isinstance(element.slice, cst.Slice)
            and element.slice.step is not None
            and (int_value(element.slice.step) or 0) < 0
            for element in value.slice
        )

    def _is_number(self, node: cst.BaseExpression) -> bool:
        """A Python number, NumPy's or ``math``'s constants (``np.pi``), arithmetic on numbers
        (``2 * np.pi``), or an elementwise NumPy function of numbers, which is a NumPy scalar."""
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            node = node.expression
        if isinstance(node, cst.Integer | cst.Float):
            return True
        if isinstance(node, cst.BinaryOperation):
            return self._is_number(node.left) and self._is_number(node.right)
        if isinstance(node, cst.Attribute):
            return self.ctx.qualname(node) in _CONSTANTS
        if isinstance(node, cst.Call):
            return self._of_python_numbers(node)
        function = self.ctx.enclosing_function()
        if not isinstance(node, cst.Name) or function is None:
            return False
        for param in parameters(function):
            if param.name.value == node.value:
                default, annotation = param.default, param.annotation
                if annotation is not None:
                    return isinstance(annotation.annotation, cst.Name) and annotation.annotation.value in _NUMBERS
                return isinstance(default, cst.Integer | cst.Float) and bound_value(self.ctx, node) is None
        return False

    def _more_axes_indexed(self, value: cst.Subscript) -> bool:
        """The same array is indexed elsewhere in the function over more axes than ``value`` picks
        (``signal[:, p1, p2] = 1.0`` beside ``signal[0]``), so it has more axes and ``value`` is an array."""
        array = value.value
        function = self.ctx.enclosing_function()
        if not isinstance(array, cst.Name) or function is None:
            return False
        picked = len(value.slice)
        return any(
            isinstance(node, cst.Subscript)
            and isinstance(node.value, cst.Name)
            and node.value.value == array.value
            and (_axes_indexed(node) or 0) > picked
            for node in walk(function.body)
        )

    def _may_be_element(self, value: cst.BaseExpression) -> bool:
        """``a[i]``, ``a[i, -1]``: every index a single position, none a slice, ``...``, ``None`` or an
        array or tensor of positions, so the result is a scalar when the array has that many axes."""
        if isinstance(value, cst.Name):
            if self._iterates_array(value.value):  # ``for z in np.linspace(a, b, n): torch.tensor(z)``
                return True
            value = bound_value(self.ctx, value)  # ``target = table[idx]`` then ``torch.tensor(target)``
        if not isinstance(value, cst.Subscript):
            return False
        if self._more_axes_indexed(value):
            return False
        for element in value.slice:
            index = element.slice
            if not isinstance(index, cst.Index) or isinstance(index.value, _NOT_POSITIONS):
                return False
            if _adds_or_spans_axes(index.value) or kind_of(self.ctx, index.value) in (ARRAY, TENSOR):
                return False
        return True

    def _iterates_array(self, name: str) -> bool:
        """``name`` is the target of a loop around the visited node over an array: each pass gets
        ``a[i]``, a scalar when the array has one axis."""
        loop = binding_loop(self.ctx, name)
        return loop is not None and isinstance(loop.target, cst.Name) and kind_of(self.ctx, loop.iter) == ARRAY

    def _converts(self, node: cst.Call, value: cst.BaseExpression) -> bool:
        """``torch.tensor(a, dtype=...)`` converts unless ``a`` is known to have that dtype already: a
        conversion copies whichever function makes it, so only a matching dtype makes the copy extra."""
        given = keyword(node, "dtype")
        if given is None:
            return False
        wanted = dtypes.dtype_name(self.ctx, given.value)
        return wanted is None or dtypes.dtype_of(self.ctx, value, node) != wanted

    def _as_tensor_fix(self, node: cst.Call) -> PendingFix | None:
        if not isinstance(node.func, cst.Attribute):
            return None
        return PendingFix(UNSAFE, "Use `torch.as_tensor`", (NodeEdit(node.func.attr, "as_tensor"),))


def _trained(ctx, call: cst.Call) -> bool:
    """``nn.Parameter(t)`` that training updates: not one made with ``requires_grad=False``."""
    flag = keyword(call, "requires_grad")
    return ctx.qualname(call.func) in _PARAMETERS and not (flag is not None and is_literal(flag.value, "False"))


#: Learnable parameters, which training writes in place.
_PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
#: Indices that pick no single position: lists and tuples of positions, and keys (``split["train"]``
#: reads an archive's member or a record's field, an array).
_NOT_POSITIONS = (cst.List, cst.Tuple, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _axes_indexed(subscript: cst.Subscript) -> int | None:
    """How many axes ``subscript`` indexes by position (``a[:, i, j]``: 3); None with ``...`` or ``None``,
    which do not say how many axes the array has."""
    if any(isinstance(e.slice, cst.Index) and _adds_or_spans_axes(e.slice.value) for e in subscript.slice):
        return None
    return len(subscript.slice)


def _adds_or_spans_axes(index: cst.BaseExpression) -> bool:
    """``None`` adds an axis and ``...`` spans any number of them."""
    return isinstance(index, cst.Ellipsis) or (isinstance(index, cst.Name) and index.value == "None")


def _is_fresh(node: cst.BaseExpression) -> bool:
    """A result no other name sees: a call or arithmetic, once the methods that may return their
    receiver's own memory are stripped (``t.detach().cpu()`` is ``t``'s buffer on a CPU tensor)."""
    while isinstance(node, cst.Call) and method_name(node) in writes.VIEW_METHODS:
        node = node.func.value  # type: ignore[attr-defined]
    return isinstance(node, cst.Call | cst.BinaryOperation)


def _is_numpy_call(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and method_name(node) == "numpy" and not node.args
