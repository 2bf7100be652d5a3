"""TPL103: reading tensor values back into Python on every iteration of a loop."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.exemptions import test_files
from torchperf_lint.toolkit.flow import chain_head, exits_loop, loop_state, read_names, runs_at_most_once
from torchperf_lint.toolkit.functions import enclosing_loops, in_loop
from torchperf_lint.toolkit.matching import int_value, is_literal, method_name, walk
from torchperf_lint.toolkit.types import ARRAY, FRAME, TENSOR, bound_value, kind_of

_TO_PYTHON = frozenset({"item", "tolist"})
_BUILTINS = frozenset({"bool", "int", "float"})
#: Builtins that read the truth of every element of a tensor they are given.
_TRUTH_BUILTINS = frozenset({"any", "all"})
#: Values whose reductions are no tensor reads.
_NOT_TENSORS = frozenset({ARRAY, FRAME})
#: Tensor methods whose result is a scalar tensor that Python then reads.
REDUCTIONS = frozenset(
    {
        "sum",
        "max",
        "min",
        "mean",
        "any",
        "all",
        "norm",
        "prod",
        "argmax",
        "argmin",
        "count_nonzero",
        "amax",
        "amin",
    }
)
#: torch functions whose result Python reads as a tensor value (others may return plain ints or bools).
TORCH_READS = frozenset(
    ["torch.equal", "torch.allclose", "torch.isclose"] + [f"torch.{name}" for name in sorted(REDUCTIONS)]
)

#: Tensor methods that compare whole tensors and give Python a bool (``a.allclose(b)``); NumPy
#: arrays have no such method.
_COMPARING_METHODS = frozenset({"allclose"})
#: Of those, the ones that return a Python bool: the value is read where the call runs.
PYTHON_BOOLS = frozenset({"torch.equal", "torch.allclose"})


class HostSyncInLoop(Rule):
    code = "TPL103"
    name = "host-sync-in-loop"
    hint = "Compute the value once with a vectorised reduction before the loop."
    summary = "Tensor values read back into Python inside a loop"
    message = "{what} reads a tensor value into Python on every iteration; compute it once outside the loop"
    why = (
        "`.item()`, `.tolist()`, `.numpy()`, `int(t)` or an `if` on a tensor make Python wait for the "
        "value and convert it, once per iteration. In a loop over slices or passes that serialises "
        "the work and adds interpreter overhead per element; a vectorised reduction before the loop "
        "reads the value once."
    )
    example = "for plane in volume:\n    if plane.max() > 0:\n        total += plane.sum().item()"
    use_instead = "keep = volume.amax(dim=(1, 2)) > 0\ntotal = volume[keep].sum().item()"
    notes = (
        "Flagged inside `for`/`while` bodies, `while` tests and comprehensions (not a loop's own iterable, "
        "which runs once; also in a lambda handed there to `map`, `filter`, `sorted`, `min` or `max`, which "
        "call it at once, not in one stored for later): `.item()` and `.tolist()`; `bool()`, `int()` or "
        "`float()` of a reduction "
        "(`t.sum()`, `torch.max(t)`, `t.any()`...) or of a value known to be a tensor (`float(t[i])` with `t: "
        "torch.Tensor`, also a legacy typed class such as `torch.LongTensor`, a shaped annotation such as "
        "jaxtyping's `Int[torch.Tensor, 'b n']` or a type "
        "alias the module defines for one; an element of a tensor, as a loop or comprehension target over "
        "it, through "
        "`zip`/`enumerate` or a progress bar (`tqdm(t)`, `progress_bar(t)`), or unpacked from it; a value "
        "of a `Dict[str, Tensor]` or of a dict literal of "
        "tensors; builtin `sum`, `min` or `max` over a tensor; or the result of a function of the project, or "
        "a `self.` method of the same file, that returns a tensor); and an `if` or `while` test, a conditional "
        "expression (`a if mask.any() else b`) or a comprehension's `if` that calls a reduction, "
        "`torch.equal`/`torch.allclose` (or the method `a.allclose(b)`) or builtin `any`/`all` over a "
        "tensor, tests a known tensor (`if "
        "mask:`), or tests a name bound to a reduction, or an element of one (`peak = x.max()` ... `if peak > "
        "0:`; `trends = x.sum(dim=1)` ... `'up' if trends[b] > 0 else 'down'`). One condition is "
        "one finding: a read inside a test that is reported is not reported again. Exempt: a name bound before "
        "the loop to `torch.equal` or `torch.allclose` (either form), "
        "which give a Python bool read once where they run; "
        "values known to be NumPy arrays or pandas objects (annotated `np.ndarray`, `npt.NDArray`, "
        "`NDArray[...]`, `np.array`, `Float[np.ndarray, 'n']`, `pd.DataFrame`, or a type alias of the module "
        "for one, `Pair: TypeAlias = tuple[np.ndarray, np.ndarray]`; "
        "bound from `np.*`, `pd.*`, `.numpy()` or a library function named `to_numpy`, also in a nested "
        "function or lambda reading a name the function around it binds so, also after `if isinstance(x, "
        "torch.Tensor): x = x.numpy()`, where the untaken arm holds no tensor, or in the arm of a conditional "
        "expression or an `and` that an `isinstance` test guards (`a.tolist() if isinstance(a, np.ndarray) "
        "else a`); unpacked from one (`counts, edges = np.histogram(x)`) or paired by `zip(...)` (also with "
        "`strict=True`), a value of a dict built from them (`{p: np.zeros(n) for p in props}`), returned by "
        "a function of the project annotated so (also inside containers, `-> list[dict[str, np.ndarray]]`) "
        "or whose returns are all such values (also through its own "
        "locals, `e = np.abs(e)` ... `return e, a`, NumPy arithmetic, `1.0 / (1.0 + np.exp(-x))`, and a "
        "mask or slice of one, `return found[rates >= t]`), "
        "a result of OpenCV (`cv2.findContours`), SciPy or scikit-learn (`scipy.optimize.fmin`, or a "
        "method of an object of their classes, `model = NearestNeighbors(r)` then "
        "`model.radius_neighbors(x)`, except `fit` and `score`), an array's `all` or `any` along an "
        "axis, a "
        "conditional expression whose other arm holds no tensor at all (`p.numpy() if p is not None else "
        "None`, `np.split(a, k) if a is not None else [None] * n`), held as `self.` state set from a "
        "method of the class "
        "annotated so (`self.data, self.ends = self._pack()` with `-> Tuple[np.ndarray, np.ndarray]`), or a "
        "list its methods fill with such values only (`self.preds = []`, then `self.preds.append(d)` for "
        "`d` in `out.cpu().numpy()`), or a "
        "chain through an `np.*` call or a pandas-only "
        "method such as `.isna()` or `.drop_duplicates()`; an element of one through a progress bar, "
        "`for v in tqdm(values)`), "
        "whose reads are no tensor reads; a bare `.numpy()`, which is a zero-copy view of a CPU tensor; reads "
        "inside an `assert`, which checks a result (a benchmark checking each candidate before timing it) and "
        "which `python -O` removes, so it is no part of the loop's work; code that runs at most once per loop "
        "because its branch, or the loop body, ends in `return`, `break` or `raise`, directly or in every arm "
        "of an `if`/`else`, `with`, `try` or `match`, and no `continue` after it takes the loop round again, "
        "or under a test that picks one pass by the loop's own counter (`if i == 0:` in `for i, y in "
        "enumerate(ys)`, also `reversed(range(n))`, the counter unchanged by the body) or key (`elif k == "
        "'masks':` in `for k, v in batch.items()`: a dict holds each key once), or in a block that "
        "converts a name still "
        "holding a tensor to a Python number (`if not isinstance(w, int): w = w.item()`, `if "
        "torch.is_tensor(k): k = float(k)`; the test fails on every later pass, unless the loop binds the "
        "name again); a read that decides when its loop stops from "
        "state the loop carries from one pass to the next (names it rebinds from their earlier values, and "
        "objects it changes in place: `torch.norm(r, out=n)`, `r.sub_(c)`, `q[k + 1] = r`, also `self.` state a "
        "method of "
        "the class that the body calls changes so, `torch.any(m, out=self.state.active)`; in a training loop, "
        "whose pass calls `.backward()` and an optimizer's `.step()`, itself or through a method of the "
        "class or through a closure the pass or its function defines and hands to a call "
        "(`optimizer.step(closure)`), every "
        "object of the function it reads other than the loop's own items, since the step "
        "changes their parameters; or a "
        "collective that fills its tensor with what the processes exchanged, `dist.all_reduce(flag)` or "
        "`dist.broadcast(signal, 0)` from `torch.distributed` or a library's `dist` module; "
        "a `while` test on values the body recomputes, "
        "`changed = bool(...)` under `while changed:`, an `if` with a way out of the loop on a convergence "
        "test (and each `elif` of its chain, which picks the arm that runs when the loop goes on: `if "
        "gap <= eps: break` then `elif gap > eps: x += h`), any such test in a `while True:` loop, which "
        "ends only through them (a rejection sampler drawing until a draw passes), or one that sets a flag "
        "such a test reads "
        "(`if err < eps: converged = True`), or a count it reads (`if best - loss > eps: bad = 0` / "
        "`else: bad += 1` under `while bad < patience:`), or a scalar "
        "read into a name such a test reads through assignments, `error = ....item()` "
        "then `if error < tol: break`, or a count the stop test reads brought up to date, `remaining -= "
        "int(ok.sum())` under `while remaining > 0:`), since that value does not exist before the loop "
        "and cannot be "
        "read once outside it (a test on the loop target alone, `if torch.any(p < 0): break`, is still "
        "flagged, and so are the loop's own item converted, `for i in ranked: i = i.item()`, which the next "
        "pass binds afresh, and a `.tolist()` of the pass's data that also feeds a stop test); other "
        "torch calls (`torch.distributed.get_rank()`), which return Python values. Files "
        "that never import torch are skipped."
    ) + test_files(
        "tests read results back with `.item()`, `.tolist()` or `bool(...)` case by case to compare and "
        "report them, which costs test time, not kernel time"
    )
    fix_safety = "No fix: hoisting the read out of the loop changes the algorithm, not just a call."
    valid = (
        # a closure defined before the loop and handed to each step; an array a nested function reads
        "import torch\ndef invert(h, opt, tol, max_iter):\n    loss = h.new_tensor(1.0)\n    def closure():\n"
        "        nonlocal loss\n        opt.zero_grad()\n        loss = (h ** 2).sum()\n        loss.backward()\n"
        "        return loss\n    for _ in range(max_iter):\n        opt.step(closure)\n"
        "        if h.grad.norm() < tol or loss < tol:\n            break\n",
        "import numpy as np\nimport torch\ndef rerank(dist, k, n):\n    indices = np.argsort(dist, axis=1)\n"
        "    def near(i):\n        out = set()\n        for c in range(n):\n"
        "            out |= set(indices[c, :k].tolist())\n        return out\n"
        "    pick = lambda i: [indices[j].tolist() for j in range(i)]\n    return near(0), pick(2)\n",
        # a library helper named for what it gives
        "import torch\nfrom tianshou.data import to_numpy\ndef f(results, n):\n    out = []\n"
        "    for r in results:\n"
        "        out.append(to_numpy(r.logits)[0][:n].tolist())\n    return out\n",
        # a stop test in a training loop whose step runs a closure the pass defines
        "import torch\ndef fit(model, optimizer, x, ftol, n):\n    pre = None\n    for it in range(n):\n"
        "        def closure():\n            optimizer.zero_grad()\n            loss = model(x).sum()\n"
        "            loss.backward()\n            return loss\n        loss = optimizer.step(closure)\n"
        "        if pre is not None and abs(pre - loss.item()) < ftol:\n            break\n"
        "        pre = loss.item()\n",
        # a value deciding a count the stop test reads: reset in one arm, moved in the other, or set alone
        "import torch\nclass A:\n    def _fit_epoch(self, data):\n        loss = self.net(data).sum()\n"
        "        loss.backward()\n        self.opt.step()\n        return loss\n"
        "    def fit(self, data, val, patience, eps):\n        bad, best = 0, float('inf')\n"
        "        while bad < patience:\n            self._fit_epoch(data)\n"
        "            loss = self.net(val).mean().item()\n            if best - loss > eps:\n"
        "                bad = 0\n                best = loss\n            else:\n                bad += 1\n",
        "import torch\ndef fit(step, model, data, n):\n    stalls = 0\n    while stalls < n:\n"
        "        step(model, data)\n        model.opt.step()\n        model.loss.backward()\n"
        "        gain = model.score().item()\n        if gain <= 0:\n            stalls += 1\n",
        # results of a SciPy or scikit-learn object's methods are NumPy values: bound, unpacked, inline
        "import torch\nfrom sklearn.neighbors import NearestNeighbors\nfrom scipy.spatial import cKDTree\n"
        "def f(coordinates, n, cutoff):\n    model = NearestNeighbors(radius=cutoff)\n    model.fit(coordinates)\n"
        "    dists_, nbrs = model.radius_neighbors(coordinates)\n    out = []\n    for i in range(n):\n"
        "        out.append(dists_[i].tolist() + nbrs[i].tolist())\n    for i in range(n):\n"
        "        d, j = cKDTree(coordinates).query(coordinates[i])\n        out.append(d.tolist())\n"
        "    return out\n",
        # an array's all or any along an axis is an array
        "import numpy as np\nimport torch\ndef f(xs, target):\n    clean = np.atleast_2d(np.array(target))\n"
        "    for x in xs:\n        isnan = np.isnan(clean).all(axis=0)\n        if isnan.all():\n"
        "            continue\n        done = np.isnan(clean).any(1)\n        if done.any():\n            break\n",
        # one pass picked by a dict's key: the key stored through is read, not bound
        "import torch\ndef f(batch, out, idx):\n    for k, v in batch.items():\n        if k == 'masks':\n"
        "            out[k] += [v[0]] if v.max() > 1.0 else [v[idx]]\n    for k in batch.keys():\n"
        "        if k == 'boxes':\n            out[k] = batch[k].sum().item()\n",
        # a while test on an attribute the class's methods the body calls change in place: an ``out=``,
        # an augmented assignment, an in-place method
        "import torch\nclass Decoder:\n    def _update(self):\n"
        "        torch.any(self.state.active, out=self.state.active_any)\n    def _count(self):\n"
        "        self.state.count += 1\n    def _fill(self):\n        self.state.level.add_(1)\n"
        "    def decode(self):\n        while self.state.active_any.item():\n            self._update()\n"
        "        while self.state.count.item() < 10:\n            self._count()\n"
        "        while self.state.level.item() < 3:\n            self._fill()\n",
        # a name still holding a tensor converted once, the test failing on every later pass: a guard
        # that it is not yet a Python number (also rebinding a second name), that it is a tensor,
        # ``torch.is_tensor``
        "import torch\ndef f(sizes, w, h):\n    out = []\n    for s in sizes:\n"
        "        if not isinstance(w, int):\n            w = w.item()\n            h = h.item()\n"
        "        out.append(s * w * h)\n    return out\n",
        "import torch\ndef f(items, k):\n    out = []\n    for item in items:\n"
        "        if isinstance(k, torch.Tensor):\n            k = k.item()\n        out.append(item * k)\n"
        "    return out\n",
        "import torch\ndef f(items, k):\n    out = []\n    for item in items:\n        if torch.is_tensor(k):\n"
        "            k = float(k)\n        out.append(item * k)\n    return out\n",
        # a mask or a slice of the array a helper of the file returns
        "import numpy as np\nimport torch\ndef windows(width, sizes):\n    found = np.asarray(sizes)\n"
        "    return found[found / width >= 0.5]\ndef f(w, sizes, bs):\n    out = []\n"
        "    for window in windows(w, sizes)[0:bs]:\n        out.append(window.tolist())\n    return out\n",
        # arrays nested in a container a helper of the file is annotated to return
        "import numpy as np\nimport torch\ndef unpadded(loc) -> list[dict[str, np.ndarray]]:\n"
        "    return [{'p': np.asarray(q)} for q in loc]\ndef f(preds, loc):\n    out = []\n"
        "    for pred, rect in zip(preds, unpadded(loc)):\n        for poly in rect['p']:\n"
        "            out.append(poly.tolist())\n    return out\n",
        # an array bound in the one arm that goes on (the other leaves the pass): ``else: continue``,
        # an ``elif`` chain whose ``else`` raises, a first arm that continues
        "import numpy as np\nclass D:\n    def unclip(self, box):\n        return np.array(box)\n"
        "    def f(self, contours):\n        out = []\n        for c in contours:\n            if len(c) > 2:\n"
        "                box = self.unclip(c)\n            else:\n                continue\n"
        "            out.append(box.tolist())\n        return out\n",
        "import numpy as np\nimport torch\ndef f(items, n):\n    out = []\n    for a in items:\n"
        "        if a > 0:\n            box = np.zeros(n)\n        elif a < 0:\n            box = np.ones(n)\n"
        "        else:\n            raise ValueError(a)\n        out.append(box.tolist())\n    return out\n",
        "import numpy as np\nimport torch\ndef f(items):\n    out = []\n    for c in items:\n"
        "        if c is None:\n            continue\n        else:\n            box = np.asarray(c)\n"
        "        out.append(box.tolist())\n    return out\n",
        # a training loop: the optimizer step changes the parameters in place, so a stop test reads
        # what the pass computed from them, through the carried name, directly, through a method
        "import torch\nfrom torch.optim import Adam\ndef f(x0, cost, n, tol):\n"
        "    x = x0.clone().requires_grad_(True)\n    opt = Adam([x])\n    previous = None\n"
        "    for i in range(n):\n        opt.zero_grad()\n        loss = cost(x)\n        loss.backward()\n"
        "        opt.step()\n        diff = tol + 1.0 if i == 0 else previous - loss.item()\n"
        "        previous = loss.item()\n        if diff < tol:\n            break\n    return x\n",
        "import torch\ndef f(model, opt, batch, n, tol):\n    for _ in range(n):\n"
        "        loss = model(batch).sum()\n        loss.backward()\n        opt.step()\n"
        "        if loss.item() < tol:\n            break\n",
        "import torch\nclass Trainer:\n    def _step(self, batch):\n        self.net(batch).sum().backward()\n"
        "        self.optimizer.step()\n    def train(self, batches, eps):\n        for batch in batches:\n"
        "            self._step(batch)\n            grads = [p.grad for p in self.net.parameters()]\n"
        "            norm = torch.stack([g.norm() for g in grads]).norm().item()\n"
        "            if norm <= eps:\n                break\n",
        # a stop test on a tensor exchanged in place between processes: through the torch module, an
        # imported function, a library's ``dist`` module
        "import torch\nimport torch.distributed as dist\ndef f(state):\n    done = False\n"
        "    while not done:\n        flag = torch.tensor([0])\n        dist.all_reduce(flag)\n"
        "        done = flag.item() == 1\n",
        "import torch\nfrom torch.distributed import broadcast\ndef f(signal, closure):\n    while True:\n"
        "        broadcast(signal, src=0)\n        if signal.item() == 0:\n            break\n        closure()\n",
        "import torch\nfrom composer.utils import dist\ndef f(step):\n    finished = False\n"
        "    while not finished:\n        step()\n        t = torch.tensor([1])\n"
        "        dist.all_reduce(t, reduce_operation='MIN')\n        finished = t.item() == 1\n",
        # SciPy's results, and a conditional whose other arm holds no tensor: directly, through a name,
        # through a helper annotated to return an array
        "import numpy as np\nimport torch\nfrom scipy.optimize import fmin\ndef f(objective, guesses):\n"
        "    return [fmin(objective, x0=g, disp=False).item() for g in guesses]\n",
        "import numpy as np\nimport torch\ndef f(preds, sizes, n):\n"
        "    preds = preds.numpy() if preds is not None else None\n"
        "    parts = np.split(preds, sizes) if preds is not None else [None] * n\n"
        "    return [p.tolist() if p is not None else [] for p in parts]\n",
        "import numpy as np\nimport torch\ndef probs(p) -> np.ndarray:\n    return np.asarray(p)\n"
        "def f(preds, n):\n    rows = probs(preds) if preds is not None else [None] * n\n"
        "    return [r.tolist() for r in rows]\n",
        # every test of an ``elif`` chain with a way out decides the stop: inline, through a local, with
        # the way out in the ``else``
        "import torch\ndef f(n, eps):\n    x = 1.0\n    for i in range(100):\n"
        "        c = torch.linspace(0, 1, n) ** x\n        if abs(c.mean()) <= eps:\n            break\n"
        "        elif c.mean() > eps:\n            x += 0.001\n        else:\n            x -= 0.001\n"
        "    return x\n",
        "import torch\ndef f(x, step, eps):\n    for i in range(50):\n        x = step(x)\n"
        "        gap = x.norm()\n        if gap < eps:\n            break\n        elif gap > 1e3:\n"
        "            x = x / 2\n    return x\n",
        "import torch\ndef f(x, step, eps):\n    size = 1.0\n    while True:\n        y = step(x, size)\n"
        "        if torch.isnan(y).any():\n            size /= 2\n        elif (y - x).norm() > eps:\n"
        "            x = y\n        else:\n            break\n    return x\n",
        # a ``while True:`` loop ends only through its tests: a reduction, a scalar read into a name,
        # ``while 1:``
        "import torch\ndef f(n):\n    while True:\n        perm = torch.randperm(n)\n"
        "        if not torch.all(perm == torch.arange(n)):\n            return perm\n",
        "import torch\ndef f(g, pct):\n    while True:\n        noise = torch.randn(1, generator=g)\n"
        "        if noise.abs().max() < pct:\n            return noise\n",
        "import torch\ndef f(sample, limit):\n    while 1:\n        x = sample()\n"
        "        if x.norm() < limit:\n            break\n    return x\n",
        # values of arrays through progress bars, an imported one, one a star import brings, a keyword
        # set up; a pandas-only method
        "import numpy as np\nimport torch\nfrom tqdm import tqdm\ndef f(n):\n    out = []\n"
        "    for v in tqdm(np.zeros(n)):\n        out.append(v.item())\n    return out\n",
        "import numpy as np\nimport torch\nfrom fastprogress import *\ndef f(arr: np.ndarray):\n"
        "    return [v.tolist() for v in progress_bar(arr, leave=False)]\n",
        "import torch\nimport pandas as pd\nfrom tqdm.auto import tqdm\ndef f(path, cols):\n"
        "    ids = pd.read_csv(path)[cols].drop_duplicates().values\n"
        "    return [v.tolist() for v in tqdm(ids, desc='ids')]\n",
        # a convergence test that sets the flag the stop test reads: inline, through a local, in a ``while``
        "import torch\ndef f(x, step, eps):\n    converged = False\n    for i in range(50):\n"
        "        x = step(x)\n        if x.norm() < eps:\n            converged = True\n"
        "        if converged:\n            break\n    return x\n",
        "import torch\ndef f(x, step, eps):\n    done = False\n    for i in range(50):\n"
        "        x = step(x)\n        err = x.norm()\n        if err < eps:\n            done = True\n"
        "        if done:\n            break\n    return x\n",
        "import torch\ndef f(x, step, eps):\n    done = False\n    while not done:\n"
        "        x = step(x)\n        if (x.abs().max() < eps).item():\n            done = True\n    return x\n",
        # a tensor's layout and metadata are Python values held on the host
        "import torch\ndef f(xs: list[torch.Tensor]):\n    out = []\n    for a in xs:\n"
        "        if a.is_sparse and a._nnz() >= a.numel() // 4:\n            out.append(a.to_dense())\n"
        "        if a.is_contiguous() or a.is_floating_point():\n            out.append(a)\n    return out\n",
        "import torch\ndef sample(prior, n):\n    remaining, out = n, []\n    while remaining > 0:\n"
        "        x = prior.sample((remaining,))\n        ok = prior.support.check(x)\n        out.append(x[ok])\n"
        "        remaining -= int(ok.sum().item())\n    return out\n",
        "import torch\ntotal = x.sum().item()\n",
        # an isinstance test narrows a comprehension's own target
        "import numpy as np\nimport torch\ndef f(pairs):\n"
        "    return [len(set(c.tolist() if isinstance(c, np.ndarray) else c)) for _, c in pairs]\n",
        "import torch\ndef hooks(names):\n    found = []\n    for n in names:\n"
        "        found.append(lambda t: t.item())\n    return found\n",
        # NumPy values through a dict comprehension, and a helper whose locals hold arrays
        "import numpy as np\nimport torch\ndef refs(props):\n    atref = {p: np.zeros((100,)) for p in props}\n"
        "    return {k: v.tolist() for k, v in atref.items()}\n",
        "import numpy as np\nimport torch\ndef prepare(e, flag):\n    e = np.nan_to_num(e)\n"
        "    a = np.abs(e) if flag else np.clip(e, 0, None)\n    return e, a\n"
        "def f(es):\n    es, ab = prepare(es, True)\n    for i in range(3):\n        if ab[i].sum() == 0:\n"
        "            continue\n",
        # the arm an isinstance test guards holds what it tests for
        "import numpy as np\nimport torch\ndef f(values: dict[str, torch.Tensor], keys):\n"
        "    for key in keys:\n        tmp = values[key]\n"
        "        a = tmp.tolist() if isinstance(tmp, np.ndarray) else tmp\n"
        "        b = isinstance(tmp, np.ndarray) and tmp.tolist()\n"
        "        c = tmp if not isinstance(tmp, np.ndarray) else tmp.tolist()\n    return a, b, c\n",
        # ``sd.get("model", sd)`` may be the mapping itself: its keys are no tensors
        "import torch\nfrom typing import Dict\ndef f(sd: Dict[str, torch.Tensor], prefix):\n"
        "    sd = sd.get('model', sd)\n    out = {}\n    for k, v in sd.items():\n"
        "        if not k.startswith(prefix):\n            continue\n        out[k] = v\n    return out\n",
        # torch.equal and torch.allclose give a Python bool, read once where they run
        "import torch\ndef f(a, b, n):\n    same = torch.equal(a, b)\n    for i in range(n):\n"
        "        if not same:\n            a = a + 1\n    return a\n",
        "import torch\ndef f(a, b, n):\n    close = a.allclose(b)\n    for i in range(n):\n        if close:\n"
        "            print(i)\n",
        "import torch\ndef f(a, b, n):\n    close = torch.allclose(a, b)\n"
        "    return [a * 2 if close else a for i in range(n)]\n",
        "import torch\nfor i in range(int(x.sum())):\n    pass\n",
        "import torch\nvalues = [v for v in x.tolist()]\n",
        "for row in rows:\n    total += row.item()\n",
        "import torch\nfor i in range(n):\n    k = int(i)\n",
        "import torch\nfor b in buckets:\n    if torch.distributed.get_rank() == 0:\n        print(b)\n",
        "import torch\nimport numpy as np\ndef f(values: np.ndarray, img):\n    for i in range(0, 8, 4):\n"
        "        g(values[i : i + 4].tolist())\n        if values.any():\n            pass\n",
        "import torch\nimport numpy as np\ndef f(t):\n    arr = np.asarray(t)\n    for i in range(3):\n"
        "        g(arr.sum().item(), t.numpy())\n",
        "import torch\nfor _ in range(10):\n    i = torch.randint(0, 9, (1,)).item()\n    break\n",
        "import torch\ndef f():\n    for _ in range(10):\n        if ok():\n"
        "            j = torch.randint(0, 9, (1,)).item()\n            return j\n",
        "import torch\ndef f(t: torch.Tensor):\n    for i in range(3):\n        n = int(t.shape[0])\n",
        "import torch\nfor t in targets:\n    if flag:\n        bad = t.tolist()\n"
        "        torch._assert(False, f'invalid box {bad}')\n",
        "import torch\nfor t in targets:\n    v = t.item()\n    raise ValueError(v)\n",
        "import torch\nimport numpy as np\nfrom numpy.typing import NDArray\ndef f(a: NDArray[np.float32]):\n"
        "    for i in range(3):\n        v = a[i].item()\n        if a.any():\n            pass\n",
        "import torch\nimport numpy.typing as npt\ndef f(a: npt.NDArray):\n    for row in range(3):\n"
        "        g(a[row].tolist(), float(a.sum()))\n",
        "import torch\nimport numpy as np\nfor t in tensors:\n    v = np.asarray(t).max().item()\n",
        "import torch\ndef f(x, kernel):\n    while x.max() > 0:\n        x = x - kernel\n    return x\n",
        "import torch\ndef f(edges, step):\n    old = -torch.ones_like(edges)\n"
        "    while ((old - edges).abs() != 0).any():\n        old = edges\n        edges = step(edges)\n",
        "import torch\ndef f(output, mask, step, k):\n    changed = True\n    while changed:\n"
        "        previous = output\n        for _ in range(k):\n            output = step(output)\n"
        "        changed = bool((output > previous).any())\n    return output\n",
        "import torch\ndef f(roots, step):\n    for _ in range(4):\n        candidate = step(roots)\n"
        "        if not bool((candidate != roots).any()):\n            break\n        roots = candidate\n",
        # NumPy values paired by ``zip(..., strict=True)``, or bound by a ``while True:`` body, which runs
        "import numpy as np\nimport torch\ndef f(angles: np.ndarray, shifts: np.ndarray, out):\n"
        "    for a, s in zip(angles, shifts, strict=True):\n        out.append(s.tolist())\n",
        "import numpy as np\nimport torch\ndef f(angles: np.ndarray, shifts: np.ndarray, out):\n"
        "    pairs = zip(angles, shifts, strict=True)\n    for a, s in pairs:\n        out.append(a.tolist())\n",
        "import numpy as np\nimport torch\ndef pick(n) -> tuple[np.ndarray, np.ndarray]:\n"
        "    return np.zeros(n), np.ones(n)\ndef f(ts, n):\n    for t in ts:\n        while True:\n"
        "            lo, hi = pick(n)\n            if (lo < hi).all():\n                break\n"
        "        print(lo.tolist())\n",
        # values torch returns that are no tensors: a loaded checkpoint's keys, a broadcast shape
        "import torch\ndef load(self, path):\n    sd = torch.load(path)['teacher']\n    out = {}\n"
        "    for k, v in sd.items():\n        key = k.replace('backbone.', '')\n"
        "        if self.channels != 1 and key == 'proj.weight':\n            v = v.repeat(1, 3, 1, 1)\n"
        "        out[key] = v\n    return out\n",
        "import torch\ndef f(ops):\n    shape = torch.broadcast_shapes(*[o.shape for o in ops])\n"
        "    return [o.expand(shape) if o.shape != shape else o for o in ops]\n",
        # a convergence test on objects the body changes in place: through ``out=``, an in-place
        # method on an indexed row, and an in-place method on the name the test reads
        "import torch\ndef f(sol, upd, n_upd, n_sol, tol, n):\n    for i in range(n):\n        step(sol, upd)\n"
        "        torch.norm(upd, dim=-2, out=n_upd)\n        torch.norm(sol, dim=-2, out=n_sol)\n"
        "        conv = n_upd.div(n_sol).mean().item()\n        if conv < tol:\n            break\n",
        "import torch\ndef f(q, matmul, n):\n    for k in range(1, n):\n        r = matmul(q[k])\n"
        "        beta = r.norm(dim=-1)\n        q[k + 1].copy_(r / beta)\n"
        "        if torch.sum(beta > 1e-6) == 0:\n            break\n",
        "import torch\ndef f(res, tol, n):\n    for k in range(n):\n        res.sub_(update(res))\n"
        "        if k >= 10 and bool(res.norm() < tol):\n            break\n",
        # a read flowing into a test that ends the loop, from state the loop carries
        "import torch\ndef f(k, step, eps):\n    for _ in range(50):\n        previous = k\n        k = step(k)\n"
        "        error = (k - previous).abs().max().item()\n        if error < eps:\n            break\n"
        "    return k\n",
        "import torch\ndef _gap(a, b) -> torch.Tensor:\n    return (a - b).abs().amax()\ndef f(x, step):\n"
        "    while True:\n        y = step(x)\n        gap = float(_gap(x, y))\n        x = y\n"
        "        if gap < 1e-6:\n            return x\n",
        "import torch\ndef f(errors, n):\n    begin = 0\n    while begin < n:\n"
        "        hit = torch.argmax(errors[begin:]).item()\n        nxt = begin + hit + 1\n        begin = nxt\n",
        "import torch\ndef f(out, sample, fixed):\n    while True:\n        out = torch.cat((out, sample(out)))\n"
        "        if (out == 0).all():\n            if not fixed:\n                break\n    return out\n",
        # a branch that runs on one pass only
        "import torch\ndef f(ys):\n    for i, y in enumerate(ys):\n        if i == 0:\n"
        "            if (y != 0).any():\n                print(y)\n            continue\n",
        "import torch\ndef f(ys, n, verbose):\n    for i in range(n):\n        if not i and verbose:\n"
        "            print(bool(ys[i].any()))\n",
        "import torch\ndef check(candidates, x, ref):\n    for name, fn in candidates.items():\n"
        "        out = fn(x)\n"
        "        assert int(out.max()) <= 255, name\n        assert bool((out == ref).all()), name\n",
        "import torch\ndef _peak(t) -> torch.Tensor:\n    return t.amax()\ndef check(candidates, x):\n"
        "    for fn in candidates:\n        assert float(_peak(fn(x))) < 1.0\n",
        "import torch\nimport pandas as pd\ndef f(path, columns):\n    table = pd.read_csv(path)\n"
        "    for c in columns:\n"
        "        if table[c].isna().all():\n            continue\n",
        "import torch\ndef f(frames):\n    for frame in frames:\n        if frame.isna().all().all():\n"
        "            continue\n",
        "import torch\nimport pandas as pd\ndef load(path) -> pd.DataFrame:\n    return pd.read_csv(path)\n"
        "def f(paths):\n    for path in paths:\n        if load(path).notna().all().all():\n"
        "            print(path)\n",
        "import torch\nimport numpy as np\ndef f(samples):\n    for x in samples:\n"
        "        counts, edges = np.histogram(x)\n"
        "        if counts.any():\n            total = int(counts.sum())\n",
        "import torch\nimport numpy as np\nfrom typing import Tuple\n"
        "def hist(x) -> Tuple[np.ndarray, np.ndarray]:\n"
        "    return np.histogram(x)\ndef f(samples):\n    for x in samples:\n        counts, _ = hist(x)\n"
        "        if counts.max() > 0:\n            print(counts.tolist())\n",
        "import torch\ndef f(x, n):\n    if isinstance(x, torch.Tensor):\n        x = x.numpy()\n"
        "    for i in range(n):\n"
        "        low = x.min()\n        if low == x.max():\n            print(i)\n",
        "import torch\ndef f(tensors, lock):\n    for t in tensors:\n        value = t.item()\n"
        "        with lock:\n"
        "            return value\n",
        "import torch\ndef _peak(t) -> torch.Tensor:\n    return t.amax()\ndef f(tensors):\n"
        "    for t in tensors:\n"
        "        try:\n            value = int(_peak(t))\n        except RuntimeError:\n            raise\n"
        "        else:\n            return value\n",
        # a NumPy comparison a method of the class returns
        "import numpy as np\nimport torch\nclass Mix:\n    def _params(self, n):\n"
        "        return np.random.rand(n) < self.p\n    def mix(self, x):\n        use = self._params(len(x))\n"
        "        for i in range(len(x)):\n            if use[i]:\n                x[i] = -x[i]\n"
        "        return x\n",
        # NumPy arithmetic in a project helper, through its locals; OpenCV's results
        "import numpy as np\nimport torch\ndef sigmoid(x):\n    return 1.0 / (1.0 + np.exp(-x))\n"
        "def softmax(x):\n    e = np.exp(x - np.max(x, axis=-1, keepdims=True))\n"
        "    return e / e.sum(axis=-1, keepdims=True)\ndef f(logits, multi):\n"
        "    scores = sigmoid(logits.numpy()) if multi else softmax(logits.numpy())\n"
        "    return [s.item() for s in scores]\n",
        "import cv2\nimport torch\ndef f(masks):\n    out = []\n    for m in masks:\n"
        "        contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)\n"
        "        out.append(contours[0].flatten().tolist())\n    return out\n",
        # state a method of the class is annotated to return as arrays, unpacked or bound whole
        "import numpy as np\nimport torch\nfrom typing import Tuple\nclass Data:\n"
        "    def _pack(self) -> Tuple[np.ndarray, np.ndarray]:\n        return pack()\n"
        "    def _ends(self) -> np.ndarray:\n        return ends()\n"
        "    def load(self):\n        self.data, self.address = self._pack()\n        self.ends = self._ends()\n"
        "    def get(self, n):\n        for i in range(n):\n"
        "            yield self.address[i].item(), self.ends[i].tolist()\n",
        # arrays by annotation: ``np.array`` as a type, a shaped array type, the module's alias
        "from typing import TypeAlias\nimport numpy as np\nimport torch\nfrom jaxtyping import Float\n"
        "Pair: TypeAlias = tuple[np.ndarray, np.ndarray]\ndef acc(i) -> Pair:\n"
        "    return np.zeros(i), np.ones(i)\n"
        "def f(sims_fn, x: Float[np.ndarray, 'n'], n):\n    out = []\n    for i in range(n):\n"
        "        s: np.array = sims_fn(i)\n        _, b = acc(i)\n"
        "        out.append((s.tolist(), b.tolist(), float(x[i])))\n    return out\n",
        # a list attribute its methods fill with arrays: a loop item of one, inline, a helper's result
        "import numpy as np\nimport torch\nclass Evaluator:\n    def __init__(self):\n        self.preds = []\n"
        "    def add(self, detections, scores):\n        for d in detections.cpu().numpy():\n"
        "            self.preds.append(d)\n        self.preds.append(scores.numpy().copy())\n"
        "        self.preds.append(_boxes(scores))\n    def coco(self, out):\n"
        "        for dets in self.preds:\n            out.append(dets[0:4].tolist())\n"
        "            if float(dets[4]) > 0.5:\n                out.append(1)\n        return out\n"
        "def _boxes(s) -> np.ndarray:\n    return np.asarray(s)\n",
    )
    invalid = (
        Invalid(  # a tensor a nested function reads from the function around it
            "import torch\ndef f(n):\n    t = torch.arange(n)\n    def near(k):\n        out = []\n"
            "        for c in range(k):\n            out.append(t[c:].tolist())\n        return out\n"
            "    return near(3)\n",
            ((7, 24),),
        ),
        Invalid(  # a loop's own item converted each pass: alone, feeding a stop test, in a nested loop
            "import torch\ndef top(probs, k):\n    ranked = torch.argsort(probs, descending=True)\n    out = []\n"
            "    for _id in ranked:\n        _id = _id.item()\n        out.append(_id)\n"
            "        if len(out) >= k:\n            break\n    return out\n"
            "def top_rows(rows, k):\n    out = []\n    for row in rows:\n        for i in torch.argsort(row):\n"
            "            i = int(i)\n            out.append(i)\n    return out\n",
            ((6, 15), (15, 17)),
        ),
        Invalid(  # legacy typed tensor annotations name tensors: an element test, a reduction, a local
            "import torch\ndef lcs(a: torch.LongTensor, b: torch.LongTensor):\n    n = 0\n"
            "    for i in range(len(a)):\n        for j in range(len(b)):\n            if a[i] == b[j]:\n"
            "                n += 1\n    return n\n"
            "def count(xs: 'torch.FloatTensor', ms: torch.cuda.BoolTensor):\n    total = 0\n"
            "    for i in range(3):\n        total += xs.sum().item()\n        m = ms[i]\n        if m.any():\n"
            "            total += 1\n    return total\n",
            ((6, 16), (12, 18), (14, 12)),
        ),
        Invalid(  # an object of unknown class: what its methods return is unknown too
            "import torch\ndef g(model, xs):\n    fitted = model.fit(xs)\n"
            "    return [fitted.predict(x).tolist() for x in xs]\n",
            ((4, 13),),
        ),
        Invalid(  # the first items of pairs may repeat: the same test may hold on many passes
            "import torch\ndef f(pairs, out: dict[str, list]):\n    for k, v in pairs:\n        if k == 'masks':\n"
            "            out[k] += [v[0]] if v.max() > 1.0 else [v]\n",
            ((5, 33),),
        ),
        Invalid(  # a tuple of a helper's tensor methods, unpacked, then a method of one of them
            "import torch\ndef _pair(a, b):\n    d = torch.abs(a - b)\n    return d.sum(), (d > 0).float()\n"
            "def best(cands, a):\n    top = 0.0\n    for c in cands:\n        s, m = _pair(a, c)\n"
            "        gain = s.double() - top\n        if gain > 0:\n            top = s\n    return top\n",
            ((10, 12),),
        ),
        Invalid(  # a while test on an attribute nothing in the loop changes that the file can see
            "import torch\nclass Decoder:\n    def decode(self):\n        while self.flags.done.item():\n"
            "            self._other()\n",
            ((4, 15),),
        ),
        Invalid(  # both arms go on, one binding a tensor
            "import numpy as np\nimport torch\ndef f(items):\n    out = []\n    for c in items:\n"
            "        if len(c) > 2:\n            box = np.asarray(c)\n        else:\n"
            "            box = torch.as_tensor(c)\n        out.append(box.tolist())\n    return out\n",
            ((10, 20),),
        ),
        Invalid(  # the converted name handed a tensor again each pass; a guard on another type
            "import torch\ndef f(items, k, ks):\n    out = []\n    for item, nxt in zip(items, ks):\n"
            "        if torch.is_tensor(k):\n            k = k.item()\n        out.append(item * k)\n"
            "        k = nxt\n    for item in items:\n        if not isinstance(k, str):\n"
            "            k = k.item()\n        out.append(k)\n    return out\n",
            ((6, 17), (11, 17)),
        ),
        Invalid(  # a training loop still reads each pass's value outside a stop test, and a stop test
            # on the loop's own items; without an optimizer step nothing is carried
            "import torch\ndef f(model, opt, batches, eps):\n    total = 0.0\n    for batch in batches:\n"
            "        loss = model(batch).sum()\n        loss.backward()\n        opt.step()\n"
            "        total += loss.item()\n        if torch.any(batch < 0):\n            break\n"
            "    for batch in batches:\n        norm = model(batch).norm().item()\n        if norm <= eps:\n"
            "            break\n    return total\n",
            ((8, 18), (9, 12), (12, 16)),
        ),
        Invalid(  # an element of a reduction's result tested: in an if, a conditional expression, an f-string
            "import torch\ndef prompts(x, n):\n    trends = x.diff(dim=1).sum(dim=1)\n    out = []\n"
            "    for b in range(n):\n        if trends[b] > 0:\n            out.append(1)\n"
            "        out.append('up' if trends[b] > 0 else 'down')\n"
            "        out.append(f\"trend {'up' if trends[b][0] > 0 else 'down'}\")\n    return out\n",
            ((6, 12), (8, 28), (9, 37)),
        ),
        Invalid(  # a tensor annotated by its shape, directly or through the module's alias
            "import torch\nfrom jaxtyping import Int\nIds = Int[torch.Tensor, 'b n']\n"
            "def f(ids: Int[torch.Tensor, 'b n'], other: Ids, n):\n    out = []\n    for i in range(n):\n"
            "        out.append(int(ids[0, i]) + int(other[0, i]))\n    return out\n",
            ((7, 20), (7, 37)),
        ),
        Invalid(  # a list attribute that is also given tensors, or only tensors
            "import torch\nclass Evaluator:\n    def __init__(self):\n        self.preds, self.raw = [], []\n"
            "    def add(self, d):\n        self.preds.append(d.cpu().numpy())\n        self.preds.append(d * 2)\n"
            "        self.raw.append(torch.relu(d))\n    def coco(self, out):\n        for p in self.preds:\n"
            "            out.append(p.tolist())\n        for r in self.raw:\n            out.append(r.tolist())\n",
            ((11, 24), (13, 24)),
        ),
        Invalid(  # a bounded loop over fresh draws: the test is on each pass's own data
            "import torch\ndef f(pct):\n    for _ in range(3):\n        noise = torch.randn(1).item()\n"
            "        if abs(noise) < pct:\n            return noise\n",
            ((4, 17),),
        ),
        Invalid(  # an ``elif`` chain on the pass's data alone; tensor rows through a progress bar
            "import torch\nfrom tqdm import tqdm\ndef f(xs, eps):\n    for x in xs:\n        if x.sum() > eps:\n"
            "            print(x)\n        elif x.mean() < 0:\n            break\n"
            "    return [r.item() for r in tqdm(torch.zeros(3))]\n",
            ((5, 12), (7, 14), (9, 13)),
        ),
        Invalid(  # a flag no stop test reads, and a flag set from a value the loop does not carry
            "import torch\ndef f(x, step, eps, ys):\n    for i in range(50):\n        x = step(x)\n"
            "        if x.norm() < eps:\n            small = True\n    done = False\n    for y in ys:\n"
            "        if y.norm() < eps:\n            done = True\n        if done:\n            break\n",
            ((5, 12), (9, 12)),
        ),
        Invalid(  # elements of tensors a method of the class, or a function of the file, returns
            "import torch\nclass Mix:\n    def _params(self, n):\n        use = torch.zeros(n, dtype=torch.bool)\n"
            "        if self.a > 0.0:\n            use = torch.rand(n) < self.p\n"
            "        return torch.where(use, torch.rand(n), torch.ones(n)), use\n"
            "    def mix(self, x):\n        lam_batch, use = self._params(len(x))\n"
            "        for i in range(len(x)):\n            lam = lam_batch[i]\n            if lam != 1.0:\n"
            "                x[i] = x[i] * lam\n            if use[i]:\n                x[i] = -x[i]\n"
            "def keep(n):\n    return torch.rand(n) > 0.5\ndef f(x):\n    mask = keep(len(x))\n"
            "    return [v for i, v in enumerate(x) if mask[i]]\n",
            ((12, 16), (14, 16), (20, 43)),
        ),
        Invalid(  # arithmetic on a tensor stays a tensor
            "import numpy as np\nimport torch\ndef scale(x):\n    return 1.0 / (1.0 + torch.exp(-x))\n"
            "def f(xs):\n    return [scale(x).item() for x in xs]\n",
            ((6, 13),),
        ),
        Invalid(  # the same state, annotated as tensors
            "import torch\nfrom typing import Tuple\nclass Data:\n"
            "    def _pack(self) -> Tuple[torch.Tensor, torch.Tensor]:\n        return pack()\n"
            "    def load(self):\n        self.data, self.address = self._pack()\n"
            "    def get(self, n):\n        return [self.address[i].item() for i in range(n)]\n",
            ((9, 17),),
        ),
        Invalid(  # a running total that no stop test reads, and a count bumped beside the one it reads
            "import torch\ndef f(xs, total):\n    seen = 0\n    for x in xs:\n"
            "        seen += int(x.sum().item())\n"
            "    while total > 0:\n        total -= 1\n        seen += x.sum().item()\n    return seen\n",
            ((5, 21), (8, 17)),
        ),
        Invalid(  # a lambda the loop body applies at once
            "import torch\ndef sample(pairs):\n    out = []\n    for sigma, gamma in pairs:\n"
            "        s, g = map(lambda t: t.item(), (sigma, gamma))\n"
            "        top = max(sigma, key=lambda t: float(t.sum()))\n        out.append(s + g + top)\n"
            "    return out\n",
            ((5, 30), (6, 40)),
        ),
        Invalid(
            "import numpy as np\nimport torch\ndef f(values: dict[str, torch.Tensor], keys):\n"
            "    for key in keys:\n        tmp = values[key]\n"
            "        a = tmp if isinstance(tmp, np.ndarray) else tmp.tolist()\n"
            "        b = isinstance(tmp, torch.Tensor) and tmp.tolist()\n    return a, b\n",
            ((6, 53), (7, 47)),
        ),
        Invalid(
            "import torch\nfrom typing import Dict\ndef f(sd: Dict[str, torch.Tensor], n, out):\n"
            "    for i in range(n):\n        w = sd.get('w', torch.zeros(1))\n        if w.any():\n"
            "            out[i] = w\n",
            ((6, 12),),
        ),
        Invalid(
            "import torch\ndef f(a, b, n):\n    for i in range(n):\n        close = torch.allclose(a, b)\n"
            "        if close or torch.equal(a, b):\n            a = a * 2\n    return a\n",
            ((5, 12),),
        ),
        Invalid("import torch\nfor t in tensors:\n    total += t.item()\n", ((3, 14),)),
        Invalid("import torch\nwhile queue and ready.any():\n    handle(queue.pop())\n", ((2, 7),)),
        Invalid("import torch\nfor p in planes:\n    if torch.any(p < 0):\n        break\n", ((3, 8),)),
        Invalid("import torch\nsizes = [int(t.sum()) for t in tensors]\n", ((2, 10),)),
        Invalid(
            "import torch\ndef f(t: torch.Tensor, mask: torch.Tensor):\n    for i in range(3):\n"
            "        a, b, c = float(t[i]), int(t), bool(t)\n        if mask[i]:\n            pass\n",
            ((4, 19), (4, 32), (4, 40), (5, 12)),
        ),
        Invalid(
            "import torch\nfor _ in range(10):\n    i = torch.randint(0, 9, (1,)).item()\n    for j in x:\n"
            "        break\n    if ok():\n        continue\n",
            ((3, 9),),
        ),
        Invalid(
            "import torch\nfor _ in range(10):\n    for j in x:\n        y = j.item()\n        break\n",
            ((4, 13),),
        ),
        Invalid(
            "import torch\ndef f(n, stops, step):\n    for i in range(n):\n        mask = step(i)\n"
            "        if i + 1 in stops and not bool(mask.any()):\n            continue\n",
            ((5, 12),),
        ),
        Invalid(  # the method form of torch.allclose, in a test folded with others
            "import torch\ndef f(groups, scaling):\n    for g in groups:\n        avg = g['avg'] / 2\n"
            "        if g['step'] > 1 and avg.allclose(scaling, rtol=1e-6):\n            g['phase'] = 'SGD'\n",
            ((5, 12),),
        ),
        Invalid(  # a ``while`` whose body may not run leaves the tensor bound before it
            "import numpy as np\nimport torch\ndef f(ts, n):\n    for t in ts:\n        a = t\n"
            "        while n > 0:\n            a = np.asarray(t)\n            n -= 1\n        print(a.tolist())\n",
            ((9, 15),),
        ),
        Invalid(  # the read feeds a list, not the test that ends the loop
            "import torch\ndef f(k, step, out):\n    for i in range(50):\n        k = step(k)\n"
            "        out.append(k.max().item())\n        if i > 40:\n            break\n",
            ((5, 20),),
        ),
        Invalid(  # the stop test reads only the loop target, nothing carried
            "import torch\ndef f(planes):\n    for p in planes:\n        peak = p.max().item()\n"
            "        if peak < 0:\n            break\n",
            ((4, 16),),
        ),
        Invalid(  # the counter is compared with a value the body changes: any pass may take the branch
            "import torch\ndef f(ys, j):\n    for i, y in enumerate(ys):\n        if i == j:\n"
            "            print(y.item())\n        j = j + 2\n",
            ((5, 19),),
        ),
        Invalid(
            "import torch\ndef f(ys):\n    for i, y in enumerate(ys):\n        if i > 0:\n"
            "            print(y.item())\n",
            ((5, 19),),
        ),
        Invalid(
            "import torch\ndef f(planes):\n    for p in planes:\n        if torch.any(p < 0):\n"
            "            break\n",
            ((4, 12),),
        ),
        Invalid(
            "import torch\nfrom typing import List, Tuple\nclass R:\n"
            "    def recover(self) -> List[Tuple[torch.Tensor, torch.Tensor]]:\n        return []\n"
            "    def run(self, best):\n        for scores, counts in self.recover():\n"
            "            best = max(best, float(scores[0]), int(counts[0]))\n        return best\n",
            ((8, 30), (8, 48)),
        ),
        Invalid(
            "import torch\ndef order() -> torch.Tensor:\n    return torch.randperm(4)\n"
            "def f(img):\n    for fn_id in order():\n        if fn_id == 0:\n            img = img + 1\n",
            ((6, 12),),
        ),
        Invalid(
            "import torch\ndef f(mask):\n    rows = torch.nonzero(mask)[:, 0]\n"
            "    return [int(r) for r in rows]\n",
            ((4, 13),),
        ),
        Invalid(
            "import torch\ndef order(n) -> torch.Tensor:\n    return torch.randperm(n)\ndef f(n, a):\n"
            "    for i, k in enumerate(order(n)):\n        a[i] = a[int(k)]\n",
            ((6, 18),),
        ),
        Invalid(
            "import torch\ndef f(scores: torch.Tensor, n):\n    for i in range(n):\n"
            "        best = max(scores[i])\n"
            "        if best > 0.5:\n            print(i)\n",
            ((5, 12),),
        ),
        Invalid(
            "import torch\ndef _scores(x) -> torch.Tensor:\n    return x.softmax(0)\ndef f(xs):\n"
            "    for x in xs:\n"
            "        if sum(_scores(x)) > 0:\n            print(x)\n",
            ((6, 12),),
        ),
        Invalid(
            "import torch\ndef f(xs, fill):\n    for x in xs:\n        y = x if x.any() else fill\n", ((4, 18),)
        ),
        Invalid("import torch\ndef f(xs):\n    return [x for x in xs if x.any()]\n", ((3, 30),)),
        Invalid(
            "import torch\ndef _valid(x) -> torch.Tensor:\n    return x > 0\ndef f(xs, fill):\n"
            "    return [x if _valid(x[0]) else fill for x in xs]\n",
            ((5, 18),),
        ),
        Invalid(
            "import torch\nfrom typing import Dict\ndef f(params: Dict[str, torch.Tensor], n):\n"
            "    for i in range(n):\n"
            "        if params['apply'][i]:\n            print(i)\n",
            ((5, 12),),
        ),
        Invalid(
            "import torch\ndef f(n):\n    drawn = {'p': torch.rand(n), 'sign': torch.rand(n) < 0.5}\n"
            "    for i in range(n):\n"
            "        if drawn['p'][i] > 0.5 and drawn['sign'][i]:\n            print(i)\n",
            ((5, 12),),
        ),
        Invalid(
            "import torch\nfrom typing import Dict\ndef params(n) -> Dict[str, torch.Tensor]:\n"
            "    return {'p': torch.rand(n)}\n"
            "def f(n):\n    for i, p in enumerate(params(n).values()):\n        if p[i] > 0.5:\n"
            "            print(i)\n",
            ((7, 12),),
        ),
        Invalid(
            "import torch\ndef f(batches):\n    for x in batches:\n        peak = x.max()\n        if peak > 0:\n"
            "            print(x)\n",
            ((5, 12),),
        ),
        Invalid(
            "import torch\ndef _peak(x) -> torch.Tensor:\n    return x.amax()\ndef f(batches):\n"
            "    for x in batches:\n"
            "        peak = _peak(x)\n        if peak > 0:\n            print(x)\n",
            ((7, 12),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        #: ids of the ``if``/``while`` tests reported as a whole: a read inside one is that finding.
        self._reported_tests: set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        converts = isinstance(node.func, cst.Name) and node.func.value in _BUILTINS and len(node.args) == 1
        if not (method in _TO_PYTHON or converts) or not self.ctx.imports_torch or not self._repeats():
            return
        if self._inside_reported_test_or_assert():
            return
        if self._decides_stop_of_read(scalar=method != "tolist"):
            return
        if method in _TO_PYTHON:
            if kind_of(self.ctx, node.func.value) not in _NOT_TENSORS:  # type: ignore[attr-defined]
                self.report(node, what=f"`.{method}()`")
            return
        value = node.args[0].value
        if self._reads_tensor(value) or kind_of(self.ctx, value) == TENSOR:
            self.report(node, what=f"`{node.func.value}(...)`")  # type: ignore[attr-defined]

    def visit_If(self, node: cst.If) -> None:
        if self.ctx.imports_torch and self._repeats() and not self._decides_stop(node, in_loop(self.ctx)):
            self._check_test(node.test, "`if` on a tensor")

    def visit_While(self, node: cst.While) -> None:
        if self.ctx.imports_torch and not self._decides_stop(node, node):
            self._check_test(node.test, "`while` on a tensor")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if self.ctx.imports_torch and self._repeats() and not self._inside_reported_test_or_assert():
            self._check_test(node.test, "`... if ... else ...` on a tensor")

    def visit_CompIf(self, node: cst.CompIf) -> None:
        if self.ctx.imports_torch and self._repeats() and not self._inside_reported_test_or_assert():
            self._check_test(node.test, "a comprehension's `if` on a tensor")

    def _inside_reported_test_or_assert(self) -> bool:
        """Inside a test already reported (one condition, one finding), or inside an ``assert``,
        which checks a result (and ``python -O`` removes): it is no part of the loop's work."""
        reported = self._reported_tests
        return any(id(a) in reported or type(a) is cst.Assert for a in self.ctx.ancestors)

    def _decides_stop(self, owner: cst.If | cst.While, loop: cst.CSTNode | None) -> bool:
        """Whether ``owner``'s test decides when ``loop`` stops (a ``while`` test, an ``if`` whose
        branch leaves with ``break``, ``return`` or ``raise``, or one whose branch sets a flag a stop
        test reads, ``if err < eps: converged = True``) from state the loop carries between passes:
        such a value does not exist before the loop, so it cannot be read once outside it."""
        if not isinstance(loop, cst.For | cst.While):
            return False
        state = loop_state(self.ctx, loop)
        if isinstance(owner, cst.If):
            # an ``elif`` belongs to its chain: when one arm of the chain leaves the loop, every test
            # of the chain decides which arm runs (``if gap <= eps: break`` / ``elif gap > eps: x += h``)
            head = chain_head(self.ctx.ancestors, owner)
            if not (exits_loop(head) or state.feeds_stop(_flags_set(owner))):
                return False
            if _endless(loop):
                return True  # ``while True:`` ends only through such tests: none can be read before it
        return state.depends_on_carried(owner.test)

    def _decides_stop_of_read(self, scalar: bool) -> bool:
        """For a read being visited: whether it sits in a test that decides when its loop stops, or is
        assigned to a name that flows into such a test (``changed = bool(...)`` under ``while
        changed:``, ``error = ....item()`` then ``if error < tol: break``), computed from carried state.
        Only a ``scalar`` read can be such a decision: a ``.tolist()`` brings back the pass's data."""
        ancestors = self.ctx.ancestors
        for index in range(len(ancestors) - 2, 0, -1):
            node, child = ancestors[index], ancestors[index + 1]
            if isinstance(node, cst.If | cst.While) and child is node.test:
                loop = node if isinstance(node, cst.While) else in_loop(self.ctx)
                return self._decides_stop(node, loop)
            if isinstance(node, cst.Assign) and child is node.value and scalar:
                loop = in_loop(self.ctx)
                targets = {n for t in node.targets for n in read_names(t.target)}
                return (
                    isinstance(loop, cst.For | cst.While)
                    and loop_state(self.ctx, loop).feeds_stop(targets)
                    and loop_state(self.ctx, loop).depends_on_carried(node.value)
                )
            if isinstance(node, cst.AugAssign) and child is node.value and scalar:
                # ``remaining -= int(accepted.sum())`` under ``while remaining > 0``: the count the
                # loop carries, and which its stop test reads, is brought up to date
                loop = in_loop(self.ctx)
                return isinstance(loop, cst.For | cst.While) and loop_state(self.ctx, loop).feeds_stop(
                    read_names(node.target)
                )
            if isinstance(node, cst.BaseSmallStatement | cst.BaseCompoundStatement):
                return False
        return False

    def _repeats(self) -> bool:
        """Inside a loop, on a path that some enclosing loop of the same function can run again."""
        innermost = in_loop(self.ctx)
        if innermost is None:
            return False
        ancestors = self.ctx.ancestors
        loops = [innermost, *(n for n in enclosing_loops(self.ctx) if n is not innermost)]
        return any(not runs_at_most_once(ancestors, loop) for loop in loops)

    def _check_test(self, test: cst.BaseExpression, what: str) -> None:
        """Report ``test`` when its truth is read from a tensor: it calls a reduction, tests a known
        tensor, or tests a name bound to a reduction, or an element of one (``peak = x.max()`` ... ``if
        peak > 0:``, ``trends = x.sum(dim=1)`` ... ``if trends[b] > 0:``)."""
        calls = (n for n in walk(test, into_functions=False) if isinstance(n, cst.Call))
        operands = _operands(test)
        names = (n for o in operands for n in map(_indexed_name, _sides(o)) if isinstance(n, cst.Name))
        if (
            any(self._reads_tensor(n) for n in calls)
            or any(kind_of(self.ctx, operand) == TENSOR for operand in operands)
            or any(
                self._reads_tensor(value) and not self._read_before_loops(value)
                for value in (bound_value(self.ctx, name) for name in names)
            )
        ):
            self._reported_tests.add(id(test))
            self.report(test, what=what)

    def _read_before_loops(self, value: cst.BaseExpression | None) -> bool:
        """``same = torch.equal(a, b)`` before the loop: the call gives a Python bool, read once where it
        is bound, so testing the name in the loop reads no tensor."""
        if not isinstance(value, cst.Call) or not (
            self.ctx.qualname(value.func) in PYTHON_BOOLS or method_name(value) in _COMPARING_METHODS
        ):
            return False
        return not any(value is node for loop in enclosing_loops(self.ctx) for node in walk(loop.body))

    def _reads_tensor(self, node: cst.BaseExpression | None) -> bool:
        """A call whose value Python reads from a tensor: a reduction of a value not known to be
        NumPy or pandas, ``torch.equal``..., or builtin ``any``/``all`` over a known tensor."""
        if not isinstance(node, cst.Call):
            return False
        qualname = self.ctx.qualname(node.func)
        if qualname is not None:
            return qualname in TORCH_READS
        func = node.func
        if isinstance(func, cst.Name) and func.value in _TRUTH_BUILTINS and len(node.args) == 1:
            return kind_of(self.ctx, node.args[0].value) == TENSOR
        if method_name(node) not in REDUCTIONS and method_name(node) not in _COMPARING_METHODS:
            return False
        return kind_of(self.ctx, node.func.value) not in _NOT_TENSORS  # type: ignore[attr-defined]


def _endless(loop: cst.For | cst.While) -> bool:
    """``while True:`` (or ``while 1:``): the loop ends only through the tests in its body, so each value
    such a test reads is drawn in the pass that tests it (a rejection sampler, a line search)."""
    return isinstance(loop, cst.While) and (is_literal(loop.test, "True") or int_value(loop.test) == 1)


def _flags_set(branch: cst.If) -> set[str]:
    """The names the branch's own block binds to a literal (``converged = True``)."""
    lines = branch.body.body if isinstance(branch.body, cst.IndentedBlock) else (branch.body,)
    return {
        target.target.value
        for line in lines
        if isinstance(line, cst.SimpleStatementLine | cst.SimpleStatementSuite)
        for small in line.body
        if isinstance(small, cst.Assign)
        and (
            isinstance(small.value, cst.Integer)
            or is_literal(small.value, "True")
            or is_literal(small.value, "False")
        )
        for target in small.targets
        if isinstance(target.target, cst.Name)
    }


def _indexed_name(side: cst.BaseExpression) -> cst.BaseExpression:
    """``trends`` for ``trends[b]``: an element of a reduction's result is read from it."""
    while isinstance(side, cst.Subscript):
        side = side.value
    return side


def _sides(operand: cst.BaseExpression) -> list[cst.BaseExpression]:
    """What an operand compares: ``peak`` and ``0`` in ``peak > 0``; the operand itself otherwise."""
    if isinstance(operand, cst.Comparison):
        return [operand.left, *(target.comparator for target in operand.comparisons)]
    return [operand]


def _operands(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The values a test's truth is read from: ``a`` and ``b`` in ``not a or b``."""
    if isinstance(test, cst.BooleanOperation):
        return [*_operands(test.left), *_operands(test.right)]
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _operands(test.expression)
    return [test]
