"""TPL106: a tensor built from the same values on every iteration of a loop."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit import types, writes
from torchperf_lint.toolkit.exemptions import test_files
from torchperf_lint.toolkit.flow import bound_names, runs_at_most_once
from torchperf_lint.toolkit.matching import method_name, positional, walk

_TORCH_CONSTRUCTORS = "tensor as_tensor from_numpy arange linspace logspace meshgrid full ones zeros empty eye"
CONSTRUCTORS = frozenset(
    [f"torch.{name}" for name in _TORCH_CONSTRUCTORS.split()] + ["torch.nn.functional.affine_grid"]
)


class LoopInvariantTensor(Rule):
    code = "TPL106"
    name = "loop-invariant-tensor"
    hint = "Build the tensor once before the loop and reuse it."
    summary = "A tensor built from loop-invariant values inside a loop"
    message = "`{callee}(...)` builds the same tensor on every iteration; build it once before the loop"
    why = (
        "Constructors allocate and fill a new tensor each time they run. When every argument is "
        "the same on each iteration, the loop repeats an allocation (and for grids, a full "
        "computation) whose result never changes: build it once and reuse it, or preallocate."
    )
    example = (
        "for volume in batch:\n    grid = F.affine_grid(theta, size)\n    out.append(F.grid_sample(volume, grid))"
    )
    use_instead = (
        "grid = F.affine_grid(theta, size)\nfor volume in batch:\n    out.append(F.grid_sample(volume, grid))"
    )
    notes = (
        "A call to a torch constructor (`tensor`, `as_tensor`, `from_numpy`, `arange`, `linspace`, "
        "`meshgrid`, `full`, `ones`, `zeros`, `empty`, `eye`, `F.affine_grid`) inside a `for` or `while` "
        "body is flagged when no name in its arguments is bound or changed inside the loop (targets, "
        "assignments, `with ... as`, walrus, `items.append(...)` and other in-place changes; the object's "
        "own `self.device` and `self.dtype` count as unchanged) and its "
        "arguments make no calls. Random draws (`torch.rand`, `torch.randn`, `torch.randint`...) are not "
        "constructors of the same values and are never flagged. Exempt, because the tensor is meant to "
        "be new each time: a buffer filled in place on the spot (`torch.empty(1).uniform_(a, b)`, "
        "`nn.init.normal_(torch.zeros(d, 1))`, also by the initialisers' older names such as "
        "`nn.init.normal`); one "
        "that is kept or stored, in a list (`out.append(torch.zeros(n))`, `extend`, `insert`, `out += "
        "[...]`), a dict or key-value store (`out[k] = ...`, `out.update({k: ...})`, `td.set(k, ...)`), or "
        "a module's state (`self.table = ...`, `setattr(self, name, ...)`, `register_buffer`, a metric's "
        "`add_state` or a class's own `_add_state`, a setter such as `image.set_embedding(name, ...)`; "
        "`x.set_(...)` is in-place; also repeated in a list, `out[k] = [torch.empty([])] * n`), "
        "directly, by a function of the same file that keeps its parameter there, or inside "
        "an object built on it that is itself stored so (`replies.append(TensorDict({'ok': "
        "torch.tensor(True)}))`, or `block = [Coupling(mask)]` then "
        "`layers += block`: an instance of a class outside torch and NumPy holds what it is given; "
        "bound to a name, as in `prior = Normal(torch.tensor(0.0), s)`, such an object is taken as a "
        "reader of the tensor and the constructor is flagged; the same holds for the result of a "
        "function or method outside torch and NumPy that the file cannot see into and that is given "
        "the tensor alone, which may return it, `totals[k] = state.device.tensor_to_device(torch.zeros(1))`, "
        "and such a result also stays new by design when bound to a name the loop writes in place or "
        "returns); one wrapped into a learnable parameter or buffer "
        "(`nn.Parameter(torch.empty(n))`, one per layer, since the wrapper does not copy); and one bound "
        "to a name whose value the loop body writes in place (`rx = torch.eye(3)` then `rx[1, 1] = c`, "
        "`w = torch.empty(d, r)` then `nn.init.kaiming_uniform_(w)`, or `flag = torch.zeros(1)` then a "
        "collective that fills it, `dist.all_reduce(flag)`, from `torch.distributed` or a library's "
        "`dist` module), "
        "keeps or stores as above, returns or yields, directly, through a view or inside a tuple, list "
        "or dict (`indices = (crow, col)` then `yield indices`). A store into a tensor or an array "
        "copies the values in and keeps nothing, so it is flagged: `out[:, i] = torch.zeros(n)` (an "
        "index mixing a slice or `...` with other parts), or `out[i] = ...` where `out` is known to be a "
        "tensor (annotated, made by torch, or returned as one by a project function). A store through a "
        "plain index into a value of unknown kind counts as kept, since it may be a list or a dict; a "
        "constructor inside the index of a store (`logits[torch.arange(n), 0] = v`) is only read. A "
        "tensor handed to code the file cannot see into (a model, a function of another module) is taken "
        "as read there, as it mostly is, and flagged. A rebinding to a new value ends that value: "
        "`labels = torch.arange(n)` later replaced by `labels[inds]` (a tensor index copies) and "
        "appended is still flagged. Also exempt: `torch.from_numpy(a)`/`torch.as_tensor(a)` of a value "
        "known to be a NumPy array or a tensor (annotated `np.ndarray`, `NDArray[...]`, `torch.Tensor`, a "
        "shaped type such as `Float[np.ndarray, 'n']` or a type alias of the module for one, "
        "or bound from such a call), which shares its memory and allocates nothing; NumPy constructors "
        "(`np.zeros`), which are not torch; and a constructor that runs at most once per loop, in a "
        "branch or loop body that ends in `return`, `break` or `raise`, or under a test that picks one pass "
        "(in an `if` or in an arm of a conditional expression, `torch.ones(()) if i == 0 else aux`, or "
        "the `else` of `i != 0`) "
        "by a loop key that differs on every pass and that the body leaves unchanged: the counter of "
        "`range` or `enumerate` (`if i == 0:`, also taken in another order or zipped, `for t in "
        "reversed(range(n)): if t == n - 1:`, `for i, x in zip(range(n), xs):`), the counter of a `while` "
        "loop whose body steps it by "
        "`idx += 1` as a statement of its own, binds it nowhere else and never `continue`s (`if idx == 0:`, "
        "`if not step:`, the `else` of `if idx:`), the key of `d.items()` or `d.keys()` (`if key == 'done':`), "
        "or the target over a literal of distinct constants (both arms of `if flag:` in "
        "`for flag in (False, True)`); in one arm of an `if`/`elif` chain that compares the loop's "
        "target (or one name of a tuple target, `for kind, w in zip(kinds, weights)`) with two or more "
        "different strings (`for mode in self.modes: if mode == 'cls': ... elif "
        "mode == 'mean':`), a dispatch over a collection of names, each of which it holds once; in a loop "
        "of one pass at most (`for x in [v]:`, `zip([masks], images)`); or under lazy initialisation, "
        "`if acc is None:` (or `if not exists(acc):`, with a function of the module returning "
        "`v is not None`) whose block binds `acc` (a name or an attribute) to a value, when nothing else "
        "in the loop binds it; on the last pass of `for i in range(n)` only (`if i >= n - 1:`, or the "
        "`else` of `if i < n - 1:`, where a line search gives up)."
    ) + test_files(
        "tests rebuild the same small inputs and expected values for every case of a loop, so each case "
        "starts clean; nothing there is measured"
    )
    fix_safety = "No fix: hoisting needs a name for the hoisted value and a check that nothing mutates it."
    valid = (
        # a constructor in an arm of a conditional expression taken on one pass only
        "import torch\ndef f(xs, aux):\n    out = []\n    for i, x in enumerate(xs):\n"
        "        w = torch.ones(()) if i == 0 else aux\n        v = aux if i != 0 else torch.zeros(3)\n"
        "        out.append(x * w * v)\n    return out\n",
        # a loop value's own device changes with the value
        "import torch\ndef f(x, n, out):\n    for v in x:\n"
        "        out.append(v[torch.as_tensor(n, device=v.device)])\n",
        # a list of one tensor repeated, kept in a dict or on a module; a class's own state wrapper
        "import torch\ndef f(tables, n, out, model):\n    for table in tables:\n"
        "        out[table.name] = [torch.empty([])] * n\n    for m in model.modules():\n"
        "        setattr(m, 'grid', [torch.zeros(1)] * m.nl)\n",
        "import torch\nclass Metric:\n    def __init__(self, labels):\n        for label in labels:\n"
        "            self._add_state(label, torch.zeros(1, dtype=torch.double))\n",
        # kept by a setter, or inside objects the loop stores
        "import torch\ndef f(images, n):\n    for image in images:\n"
        "        image.set_embedding('img', torch.zeros(n))\n",
        "import torch\nfrom torch import tensor\ndef f(n, features):\n    layers = []\n    for _ in range(n):\n"
        "        block = [Coupling(mask=tensor([1])), Permute(features)]\n        layers += block\n"
        "    return layers\n",
        # the last pass of a line search, and a dispatch over names zipped with weights
        "import torch\ndef f(n, step):\n    for i in range(n):\n        if ok(step):\n            break\n"
        "        if i < n - 1:\n            step = step * 0.5\n        else:\n"
        "            step = torch.tensor([0.0])\n"
        "    return step\n",
        "import torch\ndef f(self, delta):\n    loss = 0.0\n    for kind, w in zip(self.kinds, self.weights):\n"
        "        if kind == 'sigmoid':\n            per = delta\n        elif kind == 'exo':\n"
        "            per = delta * torch.tensor(self.eps)\n        loss = loss + w * per\n    return loss\n",
        "import torch\nfor i in range(4):\n    t = torch.full((2,), i)\n",
        # a dispatch on the name of each pass (each arm picks one name), and loops of one pass at most
        "import torch\ndef pool(self, x, n):\n    out = []\n    for mode in self.modes:\n"
        "        if mode == 'cls':\n            out.append(x[:, 0])\n        elif mode == 'mean':\n"
        "            w = torch.ones(n)\n            out.append((x * w).mean(1))\n"
        "        elif mode == 'weighted':\n            w = torch.arange(n)\n"
        "            out.append((x * w).sum(1))\n"
        "    return out\n",
        "import torch\ndef f(masks, images, n, out):\n    for m, img in zip([masks], images):\n"
        "        idx = torch.arange(n)\n        out.append(float((m[idx] * img).sum()))\n",
        "import torch\ndef f(x, n, out):\n    for v in (x,):\n        w = torch.ones(n)\n"
        "        out.append(float((v * w).sum()))\n",
        # lazy initialisation through a helper of the module: ``not exists(x)``, ``is_none(x)``, an attribute
        "import torch\ndef exists(v):\n    return v is not None\ndef f(chunks, n):\n    t = None\n"
        "    for c in chunks:\n        if not exists(t):\n            t = torch.zeros(n)\n        c.add_(t)\n",
        "import torch\ndef is_none(v):\n    return v is None\ndef f(chunks, n):\n    mask = None\n"
        "    for c in chunks:\n        if is_none(mask):\n            mask = torch.ones(n, dtype=torch.bool)\n"
        "        c[mask] = 0\n",
        "import torch\ndef exists(v):\n    return v is not None\nclass M:\n    def f(self, chunks):\n"
        "        for c in chunks:\n            if not exists(self.w):\n"
        "                self.w = torch.ones(c.shape[-1])\n            c.mul_(self.w)\n",
        # filled in place by an initialiser as it is made: the current name, the older one, imported
        "import torch\ndef f(n, d, out):\n    for i in range(n):\n"
        "        out.append(torch.nn.init.normal_(torch.zeros(d, 1)) / 2)\n",
        "import torch\nfrom torch import nn\ndef f(n, d, out):\n    for i in range(n):\n"
        "        out.append(nn.init.normal(torch.zeros(d, 1)) / 2)\n",
        "import torch\nfrom torch.nn.init import uniform_\ndef f(n, d):\n    total = 0\n"
        "    for i in range(n):\n        total = total + uniform_(torch.empty(d)).sum()\n    return total\n",
        # lazy initialisation: built on the first pass that finds the name or attribute still None
        "import torch\ndef f(chunks, n):\n    total = None\n    for c in chunks:\n        if total is None:\n"
        "            total = torch.zeros(n)\n        total += c.sum(0)\n    return total\n",
        "import torch\nclass Pool:\n    def f(self, chunks):\n        for c in chunks:\n"
        "            if self._weights is None:\n                self._weights = torch.ones(c.shape[-1])\n"
        "            yield c * self._weights\n",
        "import torch\ndef f(rows, dim):\n    mask = None\n    for r in rows:\n        if mask is None:\n"
        "            mask = torch.arange(dim)\n            mask = mask % 2 == 0\n        r[mask] = 0\n",
        "import torch\ndef f(items, tasks, out):\n    for item in items:\n        match item:\n"
        "            case ['mask', label]:\n                out.append(torch.tensor(tasks[label]))\n",
        "import torch\ndef f(xs, n):\n    for i, x in enumerate(xs):\n        if i == 0:\n"
        "            mask = torch.zeros((1, n), dtype=torch.bool)\n        x.masked_fill_(mask, 0)\n",
        # the counter of a while loop that steps it once per pass: compared, negated, the else arm
        "import torch\ndef gen(model, n, x):\n    idx, start = 0, x.shape[1]\n    while idx < n:\n"
        "        if idx == 0:\n            out = model(pos=torch.tensor([start - 1]))\n"
        "        else:\n            out = model(pos=out)\n        idx += 1\n    return out\n",
        "import torch\ndef decode(model, n):\n    step = 0\n    while True:\n        if not step:\n"
        "            h = torch.zeros(1, 4)\n        h = model(h)\n        step += 1\n        if step > n:\n"
        "            break\n    return h\n",
        "import torch\ndef warm(model, n):\n    k = 0\n    while k < n:\n        if k:\n"
        "            y = model(y)\n        else:\n            y = torch.ones(3)\n        k += 1\n    return y\n",
        # the counter of a range or enumerate taken in another order still picks one pass
        "import torch\ndef g(values, n, b, xs):\n    for t in reversed(range(n)):\n        if t == n - 1:\n"
        "            last = torch.zeros(b)\n        else:\n            last = values[t + 1]\n        print(last)\n"
        "    for i, x in reversed(list(enumerate(xs))):\n        if i == 0:\n            first = torch.ones(b)\n"
        "            print(first, x)\n    for t in sorted(range(n)):\n        if t == n - 1:\n"
        "            print(torch.zeros(b))\n    for x, i in zip(xs, reversed(range(n))):\n"
        "        if i == n - 1:\n            w = torch.ones(b)\n        print(w + x)\n",
        "import torch\nfor v in volumes:\n    buf = torch.empty_like(v)\n",
        "import torch\nt = torch.zeros(3)\nfor i in range(4):\n    t += i\n",
        "import torch\nfor i in range(4):\n    n = i * 2\n    t = torch.arange(n)\n",
        "import torch\nfor _ in range(10):\n    area = torch.empty(1).uniform_(0.1, 1.0).item()\n",
        "import torch\nfor a in angles:\n    rx = torch.eye(3)\n    rx[1, 1] = a\n    mats.append(rx)\n",
        # filled in place by an initialiser, in its module, aliased and imported forms
        "import math\nimport torch\nfrom torch import nn\nfrom torch.nn.init import zeros_\n"
        "def init(block, n, d, r):\n    for i in range(n):\n        w = torch.empty((d, r))\n"
        "        torch.nn.init.kaiming_uniform_(w, a=math.sqrt(5))\n        v = torch.empty(d)\n"
        "        nn.init.normal_(v)\n        z = torch.empty(r)\n        zeros_(z)\n"
        "        block[i] = w.T @ v + z.sum()\n",
        "import torch\nfor level in levels:\n    sigmas.append(torch.full((2, 3), 1.6))\n",
        "import torch\ndef f(steps):\n    for step in steps:\n        if step is None:\n"
        "            return torch.zeros(3)\n",
        "import torch\nfor line in lines:\n    labels.append(parse(line))\n    t = torch.tensor(labels)\n",
        "import torch\nwhile True:\n    v = torch.tensor([1.0, 2.0])[:, None]\n    break\n",
        "import torch\nfor t in targets:\n    bad = torch.tensor([0.0, 1.0])\n    raise ValueError(bad)\n",
        "import torch\nfor i in range(4):\n    out[i] = torch.zeros(3)\n",
        "import torch\nclass M:\n    def build(self, names):\n        for name in names:\n"
        "            self.table = torch.zeros(3)\n            setattr(self, name, self.table)\n",
        "import torch\nfor i in range(4):\n    noise = torch.rand(3)\n    jitter = torch.randn(2, 2)\n",
        "import torch\nfrom torch.nn import Parameter\ndef f(self, n, layers):\n    for layer in range(layers):\n"
        "        w = Parameter(torch.empty((n, n)))\n        setattr(self, f'w{layer}', w)\n",
        "import torch\ndef cases(layouts, d):\n    for layout in layouts:\n"
        "        crow = torch.tensor([0, 0], device=d)\n        col = torch.empty(0, device=d)\n"
        "        indices = (crow, col)\n        yield (*indices,), layout\n",
        "import torch\nimport numpy as np\nfrom numpy.typing import NDArray\n"
        "def f(a: NDArray[np.float32], n):\n    for _ in range(n):\n        t = torch.from_numpy(a)\n"
        "        buf = np.zeros((3,))\n",
        "import torch\ndef f(self, keys):\n    for k in keys:\n        t = torch.zeros(3)\n"
        "        self.cache[k] = t\n        self.last = torch.ones(3)\n",
        "import torch\ndef f(keys, table):\n    for k in keys:\n        table.update({k: torch.zeros(3)})\n"
        "        t = torch.ones(3)\n        table.update(last=t)\n",
        "import torch\ndef f(self, names):\n    for n in names:\n        setattr(self, n, torch.zeros(3))\n"
        "        t = torch.ones(3)\n        setattr(self, n + '_1', t)\n",
        "import torch\ndef f(self, names):\n    for n in names:\n"
        "        self.add_state(n, torch.tensor(0.0), dist_reduce_fx='sum')\n",
        "import torch\ndef f(names, out):\n    for n in names:\n        out += [torch.zeros(3)]\n"
        "        t = torch.ones(3)\n        out += [t]\n",
        "import torch\ndef _keep(table, key, value):\n    table[key] = value\ndef f(keys, table):\n"
        "    for k in keys:\n        _keep(table, k, torch.zeros(3))\n        t = torch.ones(3)\n"
        "        _keep(table, k, t)\n",
        "import torch\ndef f(keys, store):\n    for k in keys:\n        store.set(k, torch.zeros(3))\n"
        "        done = torch.ones(3)\n        store.set(k + '_done', done)\n",
        "import torch\nfrom tensordict import TensorDict\ndef f(messages):\n    replies = []\n"
        "    for m in messages:\n        replies.append(TensorDict({'ok': torch.tensor(True)}, batch_size=[]))\n"
        "        replies[-1]['last'] = Record(torch.zeros(3))\n    return replies\n",
        "import torch\ndef f(data):\n    for key, value in data.items():\n        if key == 'done':\n"
        "            use(torch.zeros(3))\n",
        "import torch\ndef f():\n    for use_complex in (False, True):\n        if use_complex:\n"
        "            probe = torch.arange(6)\n        else:\n            probe = torch.ones(6)\n"
        "        check(probe)\n",
        # exchanged in place between processes: through the torch module, an imported function, a
        # library's ``dist`` module
        "import torch\nimport torch.distributed as dist\ndef f(n):\n    for _ in range(n):\n"
        "        flag = torch.zeros(1)\n        dist.all_reduce(flag)\n        print(flag)\n",
        "import torch\nfrom torch.distributed import broadcast\ndef f(n):\n    for _ in range(n):\n"
        "        signal = torch.ones(1)\n        broadcast(signal, 0)\n        print(signal)\n",
        "import torch\nfrom composer.utils import dist\ndef f(n):\n    for _ in range(n):\n"
        "        done = torch.tensor([0])\n        dist.all_reduce(done, reduce_operation='MIN')\n"
        "        print(done)\n",
        # stored, or held by a dict written in place, through a helper out of sight that may hand it back
        "import torch\nfrom composer.utils import tensor_to_device\ndef f(keys, step):\n    totals = {}\n"
        "    for key in keys:\n        totals[key] = tensor_to_device(torch.zeros(1))\n    return totals\n",
        "import torch\ndef f(batches, out, state):\n    for b in batches:\n"
        "        out.append(state.device.tensor_to_device(torch.zeros(3)))\n",
        "import torch\nfrom pkg import devices\nclass T:\n    def _step(self, b, totals):\n"
        "        totals['loss'] += b.sum()\n    def run(self, batches):\n        for b in batches:\n"
        "            totals = {'loss': devices.to_device(torch.zeros(1))}\n            self._step(b, totals)\n",
    )
    invalid = (
        Invalid(  # an arm taken on every pass but the first
            "import torch\ndef f(xs, aux):\n    out = []\n    for i, x in enumerate(xs):\n"
            "        u = torch.ones(3) if i > 0 else aux\n        out.append(x * u)\n    return out\n",
            ((5, 13),),
        ),
        Invalid(  # an index of a store reads its names: the store binds none of them
            "import torch\ndef f(logits, n, mask, v):\n    while mask.sum() > 0:\n"
            "        logits[torch.arange(n), 0] = v\n        logits[torch.arange(n)] += v\n"
            "        idx = torch.arange(0, n)\n        logits[idx, n] = v\n        mask = mask - 1\n",
            ((4, 16), (5, 16), (6, 15)),
        ),
        Invalid(  # a counter a ``continue`` may leave unstepped, or one the body sets back
            "import torch\ndef f(model, n):\n    k = 0\n    while k < n:\n        if k == 0:\n"
            "            y = torch.ones(3)\n        if model(y):\n            continue\n        k += 1\n"
            "def g(model, n):\n    k = 0\n    while k < n:\n        if k == 0:\n"
            "            y = torch.ones(3)\n        k += 1\n        if model(y):\n            k = 0\n",
            ((6, 17), (14, 17)),
        ),
        Invalid(  # ``exists(acc)`` is true on every pass after the first: the build is not lazy
            "import torch\ndef exists(v):\n    return v is not None\ndef f(chunks, n):\n    acc = None\n"
            "    for c in chunks:\n        if exists(acc):\n            acc = torch.zeros(n)\n"
            "        acc = c if acc is None else acc + c\n    return acc\n",
            ((8, 19),),
        ),
        Invalid(  # a call given more than the tensor computes from it
            "import torch\ndef f(batches, model):\n    for b in batches:\n"
            "        _, emb = model.prepare(torch.tensor([]).long(), b)\n        print(emb)\n",
            ((4, 32),),
        ),
        Invalid(  # a helper's result only read, a collective of an unknown object, a dict handed away
            "import torch\nfrom pkg import to_device\ndef f(batches, dist, step):\n    for b in batches:\n"
            "        zero = to_device(torch.zeros(1))\n        print(zero + b)\n"
            "        flag = torch.ones(1)\n        dist.all_reduce(flag)\n"
            "        totals = {'loss': to_device(torch.zeros(1))}\n        step(b, totals)\n",
            ((5, 26), (7, 16), (9, 37)),
        ),
        Invalid(  # a repeated list kept in a local, rebuilt on every pass
            "import torch\ndef f(blocks, x, n):\n    for b in blocks:\n"
            "        outs = [torch.tensor(0.0)] * n\n        outs[0] = outs[0] + b(x)\n        x = outs[0]\n"
            "    return x\n",
            ((4, 17),),
        ),
        Invalid(  # the object's device does not change while its methods run in the loop
            "import torch\nclass Loss:\n    def __call__(self, preds, w, h):\n        total = 0\n"
            "        for p in preds:\n"
            "            total = total + self.bce(p * torch.tensor([w, h], device=self.device))\n"
            "        return total\n",
            ((6, 42),),
        ),
        Invalid(  # an in-place setter, a stored reading, a pass that is not the last, a single comparison
            "import torch\ndef f(images, n, out, m):\n    for image in images:\n"
            "        image.set_(torch.zeros(n))\n"
            "        prior = Normal(torch.tensor(0.0), 1.0)\n        out.append(prior.sample())\n"
            "    for i in range(m):\n        if i < m - 2:\n            pass\n        else:\n"
            "            out.append(torch.zeros(3).sum() * m)\n    for kind, w in zip(images, out):\n"
            "        if kind == 'a':\n            out.append(torch.ones(2).sum() * w)\n",
            ((4, 20), (5, 24), (11, 24), (14, 24)),
        ),
        Invalid("import torch\nfor v in volumes:\n    scale = torch.tensor([0.5, 2.0])\n", ((3, 13),)),
        Invalid(  # one name tested, not a dispatch over names; and a zip of two collections
            "import torch\ndef f(tokens, pairs, n, out):\n    for tok in tokens:\n        if tok == '<pad>':\n"
            "            pad = torch.zeros(n)\n            out.append(float(pad.sum()))\n"
            "    for a, b in zip(pairs, tokens):\n        w = torch.ones(n)\n        out.append(float(w.sum()))\n",
            ((5, 19), (8, 13)),
        ),
        Invalid(  # set back to None on every pass, or tested but never bound there: built again each pass
            "import torch\ndef f(chunks, n, out):\n    acc = None\n    for c in chunks:\n        if acc is None:\n"
            "            acc = torch.zeros(n)\n        out.append(float((acc + c).sum()))\n        acc = None\n"
            "    for c in chunks:\n        if self.mask is None:\n            w = torch.ones(n)\n"
            "            out.append(float((w * c).sum()))\n",
            ((6, 19), (11, 17)),
        ),
        Invalid(  # read by torch functions, not filled: only a trailing underscore writes
            "import torch\ndef f(volumes, total):\n    for v in volumes:\n        w = torch.ones(3)\n"
            "        g = torch.nn.init.calculate_gain('relu')\n        total = total + (w * g).sum()\n"
            "    return total\n",
            ((4, 13),),
        ),
        Invalid(
            "import torch\nimport torch.nn.functional as F\nwhile busy():\n    g = F.affine_grid(theta, size)\n",
            ((4, 9),),
        ),
        Invalid(
            "import torch\nfor v in volumes:\n    out = torch.empty((n, c), dtype=torch.float32)\n", ((3, 11),)
        ),
        Invalid(
            "import torch\ndef f(batch, n, d):\n    keep = []\n    for scores in batch:\n"
            "        labels = torch.arange(n, device=d)\n        labels = labels.view(1, -1).expand_as(scores)\n"
            "        inds = torch.where(scores > 0.5)[0]\n        labels = labels.reshape(-1)[inds]\n"
            "        keep.append(labels)\n    return keep\n",
            ((5, 18),),
        ),
        Invalid(
            "import torch\nimport numpy as np\nfrom numpy.typing import NDArray\n"
            "def f(a: NDArray[np.float32], n):\n    for _ in range(n):\n        t = torch.tensor(a)\n",
            ((6, 13),),
        ),
        Invalid(
            "import torch\nfor kps in points:\n    if kps is None:\n        continue\n"
            "    eye = torch.eye(2).expand(len(kps), -1, -1)\n",
            ((5, 11),),
        ),
        Invalid(
            "import torch\ndef f(keys, out):\n    for i in keys:\n        out[:, i] = torch.zeros(3)\n", ((4, 21),)
        ),
        Invalid(
            "import torch\ndef f(keys, out: torch.Tensor):\n    for i in keys:\n        t = torch.zeros(3)\n"
            "        out[i] = t\n",
            ((4, 13),),
        ),
        Invalid(
            "import torch\ndef _put(out, i, v):\n    out[:, i] = v\ndef f(keys, out):\n    for i in keys:\n"
            "        _put(out, i, torch.zeros(3))\n",
            ((6, 22),),
        ),
        Invalid(  # keys of a plain iterable may repeat; an object only read is not kept
            "import torch\ndef f(names, data, w):\n    for name in names:\n        if name == 'done':\n"
            "            use(torch.zeros(3))\n    for key, value in data.items():\n        if key != 'done':\n"
            "            use(Record(torch.ones(3)))\n        prior = Normal(torch.tensor(0.0), value)\n"
            "        w.append(sample(key, prior))\n",
            ((5, 17), (8, 24), (9, 24)),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._bound: dict[int, frozenset[str]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        callee = self.ctx.qualname(node.func)
        if callee not in CONSTRUCTORS:
            return
        loop = self._enclosing_loop()
        if loop is None:
            return
        used = [n for arg in node.args for n in walk(arg.value, into_functions=False)]
        if any(isinstance(n, cst.Call) for n in used):
            return
        # ``device=self.device``: where an object puts its tensors does not change as a loop calls it
        placement = {
            id(n.value)
            for n in used
            if isinstance(n, cst.Attribute)
            and n.attr.value in _PLACEMENT
            and isinstance(n.value, cst.Name)
            and n.value.value == "self"
        }
        names = {n.value for n in used if isinstance(n, cst.Name) and id(n) not in placement}
        changed = writes.of(self.ctx, loop.body)
        if names & (self._bound_in(loop) | changed.mutated | changed.written):
            return
        if runs_at_most_once(self.ctx.ancestors, loop) or self._is_fresh_buffer(changed, loop.body):
            return
        if self._shares_existing(node, callee):
            return
        self.report(node, callee=callee)

    def _is_fresh_buffer(self, changed: writes.Writes, loop_body: cst.BaseSuite) -> bool:
        """Whether the new tensor is meant to be new each time: filled in place on the spot
        (``torch.empty(1).uniform_()``), kept (``out.append(torch.zeros(n))``, ``table[k] = ...``,
        ``table.update({k: ...})``, ``store.set(k, ...)``, ``setattr(self, name, ...)``, ``items += [...]``, a
        function of this file that keeps its parameter, or an object built on it that is kept), wrapped
        into a learnable parameter (``nn.Parameter(torch.empty(n))``),
        or bound to a name whose value the loop body writes in place, keeps or returns (directly, through
        a view, or inside a tuple). A store into a tensor (``out[:, i] = ...``) copies the values: the
        new tensor is not kept."""
        ancestors = self.ctx.ancestors
        value: cst.CSTNode = ancestors[-1]
        in_object = False  # held by an object built on it: only a direct store of the object keeps it
        handed_back = False  # perhaps the tensor itself, returned by a helper out of sight
        for index in range(len(ancestors) - 2, -1, -1):
            parent = ancestors[index]
            if parent is value:  # the call an argument passed through
                continue
            if isinstance(parent, cst.Attribute) and parent.value is value:
                value = parent
            elif isinstance(parent, cst.Call) and parent.func is value:
                method = method_name(parent) or ""
                if method.endswith("_") and not method.endswith("__"):
                    return True
                value = parent
            elif isinstance(parent, cst.Subscript) and parent.value is value:
                value = parent
            elif isinstance(parent, _HOLDERS):
                value = parent
            elif _replicates(parent, value):  # ``[torch.empty([])] * n``: n references to one tensor
                value, in_object = parent, True  # kept only where the list itself is stored
            elif isinstance(parent, cst.Arg):
                outer = ancestors[index - 1]
                if not isinstance(outer, cst.Call):
                    return False
                if outer.args[0] is parent and writes.fills_first_argument(self.ctx, outer):
                    return True  # ``nn.init.normal_(torch.zeros(d, 1))``: filled in place on the spot
                effect = self._effect_on(outer, parent)
                if effect is None and types.builds_object(self.ctx, outer):
                    effect, in_object = writes.RETURNED, True  # the new object holds its argument
                elif effect is None and not in_object and self._unseen_helper(outer, parent):
                    effect, in_object, handed_back = writes.RETURNED, True, True
                if effect != writes.RETURNED:
                    return effect == writes.KEPT
                value = outer  # a function of this file that returns what it is given, or an object built on it
            elif isinstance(parent, cst.Return | cst.Yield):
                return True
            elif isinstance(parent, cst.AugAssign):
                return parent.value is value and isinstance(value, _DISPLAYS)  # ``items += [torch.zeros(n)]``
            elif isinstance(parent, cst.Assign | cst.AnnAssign):
                if in_object and any(isinstance(t, cst.Name) for t in _targets(parent)):
                    # ``prior = Normal(torch.tensor(0.0), s)``, then read: the object is a reader; a name
                    # the loop then stores (``block = [Coupling(mask)]``, ``layers += block``) keeps it,
                    # and so does one holding a helper's result that the loop writes in place
                    # (``totals = {"loss": to_device(...)}`` then ``totals["loss"] += l``) or returns
                    position = changed.position(parent)
                    return any(
                        _stored_directly(t.value, loop_body)
                        or (
                            handed_back
                            and position is not None
                            and changed.uses(t.value, position, _HELD_BY_DESIGN, again=True)
                        )
                        for t in _targets(parent)
                        if isinstance(t, cst.Name)
                    )
                return self._binding_keeps(parent, changed)
            else:
                return False
        return False

    def _effect_on(self, call: cst.Call, arg: cst.Arg) -> str | None:
        """``KEPT`` when ``call`` keeps the argument ``arg`` (a container method, ``setattr``, a learnable
        parameter's wrapper, a function of this file that keeps its parameter), ``RETURNED`` when a
        function of this file returns it, else None."""
        if writes.keeps_argument(method_name(call), arg) or self.ctx.qualname(call.func) in _PARAMETERS:
            return writes.KEPT
        func = call.func
        if isinstance(func, cst.Name) and func.value == "setattr" and self.ctx.qualname(func) is None:
            return writes.KEPT if len(call.args) == 3 and call.args[2] is arg else None
        function = self.ctx.enclosing_function()
        local = {n.name.value: n for n in function.body.body if isinstance(n, cst.FunctionDef)} if function else {}
        effects = writes.callee_effects(self.ctx, call, local)
        effect = dict((id(a), e) for a, e in effects).get(id(arg)) if effects is not None else None
        return effect if effect in (writes.KEPT, writes.RETURNED) else None

    def _unseen_helper(self, call: cst.Call, arg: cst.Arg) -> bool:
        """A function or method the file cannot see into, outside torch and NumPy, given the tensor
        alone (``tensor_to_device(t)``, ``state.device.tensor_to_device(t)``): it may return the very
        tensor it is given, so what is done with its result is done with the tensor. A call given more
        (``model.prepare(t, ids)``) computes something from them."""
        callee = self.ctx.qualname(call.func) or ""
        return (
            len(call.args) == 1
            and call.args[0] is arg
            and not callee.startswith(("torch.", "numpy."))
            and not writes.reads_only(self.ctx, call)
        )

    def _binding_keeps(self, statement: cst.Assign | cst.AnnAssign, changed: writes.Writes) -> bool:
        """Stored as an attribute or a container's item (not copied into a tensor), or bound to a name
        whose value the loop body writes in place, keeps or returns."""
        if isinstance(statement, cst.Assign):
            targets = [t.target for t in statement.targets]
        else:
            targets = [statement.target]
        position = changed.position(statement)
        for target in targets:
            if isinstance(target, cst.Name):
                if position is None or changed.uses(target.value, position, _FRESH_BY_DESIGN, again=True):
                    return True
            elif not self._copied_into(target):
                return True
        return False

    def _copied_into(self, target: cst.BaseExpression) -> bool:
        """A store into a tensor or an array (``out[:, i] = ...``) copies the values in."""
        ctx = self.ctx
        return isinstance(target, cst.Subscript) and writes.copies_values(target, lambda e: types.kind_of(ctx, e))

    def _shares_existing(self, node: cst.Call, callee: str) -> bool:
        """``torch.from_numpy(a)``/``torch.as_tensor(a)`` of a value known to be an array or a tensor
        allocates nothing: the result shares its memory."""
        if callee not in _SHARING_CONSTRUCTORS:
            return False
        args = positional(node)
        shared = types.kind_of(self.ctx, args[0].value) if args else None
        return len(node.args) == 1 and shared in (types.ARRAY, types.TENSOR)

    def _enclosing_loop(self) -> cst.For | cst.While | None:
        """The innermost loop whose body holds the visited call (within the same function)."""
        child = self.ctx.ancestors[-1]
        for node in reversed(self.ctx.ancestors[:-1]):
            if isinstance(node, cst.FunctionDef | cst.Lambda | cst.ClassDef):
                return None
            if isinstance(node, cst.For | cst.While) and child is node.body:
                return node
            child = node
        return None

    def _bound_in(self, loop: cst.For | cst.While) -> frozenset[str]:
        key = id(loop)
        if key not in self._bound:
            roots = [loop.body] + ([loop.target] if isinstance(loop, cst.For) else [])
            self._bound[key] = frozenset(name for root in roots for name in bound_names(root))
        return self._bound[key]


def _replicates(node: cst.CSTNode, display: cst.CSTNode) -> bool:
    """``[t] * n`` or ``n * [t]``: a list holding the display's items again, by reference."""
    return (
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, cst.Multiply)
        and isinstance(display, cst.List | cst.Tuple)
        and (node.left is display or node.right is display)
    )


def _stored_directly(name: str, body: cst.CSTNode) -> bool:
    """Whether ``body`` stores the value of ``name`` itself (not something computed from it): adds it
    to a container (``layers += block``, ``out.append(block)``, a setter) or binds it to an attribute
    or an item (``self.head = block``)."""
    for node in walk(body):
        if isinstance(node, cst.AugAssign) and isinstance(node.operator, cst.AddAssign):
            value = node.value
        elif isinstance(node, cst.Call):
            method = method_name(node)
            if any(
                isinstance(arg.value, cst.Name) and arg.value.value == name and writes.keeps_argument(method, arg)
                for arg in node.args
            ):
                return True
            continue
        elif isinstance(node, cst.Assign) and not all(isinstance(t.target, cst.Name) for t in node.targets):
            value = node.value
        else:
            continue
        if isinstance(value, cst.Name) and value.value == name:
            return True
    return False


def _targets(statement: cst.Assign | cst.AnnAssign) -> list[cst.BaseExpression]:
    return [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]


#: Attributes that say where and how an object keeps its tensors.
_PLACEMENT = frozenset({"device", "dtype"})
_HOLDERS = (cst.Element, cst.Tuple, cst.List, cst.Set, cst.DictElement, cst.Dict, cst.StarredElement, cst.IfExp)
#: Learnable parameters and buffers: each wraps its tensor without copying, so each needs its own.
_PARAMETERS = frozenset(
    {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer", "torch.nn.parameter.Buffer"}
)
_FRESH_BY_DESIGN = frozenset({writes.WRITTEN, writes.KEPT, writes.RETURNED})
#: What a loop does with an object holding the new tensor that keeps the tensor new by design.
_HELD_BY_DESIGN = frozenset({writes.WRITTEN, writes.RETURNED})
#: Displays whose elements an augmented assignment adds to a container.
_DISPLAYS = (cst.List, cst.Tuple, cst.Set, cst.Dict)
_SHARING_CONSTRUCTORS = frozenset({"torch.from_numpy", "torch.as_tensor", "torch.asarray"})
