"""TPL101: a full copy made "just in case" after a view or of an input."""

from __future__ import annotations

from enum import Enum

import libcst as cst

from torchperf_lint.fixes import UNSAFE, NodeEdit, PendingFix
from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit import ranks, types, writes
from torchperf_lint.toolkit.exemptions import test_files
from torchperf_lint.toolkit.functions import class_methods, parameters
from torchperf_lint.toolkit.matching import is_literal, method_name, root_name, self_attribute, source_of
from torchperf_lint.toolkit.traversal import walk
from torchperf_lint.vocabulary import TENSOR_MEMBERS

#: Methods that return a view of their receiver (or of a reshaped receiver) without copying.
VIEWS = frozenset(
    {
        "permute",
        "movedim",
        "moveaxis",
        "transpose",
        "swapaxes",
        "unsqueeze",
        "squeeze",
        "expand",
        "view",
        "t",
        "mT",
        "select",
        "narrow",
        "diagonal",
        "swapdims",
        "view_as",
        "expand_as",
        "unflatten",
    }
)
#: Views that keep a contiguous receiver contiguous: a ``.contiguous()`` after them copies only if what
#: they view was not contiguous already.
_KEEP_CONTIGUITY = frozenset({"view", "unsqueeze", "squeeze"})
_COPIES = frozenset({"contiguous", "clone"})
_TENSOR_METHODS = writes.VIEW_METHODS | writes.FRESH_METHODS


class Fate(Enum):
    """What becomes of a copy."""

    NEEDED = "written in place, kept, returned, handed out of sight, or needed contiguous"
    BOUND = "bound to names whose uses need none of that"
    READ = "read at once by an operation that makes its own result"
    OTHER = "none of these"


class DefensiveMaterialization(Rule):
    code = "TPL101"
    name = "defensive-materialization"
    hint = "Pass the view on; copy only where something writes in place."
    summary = "`.contiguous()` or `.clone()` of a view or an input, or a `.clone()` nothing needs"
    message = (
        "`{what}` copies the whole tensor though nothing writes to it; let the next operation read the original"
    )
    why = (
        "Most torch operations read strided views directly. A `.contiguous()` after `permute` or "
        "`expand`, or a `.clone()` of an input that is only read, is a full extra pass over the "
        "volume and a second allocation of its size. A copy is needed only when something writes "
        "in place to the result, which is why such cases are left alone."
    )
    example = "out = F.grid_sample(volume.permute(0, 4, 1, 2, 3).contiguous(), grid)"
    use_instead = "out = F.grid_sample(volume.permute(0, 4, 1, 2, 3), grid)"
    notes = (
        "Flagged: `.contiguous()`/`.clone()` chained directly on a view method (permute, movedim, transpose, "
        "select, narrow, diagonal, unsqueeze, squeeze, expand, view and friends, also in their function "
        "form, `torch.select(x, 0, i)`), applied to a parameter of the enclosing function (or to its "
        "`.detach()`, which shares its memory: `w.detach().clone()`), or "
        "applied to a name last bound to such a view or to a value sharing a parameter's memory (`v = "
        "x.permute(0, 2, 1)` then `v.contiguous()`, `for t in [q, k]: t.contiguous()`; not a parameter "
        "annotated with a type that holds no tensor, such as a `DataLoader`, whose batches are new), when "
        "nothing needs the copy. A `.clone()` of anything else is flagged when it protects nothing whatever it "
        "copies: read at once by an operation that makes its own result (`x.clone() - t`, `scale * "
        "self.h.clone()`, `torch.cat([w.clone(), v])`, an in-place update of another tensor that only reads it, "
        "`out.scatter_add_(-1, idx, c)` or `total[i] += p.clone()`, a function of the same file that only "
        "reads it), or of "
        "a tensor the function made itself (`y = a * 2`, a torch call, or a project function known to return a "
        "tensor, then `c = y.clone()`), which nothing else can see. The copy is followed through views and "
        "subscripts (`x.clone().reshape(-1, 2)`, `torch.diagonal(c)`, `c[0]`), conditional expressions (`x if "
        "inplace else x.clone()`), containers (`{'k': c}`, `(c, d)`, a comprehension's items or a dict "
        "comprehension's values), a function of the same file that returns it (a reshape helper) and the "
        "name it is bound to (plain or annotated, or each name of a tuple unpacking a comprehension of copies), "
        "from that binding on: a "
        "`return c` before `c = x.clone()` returns another value, and a rebinding to a new value (`c = c[idx]` "
        "with a tensor index, `c = c + 1`) ends the copy's. A name bound to a view of the copy (`d = "
        "c.diagonal()`, `a, b = c.unbind()`), a loop target over it (`for row in c`) or a container holding it "
        "(`kw = {'k': c}`) counts as the copy; each copy of `r, p = b.clone(), b.clone()` is judged by its "
        "own name. A store into a tensor or an array (`out[:, d] = plane[0]`: an "
        "index mixing a slice or `...` with other parts, or a target known to be a tensor or an array, "
        "including `self.values` that its class annotates `values: np.ndarray` or always makes with a torch "
        "or NumPy call) copies the values "
        "in, so it reads the copy and does not keep it. Exempt, because the copy is then needed: something "
        "writes it in place, directly or through a view (`y[...] = v`, `y.diagonal().zero_()`, "
        "`torch.diagonal(y).zero_()`, `y.view(-1)[0] = v`, `y.select(0, 1).mul_(v)`, `y += v`, "
        "`y.attr.fill_(0)`, `f(y, inplace=True)`, `out=y`); it is handed to code the file cannot see into "
        "(`helper(y)`, a function of another module, `obj.method(y)`, `f(**{'k': y})`), which may write it "
        "(torch functions, tensor methods and pure builtins only read, but a torch class such as "
        "`nn.Parameter`, and a sparse tensor's constructor, holds what it is given; a function of the same "
        "file, a nested one, or a plain method of the same class called on `self`, is read for what it "
        "does with that parameter or name); it goes into a "
        "control-flow operator of the compiler (`torch.while_loop`, `torch.cond`), whose operands must not "
        "alias; what was copied, or the value it views, is written in place after the copy (`before = "
        "x.clone()` then `x.add_(1)`; `v = buf[0]`, `c = v.clone()`, then `buf.zero_()`; `g[..., 0] = 2 * "
        "g[..., 0].clone()` and `t /= t[:, 2].clone() + eps`, whose store comes after the read; "
        "`self.queue.clone()` then `self._enqueue(k)`, a method of the class that writes `self.queue`, also "
        "through another method of the class it calls), so the "
        "copy keeps the old values an operation "
        "may have saved; it is returned (alone, as a subscript, or in a tuple), kept (`items.append(y)`, "
        "`d.update({k: y})`, `setattr(obj, name, y)`) or stored as an attribute or a container's item (`self.y "
        "= ...`, `cache[k] = y`), so it must not alias the input; or, for `.contiguous()`, its result feeds an "
        "operation that needs contiguous memory (`.view(...)`, also of a slice of it or of a dtype conversion "
        "of it, which keeps its strides, `c.float().view(...)`, `torch.view_as_complex`, "
        "a compiled extension "
        "under `torch.ops` or a backend's `ops` namespace (`torch.tpu.ops`), "
        "a `torch.distributed` collective, a nested tensor's `.values()`, `.data_ptr()`, `__dlpack__()` "
        "and `torch.utils.dlpack.to_dlpack`, which hand the memory to code that walks it by its own layout "
        "(a C kernel through `ctypes`, JAX through DLPack; also inside a helper of the file), or "
        "`.clone()`, "
        "which keeps the strides it is given) or makes the same copy itself (softmax and log-softmax, a "
        "convolution's weight, the real-to-complex FFTs `torch.fft.rfft`/`rfft2`/`rfftn`, `F.fold` and "
        "`F.unfold`, `torch.searchsorted` and `torch.bucketize`: profiled, their CPU kernels copy such an "
        "input first; a `.reshape` or `.flatten`, chained or on the name rebound in the next statement, that "
        "merges axes of a permuted view, which cannot be a view and copies: the call's arguments must show "
        "the merge, as fewer axes than the permutation names or a size spelt as a product of sizes, "
        "`reshape(B * N, T, 1)`, `permute(0, 3, 4, 1, 2)` then `reshape(b, c, h, "
        "w)`, or a flattened span; the functional forms count too, `torch.transpose(x, -1, 0)`), so dropping it "
        "saves nothing, or is a norm, `F.normalize` or a cross "
        "product along an axis given as `dim=` (profiled along a permuted axis, they ran 1.6 to 10 times "
        "slower on the view than the copy and the operation together), so the copy can pay for itself; the "
        "rule cannot see which axis the view moved, so any value of `dim=` counts for these three. Other "
        "operations that take `dim=` are no reason for the copy: `torch.gather` of an expanded tensor, a sum "
        "or a cumulative sum ran as fast or faster on the view than the copy alone, and others (an argmax, a "
        "sort) won or lost by the shape; suppress a measured case. "
        "Also left alone, beyond the views and parameters "
        "above: a clone of module state bound to a name (`w = self.weight.clone()`) in a function that calls a "
        "method of `self` or of its attributes (a submodule's forward), hands `self` to code out of sight, "
        "writes anything in place or stores into that attribute, any of which may change the state while `w` "
        "is read (where the function does none of these, the clone is flagged: `w1 = "
        "self.conv[0].weight.data.clone()` then only read); a `.clone()` of a value not known to be a tensor "
        "(`cfg = get_cfg()`, `cfg.clone()`) or known not to be one: an instance of a class from outside "
        "torch and NumPy (`TensorDict(obs).clone()`), or a copy whose next member is one torch tensors do "
        "not have (`state.clone().to_dict()`, also through the name it is bound to); and a `.contiguous()` "
        "of a tensor the function made (an "
        "operation, a torch call or a project function known to return a tensor, directly or through a name, "
        "also a parameter rebound to one, `feats = torch.cat(feats)`, or a dtype conversion of one, "
        "`inds = (t * m).long()`), alone or through views that keep contiguity "
        "(`torch.cat(parts).view(b, -1).contiguous()`, "
        "`.unsqueeze`, `.squeeze`), or of a name bound to a `.contiguous()` result, which is contiguous "
        "already and copies nothing. Not exempt, because the "
        "rule cannot tell: a `.contiguous()` kept for a measured layout benefit of some other operation, or of "
        "these without `dim=`, or a clone kept for autograd's sake; suppress those with `# noqa: TPL101` and a "
        "comment. Files that never import torch are skipped."
    ) + test_files(
        "tests copy inputs to check afterwards that the kernel left them untouched, "
        "and nothing in them is measured"
    )
    fix = UNSAFE
    fix_safety = (
        "A `.contiguous()` chained on a view is removed (unsafe: the result keeps the view's strides, "
        "which changes the memory layout the next operation sees and, for a view that was already "
        "contiguous, nothing else). `.clone()` has no fix: removing it makes the result alias the input."
    )
    valid = (
        # a second ``.contiguous()`` of what a first one gave, through a name
        "import torch\ndef f(self, pair, q):\n    bias = self.linear_bias(pair).permute(0, 3, 1, 2).contiguous()\n"
        "    flat = bias.view(-1)\n    return torch.baddbmm(bias.contiguous(), q, q) + flat.sum()\n",
        # the clone of a parameter's detached view, written in place: the copy is needed
        "import torch\ndef f(w):\n    c = w.detach().clone()\n    c[0] = 1\n    return c\n"
        "def g(w):\n    c = w.detach().clone()\n    c.mul_(2)\n    return c\n",
        # functional views whose merge copies anyway: transpose, permute, movedim
        "import torch\ndef f(a, b, h):\n    k = torch.cat([a, b], dim=-1)\n"
        "    x = torch.matmul(h, torch.transpose(k, -1, 0).contiguous().flatten(1))\n"
        "    y = torch.matmul(h, torch.permute(k, (2, 1, 0)).contiguous().flatten(1))\n"
        "    z = torch.matmul(h, torch.movedim(k, 0, 2).contiguous().reshape(4, -1))\n    return x, y, z\n",
        # the source is written later through its own side of a ``zip``
        "import torch\ndef f(dst, src):\n    w = src.w.clone() / 2\n"
        "    for (_, a), (_, b) in zip(dst.named_parameters(), src.named_parameters()):\n"
        "        b.data.copy_(a.data)\n    return w\n",
        "import torch\ndef grad(grad_output, table):\n"
        "    return torch.tpu.ops.sparse_dense_matmul_grad(grad_output.contiguous(), table)\n",
        # unpacked copies, each judged by its own name: the written one is needed
        "import torch\ndef cg(b, n):\n    r, p = b.clone(), b.clone()\n    for _ in range(n):\n        r -= p\n"
        "        p.mul_(2)\n    return r\n",
        # a store into state of unknown kind may keep the object itself
        "import torch\nclass B:\n    def add(self, log_prob):\n"
        "        self.log_probs[self.pos] = log_prob.clone().cpu().numpy()\n",
        # a selected slice copied and then written, returned or given to a view needing it contiguous
        "import torch\ndef first(X, dim):\n    a = X.select(dim, 0).clone()\n    a.mul_(2)\n"
        "    b = torch.narrow(X, dim, 0, 2).contiguous().view(-1)\n    return a, b, X.diagonal().clone()\n",
        # the source changes in place after the copy, which keeps its old values for a later update
        "import torch\ndef f(x, out):\n    y = x * 2\n    c = y.clone()\n    y.mul_(2)\n    out.add_(c)\n"
        "    return out, y\n",
        "import torch\ndef f(x):\n    out = x.permute(1, 0).clone()\n    out.add_(1)\n    return out\n",
        "import torch\ndef f(x):\n    y = torch.cat([x, x]).contiguous()\n    return y\n",
        "import torch\ndef f(x):\n    buf = x.clone()\n    buf[0] = 0\n    return buf\n",
        "def f(x):\n    return x.permute(1, 0).contiguous()\n",
        "import torch\ndef view_copy(self, dtype):\n    return self.clone().view(dtype)\n",
        "import torch\ndef f(t):\n    if min(t.stride()) > 1:\n        return t.contiguous()\n    return t\n",
        "import torch\ndef f(boxes, inplace):\n    out = boxes if inplace else boxes.clone()\n"
        "    out[..., 2:] -= out[..., :2]\n",
        "import torch\ndef f(self, keep, inplace):\n    obj = self if inplace else self.clone()\n"
        "    obj._valid &= keep\n    obj._data.masked_fill_(keep, 0)\n",
        "import torch\ndef f(points):\n    points = points.clone().reshape(-1, 2)\n    points[:, 0] = 0\n",
        "import torch\ndef f(bias):\n    bias = bias.clone()\n    bias[4:8].zero_()\n",
        "import torch\ndef f(boxes):\n    b: torch.Tensor = boxes.clone()\n    convert(b, inplace=True)\n",
        "import torch\ndef f(x, b):\n    x = x.permute(0, 2, 1).contiguous()\n    return g(x.view(b, -1))\n",
        "import torch\ndef f(x):\n    return torch.view_as_complex(x.transpose(0, 1).contiguous())\n",
        "import torch\ndef f(self, x):\n    self.data = x.transpose(0, 1).contiguous()\n",
        "import torch\ndef f(old, new):\n    return new.clone(), step(new)\n",
        "import torch\ndef f(t):\n    b = t.permute(2, 0, 1).contiguous().unsqueeze(0)\n    return b\n",
        "import torch\ndef f(t):\n    rel = t.permute(1, 2, 0).contiguous().unsqueeze(0)\n"
        "    rel *= 8\n    return g(rel)\n",
        "import torch\ndef f(boxes):\n    applied = boxes.clone().transform_(m)\n",
        "import torch\ndef f(tensor, low, high):\n    tensor = tensor.clone()\n\n    def norm_ip(img, lo, hi):\n"
        "        img.clamp_(min=lo, max=hi)\n\n    norm_ip(tensor, low, high)\n    return tensor\n",
        "import torch\ndef f(self, mask):\n    self.register_buffer('mask', mask.clone())\n",
        "import torch\ndef f(x):\n    return torch.ops.mylib.blur(x.permute(0, 2, 3, 1).contiguous())\n",
        "import torch\ndef f(self, boxes):\n    boxes = boxes.clone()\n"
        "    return super().transform(boxes=boxes)\n",
        "import torch\ndef f(x):\n    x = x.permute(0, 2, 1).contiguous()\n    return x.flatten(1)\n",
        "import torch\ndef f(x):\n    x = x.permute(1, 2, 0)\n    return x.contiguous().numpy()\n",
        "import torch\ndef f(outputs):\n    outputs = [o.permute(0, 3, 1, 2).contiguous() for o in outputs]\n"
        "    return outputs\n",
        "import torch\ndef f(x):\n    c = x.clone()\n    c.diagonal().zero_()\n    return c.sum()\n",
        "import torch\ndef f(x):\n    c = x.clone()\n    torch.diagonal(c).zero_()\n    return c.sum()\n",
        "import torch\ndef f(x, v):\n    c = x.clone()\n    c.view(-1)[0] = v\n    return c.sum()\n",
        "import torch\ndef f(x, v):\n    c = x.clone()\n    c.select(0, 1).mul_(v)\n    return c.sum()\n",
        "import torch\ndef f(x):\n    c = x.clone()\n    d = c.narrow(0, 0, 2).unsqueeze(0)\n    d.fill_(1)\n"
        "    return c.sum()\n",
        "import torch\ndef f(x):\n    c = x.clone()\n    for row in c:\n        row.zero_()\n    return c.sum()\n",
        "import torch\ndef f(q, e):\n    proj = q.unflatten(-1, (3, e)).transpose(0, -2).contiguous()\n"
        "    return proj[0], proj[1], proj[2]\n",
        "import torch\ndef f(module, q, seqused_k):\n"
        "    kwargs = {'seqused_k': seqused_k.contiguous() if seqused_k is not None else None}\n"
        "    return module.run(q, **kwargs)\n",
        "import torch\ndef f(values, launch):\n    values = values.transpose(-3, -2).contiguous()\n"
        "    dims = {values: (0, None)}\n    launch(dims)\n",
        "import torch\ndef f(first, budget, cond, body):\n    state = (first.clone(), budget.clone())\n"
        "    return torch.while_loop(cond, body, state)\n",
        "import torch\ndef f(sim):\n    return torch.softmax(sim.transpose(-1, -2).contiguous(), -1)\n",
        "import torch\nimport torch.nn.functional as F\ndef f(x, k, c):\n"
        "    k_h = k.view(1, 1, 1, 7).expand(c, 1, 1, 7).contiguous()\n    return F.conv2d(x, k_h, groups=c)\n",
        "import torch\ndef _fill(a):\n    a.zero_()\ndef f(x):\n    c = x.clone()\n    _fill(c)\n"
        "    return c.sum()\n",
        "import torch\ndef f(x):\n    c = x.clone()\n    def step():\n        c.add_(1)\n    step()\n"
        "    return c.sum()\n",
        "import torch\ndef f(x):\n    before = x.clone()\n    x.add_(1)\n    return (x - before).abs().max()\n",
        "import torch\ndef f(x, k):\n"
        "    return torch.fft.rfftn(k.expand(-1, 3, -1, -1).contiguous(), dim=(-2, -1))\n",
        "import torch\ndef f(g):\n    a = g[:, :, 0].permute(0, 2, 3, 1).contiguous()\n"
        "    b = g[:, :, 1].permute(0, 2, 3, 1).contiguous()\n    return torch.linalg.cross(a, b, dim=-1)\n",
        "import torch\nimport torch.nn.functional as F\ndef f(x):\n"
        "    return F.normalize(x.permute(0, 2, 3, 1).contiguous(), dim=-1)\n",
        "import torch\ndef f(x, y):\n"
        "    return x.transpose(1, 2).contiguous().norm(dim=-1), x.cross(y.mT.contiguous())\n",
        "import torch\ndef f(inp):\n    x = inp * 2\n    y = x.clone()\n    x.add_(1)\n    return x * y\n",
        "import torch\ndef _bump(t):\n    t.add_(1)\ndef f(inp):\n    x = inp * 2\n    y = x.clone()\n"
        "    _bump(x)\n    return x - y\n",
        "import torch\ndef f(p):\n    cfg = get_cfg()\n    c = cfg.clone()\n    c.merge_from_file(p)\n",
        "import torch\nfrom tensordict import TensorDict\ndef f(obs, weights, spec):\n"
        "    a = TensorDict(obs).clone().to_dict()\n    b = weights['extra'].clone().flatten_keys('.')\n"
        "    c = spec.expand(4).clone()\n    d = c.to_dict()\n    return a, b, d\n",
        "import torch\ndef f(self, t):\n    c = self.weight.clone()\n    c -= t\n    return c.sum()\n",
        "import torch\ndef _shift(a, b):\n    a -= b\n    return a\ndef f(self, t):\n"
        "    return _shift(self.weight.clone(), t).sum()\n",
        "import torch\ndef f(self):\n    w = self.weight.clone()\n    self.step()\n    return self.weight - w\n",
        "import torch\ndef f(grid, w):\n    grid[..., 0] = (2.0 * grid[..., 0].clone() + 1.0) / w\n"
        "    return grid\n",
        # module state a method of the class writes after the copy: inline in a call, bound, in place
        "import torch\nclass Moco(torch.nn.Module):\n    def _enqueue(self, k):\n"
        "        self.queue[:, :k.shape[0]] = k.T\n    def loss(self, q, k):\n"
        "        neg = torch.einsum('nc,ck->nk', [q, self.queue.clone().detach()])\n        self._enqueue(k)\n"
        "        return neg\n",
        "import torch\nclass Bank(torch.nn.Module):\n    def _roll(self):\n"
        "        self.bank.copy_(torch.roll(self.bank, 1, 0))\n    def loss(self, q):\n"
        "        old = self.bank.clone()\n        self._roll()\n        return q @ old\n",
        "import torch\nclass Bank(torch.nn.Module):\n    def _decay(self):\n        self.bank *= 0.9\n"
        "    def loss(self, q):\n        out = q @ self.bank.clone().T\n        self._decay()\n"
        "        return out\n",
        # a view of a dtype conversion of the copy: under an if, through .to, through type_as
        "import torch\ndef rope(x, shape, interleaved):\n    if not interleaved:\n"
        "        x = x.view(*shape[:-1], 2, -1).transpose(-1, -2).contiguous()\n"
        "    x = torch.view_as_complex(x.float().view(*shape[:-1], -1, 2))\n    y = x * 2\n"
        "    if not interleaved:\n        y = y + 1\n    return y\n"
        "def g(x, ref):\n    a = x.permute(1, 0).contiguous()\n    b = x.transpose(0, 1).contiguous()\n"
        "    return a.to(torch.float32).view(-1), b.type_as(ref).view(-1)\n",
        # a reshape whose sizes show a merge as a product: chained, on the next statement, as a tuple
        "import torch\ndef f(mask, B, N, T):\n    m = mask.permute(0, 2, 1).contiguous().reshape(B * N, T, 1)\n"
        "    x = mask.permute(0, 2, 1).contiguous()\n    x = x.reshape((B * N, T, 1))\n"
        "    y = mask.transpose(1, 2).contiguous().reshape(mask.shape[0] * N, -1)\n    return (m + x + y).sum()\n",
        # a dtype conversion of a tensor the function made: through a name, chained, through .to
        "import torch\ndef f(t, k, mask, targets):\n    inds = torch.topk(t, k)[1] * mask + (mask - 1)\n"
        "    inds = inds.long()\n    inds = inds.view(-1).contiguous()\n    targets[inds] = 1\n"
        "    a = (t * 2).float().view(-1).contiguous()\n    b = torch.cat([t, t]).to(torch.int64).contiguous()\n"
        "    return targets, a, b\n",
        # a parameter rebound to a tensor the function made, then stored into another: no input copied
        "import torch\ndef merge(feats: list[torch.Tensor], d, mask):\n    feats = torch.cat(feats, dim=0)\n"
        "    final = torch.zeros(4, d)\n    final[mask] = feats.contiguous().reshape(-1, d)\n    return final\n",
        # the write made by a method the called method calls in turn
        "import torch\nclass Albef(torch.nn.Module):\n    def _enqueue(self, idx):\n"
        "        self.idx_queue[:, :idx.shape[0]] = idx.T\n    def _similarity(self, q, idx):\n"
        "        self._enqueue(idx)\n        return q * 2\n    def forward(self, q, idx):\n"
        "        both = torch.cat([idx.t(), self.idx_queue.clone()], dim=1)\n"
        "        return both, self._similarity(q, idx)\n",
        # a contiguous copy exported through DLPack: inline, bound, the capsule method
        "import torch\nimport torch.utils.dlpack as torch_dlpack\nimport jax.dlpack as jax_dlpack\n"
        "def f(tensor):\n    return jax_dlpack.from_dlpack(torch_dlpack.to_dlpack(tensor.contiguous()))\n",
        "import torch\nfrom torch.utils.dlpack import to_dlpack\ndef f(tensor, other):\n"
        "    t = tensor.contiguous()\n    return other.from_dlpack(to_dlpack(t))\n",
        "import torch\ndef f(tensor, other):\n    return other.from_dlpack(tensor.contiguous().__dlpack__())\n",
        # a contiguous copy whose memory goes to a C kernel by pointer: directly, bound, through a helper
        "import ctypes as ct\nimport torch\ndef f(x, lib):\n    lib.run(ct.c_void_p(x.contiguous().data_ptr()))\n",
        "import torch\ndef f(x, lib):\n    y = x.transpose(0, 1).contiguous()\n    lib.run(y.data_ptr())\n",
        "import ctypes as ct\nimport torch\ndef get_ptr(a):\n    return ct.c_void_p(a.data_ptr())\n"
        "def f(b, lib):\n    if not b.is_contiguous():\n        b = b.contiguous()\n"
        "    lib.igemm(get_ptr(b), ct.c_int32(b.stride()[1]))\n",
        # a method of the same class called on ``self`` that writes its parameter, or hands it on
        "import torch\nclass W:\n    def f(self, x):\n        c = x.clone()\n        self._fill(c)\n"
        "        return c.sum()\n    def _fill(self, t):\n        t.zero_()\n",
        "import torch\nclass W:\n    def f(self, x):\n        c = x.clone()\n        self._run(c, 1)\n"
        "        return c.sum()\n    def _run(self, t, k):\n        return self.model(t) * k\n",
        "import torch\nclass W(Base):\n    def f(self, x):\n        c = x.clone()\n        self.inherited(c)\n"
        "        return c.sum()\n",
        # an augmented assignment writes its target after reading the copy, as a store does
        "import torch\ndef f(t, b, eps):\n    t /= t[:, 2, 2].reshape(b, 1, 1).clone() + eps\n    return t\n",
        "import torch\ndef f(t, eps):\n    t[:, 0] /= t[:, 2].clone() + eps\n    return t\n",
        "import torch\nclass M:\n    def step(self, lr):\n        self.w[:, 0] -= self.w[:, 1].clone() * lr\n",
        "import torch\ndef f(x):\n    for row in x.clone():\n        row.zero_()\n",
        "import torch\ndef _flat(a):\n    return a.reshape(-1)\ndef f(x):\n    c = x.clone()\n"
        "    _flat(c).zero_()\n    return c.sum()\n",
        "import torch\ndef f(volume, cache):\n    for d in range(volume.shape[1]):\n"
        "        plane = volume[:, d].unsqueeze(0).contiguous()\n        cache[d] = plane\n",
        "import torch\ndef f(self, w):\n    p = torch.nn.Parameter(w.detach().clone())\n"
        "    self.register_parameter('w', p)\n",
        "import torch\ndef f(i, v, n):\n    return torch.sparse_coo_tensor(i.clone(), v, (n, n))\n",
        "import torch\ndef _keep(cache, d, plane):\n    cache[d] = plane\ndef f(volume, cache):\n"
        "    for d in range(4):\n        _keep(cache, d, volume[:, d].unsqueeze(0).contiguous())\n",
        # a view that keeps contiguity, of a tensor the function made: nothing to copy
        "import torch\ndef f(n, h):\n    mask = torch.ones(n, h)\n    return mask.view(-1).contiguous().eq(1)\n",
        "import torch\ndef f(parts, b, c):\n    x = torch.cat(parts)\n    y = x.view(b, -1, c).unsqueeze(0)\n"
        "    return y.contiguous().sum(1)\n",
        "import torch\ndef _joined(parts):\n    return torch.cat(parts)\ndef f(parts, b):\n"
        "    return _joined(parts).view(b, -1).contiguous().sum(1)\n",
        # the next operation makes a strided input contiguous itself
        "import torch.nn.functional as F\ndef f(x, size):\n"
        "    return F.fold(x.transpose(1, 2).contiguous(), size, kernel_size=3)\n",
        "import torch.nn.functional as F\ndef f(x, size):\n    cols = x.transpose(1, 2).contiguous()\n"
        "    return F.fold(cols, size, kernel_size=3)\n",
        "import torch\ndef f(edges, x):\n    return torch.searchsorted(edges, x.t().contiguous(), right=True)\n",
        "import torch\ndef f(x, b):\n    return torch.bucketize(x.permute(1, 0).contiguous(), b)\n",
        "import torch\ndef f(x, y):\n    if not x.is_complex():\n"
        "        x = torch.view_as_complex(x.permute(0, 2, 3, 1).contiguous())\n    return (x - y).abs()\n",
        "import torch\nimport torch.distributed as dist\ndef f(x):\n    x = x.contiguous().clone()\n"
        "    y = x.t().contiguous()\n    dist.all_reduce(x)\n    dist.all_gather([y], y)\n    return x\n",
        "import torch\ndef f(nt, n):\n    return nt.transpose(1, 2).contiguous().values().view(n, -1)\n",
        # module state a call may change while the copy is read
        "import torch\nclass M(torch.nn.Module):\n    def refresh(self, x):\n        w = self.weight.clone()\n"
        "        self.step(x)\n        return self.weight - w\n    def run(self, x):\n"
        "        w = self.weight.data.clone()\n        y = self.body(x)\n        return y * w\n"
        "    def reset(self):\n        w = self.weight.clone()\n        v = self.weight\n        v.zero_()\n"
        "        return w.sum()\n    def swap(self, t):\n        w = self.conv.weight.clone()\n"
        "        self.conv.weight.data[0] = t\n        return w.sum()\n",
        # batches a data loader yields share no memory with the loader
        "import torch\nfrom torch.utils.data import DataLoader\ndef f(loader: DataLoader, out):\n"
        "    for images, labels in loader:\n        labels = labels.clone()\n"
        "        out.extend(labels.tolist())\n",
        # at module level, the copied slice is stored back into what it copies
        "import torch\nfor p in range(3):\n    z[p, ...] = x + z[p, ...].clone() - y[p, ...]\n",
        # a slice of the copy viewed with `.view`, which needs the copy's strides: through the name, in a
        # helper of the same file, chained
        "import torch\ndef f(pred, k):\n    reg = pred.permute(0, 2, 3, 1).contiguous()\n"
        "    return reg[:, :, :, 0:k].view(-1, k) + reg[:, :, :, k:].view(-1, k)\n",
        "import torch\ndef _split(a, k):\n    return a[..., :k].view(-1, k).sum()\ndef f(pred, k):\n"
        "    return _split(pred.permute(0, 2, 3, 1).contiguous(), k)\n",
        "import torch\ndef f(pred, k):\n"
        "    return pred.permute(0, 2, 3, 1).contiguous()[..., :k].view(-1, k).sum()\n",
        # a copy kept by a list's in-place extension; one of the tensor the update then writes
        "import torch\ndef f(items, x):\n    items += [x.clone()]\n    return items\n",
        "import torch\ndef f(x):\n    x += x[0].clone()\n    return x\n",
        # copies unpacked from a generator or a list comprehension into names, one of which needs its copy
        "import torch\ndef f(q, k):\n    q, k = [t.transpose(1, 2).contiguous() for t in (q, k)]\n"
        "    return q.view(-1) + k\n",
        "import torch\ndef f(q, k):\n    q, k = (t.clone() for t in (q, k))\n    q.mul_(2)\n    return q + k\n",
        # copies held as a dict comprehension's values: stored as state, handed out, or returned
        "import torch\nclass M:\n    def update(self, means):\n"
        "        self.means = {k: v.clone() for k, v in means.items()}\n",
        "import torch\ndef f(z, integrate):\n    z = {k: v.clone() for k, v in z.items()}\n"
        "    return integrate(z)\n",
        "import torch\ndef f(node):\n    node = {k: v.t().contiguous() for k, v in node.items()}\n"
        "    rows = {k: v[0] for k, v in node.items()}\n    return rows\n",
        # a reshape that merges axes a permutation separated copies anyway: chained, through the name
        # rebound at once, and a flatten of a span
        "import torch\ndef f(x, b, n):\n    return x.permute(0, 2, 1, 3).contiguous().reshape(b, n, -1) + 1\n",
        "import torch\ndef f(h, b, c, y, x):\n    h = h.permute(0, 3, 4, 1, 2).contiguous()\n"
        "    h = h.reshape(b, c, y, x)\n    return h + 1\n",
        "import torch\ndef f(qw):\n    qw = qw.transpose(-3, -2).contiguous()\n"
        "    return qw.reshape(-1, 64).sum(0)\n",
        "import torch\ndef f(g):\n    return torch.sin(g.permute(0, 2, 3, 4, 1).contiguous().flatten(0, 1))\n",
    )
    invalid = (
        Invalid(  # a copy of an input reached through a dtype conversion of a name rebound to it
            "import torch\ndef ngrams(input_ids, shifted):\n    context = input_ids\n"
            "    context = context.long()\n"
            "    ids = context.clone()\n    ids = ids + shifted * 2\n    return ids\n"
            "def scaled(x, w):\n    y = x\n    y = y.float()\n    z = y.clone()\n    return (z * w).sum()\n",
            ((5, 11), (11, 9)),
        ),
        Invalid(  # the detached view of a parameter shares its memory: its clone copies the input
            "import torch\ndef f(embeddings):\n    embeddings = embeddings.detach().clone()\n"
            "    embeddings = embeddings / embeddings.norm(dim=1, keepdim=True)\n    return embeddings\n"
            "def g(w, t):\n    d = w.detach().clone()\n    return torch.cat([d, t])\n",
            ((3, 18), (7, 9)),
        ),
        Invalid(  # a functional transpose whose flatten merges nothing
            "import torch\ndef f(a, b, h):\n    k = torch.cat([a, b], dim=-1)\n"
            "    return torch.matmul(h, torch.transpose(k, 0, 1).contiguous().flatten(1, 1))\n",
            ((4, 28),),
        ),
        Invalid(  # a size with a literal factor may be one axis's own length doubled
            "import torch\ndef f(mask, B, N, T):\n"
            "    y = mask.permute(0, 2, 1).contiguous().reshape(B, 2 * N, T)\n    return y.sum()\n",
            ((3, 9),),
        ),
        Invalid(  # a dtype conversion of an input, then a view of it
            "import torch\ndef f(x, targets):\n    y = x.long()\n    y = y.view(-1).contiguous()\n"
            "    targets[y] = 1\n    return targets\n",
            ((4, 9),),
        ),
        Invalid(  # a parameter rebound to a view of itself still holds the input
            "import torch\ndef f(x, mask):\n    x = x[0]\n    out = torch.zeros(3)\n"
            "    out[mask] = x.contiguous()\n    return out\n",
            ((5, 17),),
        ),
        Invalid(  # a dtype conversion of the copy read by an operation that needs no layout
            "import torch\ndef f(x):\n    y = x.permute(1, 0).contiguous()\n    return y.float().sum()\n",
            ((3, 9),),
        ),
        Invalid(  # methods that call each other, or themselves, and none writes the copied state
            "import torch\nclass Albef(torch.nn.Module):\n    def _walk(self, n):\n"
            "        return self._walk(n - 1) if n else self._log()\n    def _log(self):\n"
            "        self.seen.append(1)\n    def forward(self, q):\n"
            "        both = torch.cat([q, self.idx_queue.clone()])\n        self._walk(3)\n        return both\n",
            ((8, 30),),
        ),
        Invalid(  # the method called after the copy writes other state, or runs before the copy; only
            # the strides of the copy are read
            "import torch\nclass Moco(torch.nn.Module):\n    def _enqueue(self, k):\n"
            "        self.queue[:, :k.shape[0]] = k.T\n    def _note(self, k):\n        self.seen.append(len(k))\n"
            "    def loss(self, q, k):\n        self._enqueue(k)\n        a = q @ self.queue.clone()\n"
            "        b = q @ self.queue.clone()\n        self._note(k)\n        return a + b\n"
            "def strides(x):\n    y = x.transpose(0, 1).contiguous()\n    return y.stride()[0] + y.sum()\n",
            ((9, 17), (10, 17), (14, 9)),
        ),
        Invalid(  # a write through the other side of a ``zip`` or ``enumerate`` changes nothing of the source
            "import torch\ndef f(dst, src, n):\n    w = src.w.flatten().clone() / n\n"
            "    for (_, a), (_, b) in zip(dst.named_parameters(), src.named_parameters()):\n"
            "        a.data.copy_(b.data)\n    v = src.v.clone() * 2\n    for i, a in enumerate(dst.buffers()):\n"
            "        a.zero_()\n    return w, v.sum()\n",
            ((3, 9), (6, 9)),
        ),
        Invalid(  # a copy read at once by an in-place update of another tensor, directly or in a helper
            "import torch\nclass Avg:\n    def update(self, model):\n"
            "        for i, p in enumerate(model.parameters()):\n            self.total[i] += p.data.clone()\n"
            "def _bump(acc, t):\n    acc -= t\ndef f(acc, w):\n    _bump(acc, w.detach().clone())\n",
            ((5, 30), (9, 16)),
        ),
        Invalid(  # copies unpacked from a generator or a list comprehension, only read
            "import torch\nimport torch.nn.functional as F\ndef f(q, k, v):\n"
            "    q, k, v = (t.contiguous() for t in (q, k, v))\n"
            "    return F.scaled_dot_product_attention(q, k, v)\n"
            "def g(a, b):\n    a, b = [t.clone() for t in (a, b)]\n    return a + b\n",
            ((4, 16), (7, 13)),
        ),
        Invalid(  # a slice of the copy only reduced
            "import torch\ndef f(pred, k):\n    reg = pred.permute(0, 2, 3, 1).contiguous()\n"
            "    return reg[:, :, :, 0:k].sum()\n",
            ((3, 11),),
            fixed="import torch\ndef f(pred, k):\n    reg = pred.permute(0, 2, 3, 1)\n"
            "    return reg[:, :, :, 0:k].sum()\n",
        ),
        Invalid(  # copies held as a dict comprehension's values and only read
            "import torch\ndef f(d):\n    c = {k: v.clone() for k, v in d.items()}\n"
            "    return sum(x.sum() for x in c.values())\n",
            ((3, 13),),
        ),
        Invalid(  # a reshape that only splits axes, or one whose axes the call does not show, can view
            "import torch\ndef f(y, n, c, h, w):\n    y = y.permute(0, 2, 1).contiguous().reshape(n, c, h, w)\n"
            "    z = y.transpose(1, 2).contiguous()\n    z = z.reshape(n, *y.shape[2:])\n"
            "    return y + z.flatten(2, 2)\n",
            ((3, 9), (4, 9)),
        ),
        Invalid(  # a copy only read, unpacked from a tuple; one stored into state its class makes an array
            "import numpy as np\nimport torch\ndef cg(b, n):\n    x = torch.zeros_like(b)\n"
            "    r, p = b.clone(), b.clone()\n    for _ in range(n):\n        x += p\n        r -= x\n"
            "        p = r + p\n    return x\nclass Buffer:\n    values: np.ndarray\n    def reset(self):\n"
            "        self.means = torch.zeros(4)\n    def add(self, value, k):\n"
            "        self.values[self.pos] = value.clone().cpu().numpy().flatten()\n"
            "        self.means[k] = value.sum().clone()\n",
            ((5, 23), (16, 33), (17, 25)),
        ),
        Invalid(  # a copy of an input handed only to methods of the same class that read it
            "import torch\nclass Attack:\n    def forward(self, images, labels):\n"
            "        labels = labels.clone().detach()\n        for i in range(len(images)):\n"
            "            self._one(images[i], labels[i])\n        return images\n"
            "    def _one(self, image, label):\n        return (self.model(image).argmax(1) == label).float()\n",
            ((4, 18),),
        ),
        # a copy of a selected slice, only read: method form, function form, through a local view
        Invalid(
            "import torch\ndef first(X, dim):\n    a = X.select(dim, 0).clone()\n"
            "    b = torch.select(X, dim, 1).clone()\n    v = torch.narrow(X, dim, 0, 2)\n"
            "    c = v.clone()\n    return (a / a.norm()) + (b * c.sum())\n",
            ((3, 9), (4, 9), (6, 9)),
        ),
        # the copy is only read by an in-place update of another tensor, directly, after a loop that
        # may rebind it, or through a helper of the same file
        Invalid(
            "import torch\ndef push(x, idx, out):\n    y = x * 2\n    c = y.clone()\n"
            "    out.scatter_add_(-1, idx, c)\n    return out\n",
            ((4, 9),),
        ),
        Invalid(
            "import torch\ndef push(x, ws, out):\n    y = x * 2\n    c = y.clone()\n    for w in ws:\n"
            "        c = c * w\n    out.add_(c)\n    return out\n",
            ((4, 9),),
        ),
        Invalid(
            "import torch\ndef _acc(out, v):\n    out.add_(v)\ndef push(x, out):\n    y = x * 2\n"
            "    c = y.clone()\n    _acc(out, c)\n    return out\n",
            ((6, 9),),
        ),
        Invalid(
            "import torch\nimport torch.nn.functional as F\nclass M(torch.nn.Module):\n    def fuse(self):\n"
            "        w1 = self.conv[0].weight.data.clone().detach()\n        b1 = self.conv[0].bias.clone()\n"
            "        w = F.conv2d(w1.flip(2, 3), w1, padding=2)\n"
            "        self.fused = w * b1.reshape(1, -1, 1, 1)\n",
            ((5, 14), (6, 14)),
        ),
        Invalid(
            "import torch\nfrom typing import Any\ndef f(rows: torch.Tensor, items: Any, out):\n"
            "    for row in rows:\n        c = row.clone()\n        out.append(c.sum())\n"
            "    for item in items:\n        d = item.clone()\n        out.append(d.sum())\n",
            ((5, 13), (8, 13)),
        ),
        Invalid(
            "import torch\ndef f(x, n):\n    return x.permute(1, 0).view(-1).contiguous().sum()\n",
            ((3, 12),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    v = x.transpose(0, 1).unsqueeze(0)\n    return v.contiguous().sum(1)\n",
            ((4, 12),),
        ),
        Invalid("import torch\ndef f(x):\n    return x.view(-1).contiguous().sum()\n", ((3, 12),)),
        Invalid(
            "import torch.nn.functional as F\ndef f(x, w):\n"
            "    return F.conv2d(x.permute(0, 3, 1, 2).contiguous(), w)\n",
            ((3, 21),),
            fixed="import torch.nn.functional as F\ndef f(x, w):\n    return F.conv2d(x.permute(0, 3, 1, 2), w)\n",
        ),
        Invalid(
            "import torch\nfor p in range(3):\n    z[p, ...] = x + w[p, ...].clone() - y[p, ...]\n", ((3, 21),)
        ),
        Invalid(
            "import torch\ndef f(x):\n    c = x.clone()\n    return torch.linalg.vector_norm(c, dim=-1)\n",
            ((3, 9),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    a = x.transpose(-1, -2).contiguous().norm()\n"
            "    b = torch.norm(x.permute(1, 0).contiguous())\n    return a, b\n",
            ((3, 9), (4, 20)),
            fixed="import torch\ndef f(x):\n    a = x.transpose(-1, -2).norm()\n"
            "    b = torch.norm(x.permute(1, 0))\n    return a, b\n",
        ),
        Invalid(
            "import torch\ndef f(x, result):\n"
            "    kept = map(lambda r: r.clone() if isinstance(r, torch.Tensor) else r, result)\n"
            "    c = x.clone()\n    return c.sum(), list(kept)\n",
            ((4, 9),),
        ),
        Invalid(
            "import torch.nn.functional as F\ndef f(x, g):\n"
            "    return F.grid_sample(x.permute(0, 4, 1, 2, 3).contiguous(), g)\n",
            ((3, 26),),
            fixed="import torch.nn.functional as F\ndef f(x, g):\n"
            "    return F.grid_sample(x.permute(0, 4, 1, 2, 3), g)\n",
        ),
        Invalid(
            "import torch\ndef f(volume):\n    v = volume.clone()\n    total = v.sum()\n    return total\n",
            ((3, 9),),
        ),
        Invalid(
            "import torch\ndef f(x, w):\n    y = x.unsqueeze(0).expand(4, -1).clone()\n    return y @ w\n",
            ((3, 9),),
        ),
        Invalid(
            "import torch\ndef f(points, inplace):\n"
            "    p = points.clone() if points.is_floating_point() else points.float()\n"
            "    q = p.reshape(-1, 2)\n    return torch.cat([q, q], dim=1)\n",
            ((3, 9),),
        ),
        Invalid(
            "import torch\ndef f(sim):\n    s = sim.transpose(-1, -2).contiguous()\n    return s.sum(2)\n",
            ((3, 9),),
            fixed="import torch\ndef f(sim):\n    s = sim.transpose(-1, -2)\n    return s.sum(2)\n",
        ),
        Invalid(
            "import torch\ndef f(x):\n    if x.numel() == 0:\n        return x\n    x = x.clone()\n"
            "    return torch.cat([x, x])\n",
            ((5, 9),),
        ),
        Invalid(
            "import torch\ndef _total(a, b):\n    return a.sum() + b\ndef f(x):\n    c = x.clone()\n"
            "    return _total(c, 1)\n",
            ((5, 9),),
        ),
        Invalid(
            "import torch\nimport torch.nn.functional as F\ndef f(q, k, v):\n"
            "    args = [x.contiguous() for x in [q, k, v]]\n    return F.scaled_dot_product_attention(*args)\n",
            ((4, 13),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    v = x.permute(0, 2, 1)\n    v = v.contiguous()\n    return v.sum(1)\n",
            ((4, 9),),
        ),
        Invalid(
            "import torch\ndef f(x, idx: torch.Tensor):\n    c = x.clone()\n    c = c[idx]\n    c[0] = 1\n"
            "    return c.sum()\n",
            ((3, 9),),
        ),
        Invalid(
            "import torch\ndef f(inp):\n    x = inp * 2\n    y = x.clone()\n    x = x + 1\n    return x * y\n",
            ((4, 9),),
        ),
        Invalid(
            "import torch\ndef _scaled(t: torch.Tensor) -> torch.Tensor:\n    return t * 2\ndef f(inp):\n"
            "    x = _scaled(inp)\n    y = x.clone()\n    x = x + 1\n    return x * y\n",
            ((6, 9),),
        ),
        Invalid("import torch\ndef f(self, t):\n    d = self.mean.clone() - t\n    return d\n", ((3, 9),)),
        Invalid(
            "import torch\ndef _offset(a, b):\n    return a - b\ndef f(self, t):\n"
            "    return _offset(self.mean.clone(), t)\n",
            ((5, 20),),
        ),
        Invalid(
            "import torch\ndef f(parts):\n    pts = torch.cat(parts)\n    p = pts.clone().reshape(-1, 2)\n"
            "    return p.sum(0)\n",
            ((4, 9),),
        ),
        Invalid(
            "import torch\ndef _flat(a):\n    return a.reshape(-1)\ndef f(x):\n    c = x.clone()\n"
            "    return _flat(c).sum()\n",
            ((5, 9),),
        ),
        Invalid(
            "import torch\ndef f(volume, out):\n    for d in range(volume.shape[1]):\n"
            "        plane = volume[:, d].unsqueeze(0).contiguous()\n        out[:, d] = plane[0]\n",
            ((4, 17),),
            fixed="import torch\ndef f(volume, out):\n    for d in range(volume.shape[1]):\n"
            "        plane = volume[:, d].unsqueeze(0)\n        out[:, d] = plane[0]\n",
        ),
        Invalid(
            "import torch\ndef _put(out, d, plane):\n    out[:, d] = plane[0]\ndef f(volume, out):\n"
            "    for d in range(4):\n        _put(out, d, volume[:, d].unsqueeze(0).contiguous())\n",
            ((6, 22),),
            fixed="import torch\ndef _put(out, d, plane):\n    out[:, d] = plane[0]\ndef f(volume, out):\n"
            "    for d in range(4):\n        _put(out, d, volume[:, d].unsqueeze(0))\n",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        method = method_name(node)
        if method not in _COPIES or node.args or not self.ctx.imports_torch:
            return
        fate = self._fate(method)
        if fate is Fate.NEEDED:
            return
        receiver = node.func.value  # type: ignore[attr-defined]
        if types.builds_object(self.ctx, receiver):
            return  # ``TensorDict(obs).clone()`` copies an object of another library, not a tensor
        after_view = isinstance(receiver, cst.Call) and method_name(receiver) in VIEWS
        if after_view and method == "contiguous" and self._made_here(node, _under_contiguity_keepers(receiver)):
            return  # ``torch.cat(parts).view(b, -1)`` is contiguous already: nothing is copied
        if method == "contiguous" and self._rebound_to_made(node, receiver):
            return  # ``feats = torch.cat(feats)`` then ``feats.contiguous()``: contiguous already
        if method == "contiguous" and self._bound_to_contiguous(node, receiver):
            return  # ``b = x.permute(0, 2, 1).contiguous()`` then ``b.contiguous()``: nothing to copy
        of_input = after_view or self._is_parameter(receiver) or self._holds_view(node, receiver, method)
        if of_input or (method == "clone" and self._spares_nothing(node, receiver, fate)):
            if self._original_written(node, receiver):
                return
        elif not (method == "clone" and fate is Fate.BOUND and self._state_stays(node, receiver)):
            return
        fix = None
        if after_view and method == "contiguous":
            fix = PendingFix(UNSAFE, "Remove `.contiguous()`", (NodeEdit(node, source_of(receiver)),))
        self.report(node, fix=fix, what=f".{method}()")

    def _spares_nothing(self, node: cst.Call, receiver: cst.BaseExpression, fate: Fate) -> bool:
        """A clone that protects nothing, whatever it copies: read at once by an operation that makes
        its own result (``x.clone() - t``, ``torch.cat([w.clone(), v])``), or of a tensor this function
        made itself (``y = a * 2`` then ``c = y.clone()``, also ``y.detach().clone()``), which nothing
        else can see or write."""
        if fate is Fate.READ:
            return True
        receiver = _detached_from(receiver)
        if fate is not Fate.BOUND or not isinstance(receiver, cst.Name):
            return False
        function = self.ctx.enclosing_function()
        if function is None:
            return False
        facts = writes.of(self.ctx, function.body)
        where = facts.calls.get(id(node))
        held = facts.held_at(receiver.value, where) if where is not None else None
        if held is None or held[0] is None or held[1]:
            return False  # not bound here, or sharing some other value's memory
        value = held[0]
        made = isinstance(value, cst.BinaryOperation | cst.UnaryOperation)
        return made or types.kind_of(self.ctx, receiver) == types.TENSOR

    def _state_stays(self, node: cst.Call, receiver: cst.BaseExpression) -> bool:
        """A clone of module state (``w = self.conv.weight.data.clone()``) in a function where nothing
        can change that state: no method of ``self`` or of its attributes is called (a submodule's
        forward may update running statistics), and nothing out of sight is handed ``self``. Then
        the copy keeps no old values anyone needs."""
        function = self.ctx.enclosing_function()
        state = self_attribute(receiver)
        if function is None or state is None:
            return False
        for found in walk(function.body):
            if isinstance(found, cst.Call) and found is not node and self._may_change_state(found):
                return False
            if isinstance(found, cst.Assign | cst.AugAssign | cst.AnnAssign):
                targets = [t.target for t in found.targets] if isinstance(found, cst.Assign) else [found.target]
                if any(self_attribute(target) == state for target in targets):
                    return False  # ``self.conv.weight.data[0] = v``: what was copied changes
        return True

    def _may_change_state(self, call: cst.Call) -> bool:
        if writes.reads_only(self.ctx, call):
            return False
        func = call.func
        if isinstance(func, cst.Attribute) and self.ctx.qualname(func) is None:
            method = func.attr.value
            if method.endswith("_") and not method.endswith("__"):
                return True  # an in-place write, perhaps through an alias of the state (``w.zero_()``)
            if method in _TENSOR_METHODS:
                return False  # ``self.w.flip(2)``: a tensor method that makes or views, writing nothing
            return self_attribute(func) is not None  # ``self.step()``, ``self.conv(x)``
        return any(root_name(arg.value) == "self" for arg in call.args)

    def _original_written(self, node: cst.Call, receiver: cst.BaseExpression) -> bool:
        """Whether what was copied is written in place after the copy (``y = x.clone()`` then
        ``x.add_(1)``), or the value it views is (``v = buf[0]``, ``c = v.clone()``, then
        ``buf.zero_()``): the copy keeps the old values, so it is needed even if nothing writes it."""
        function = self.ctx.enclosing_function()
        original = root_name(receiver)
        if original is None:
            return False
        facts = writes.of(self.ctx, function.body if function is not None else self.ctx.module)
        where = facts.calls.get(id(node))
        if where is None:
            return False
        held = facts.held_at(original, where)
        viewed = _viewed_name(held[0]) if held is not None else None
        if any(facts.uses(name, where, _WRITTEN) for name in {original, viewed} if name is not None):
            return True
        state = self_attribute(receiver)
        return state is not None and any(
            facts.calls.get(id(found), -1) > where and self._method_writes_state(found, state)
            for found in walk(function.body if function is not None else self.ctx.module)
            if isinstance(found, cst.Call)
        )

    def _method_writes_state(self, call: cst.Call, state: str, seen: set[str] | None = None) -> bool:
        """``self._dequeue_and_enqueue(k)`` where that method of the class writes ``self.queue``
        (``self.queue[:, ptr] = keys.T``, ``self.queue.copy_(...)``), itself or through another method
        of the class it calls (``self._similarity(...)`` that enqueues): a clone of the state taken
        before the call keeps the values the call overwrites. ``seen``: the methods already read, each
        read once however many calls lead to it."""
        func = call.func
        seen = set() if seen is None else seen
        if (
            not (
                isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
            )
            or func.attr.value in seen
        ):
            return False
        function = self.ctx.enclosing_function()
        method = class_methods(self.ctx, function).get(func.attr.value) if function is not None else None
        if method is None:
            return False
        seen.add(func.attr.value)
        for found in walk(method.body):
            if isinstance(found, cst.Assign | cst.AugAssign):
                targets = [t.target for t in found.targets] if isinstance(found, cst.Assign) else [found.target]
                if any(not isinstance(t, cst.Name) and self_attribute(t) == state for t in targets):
                    return True
            elif isinstance(found, cst.Call) and isinstance(found.func, cst.Attribute):
                name = found.func.attr.value
                if name.endswith("_") and not name.endswith("__") and self_attribute(found.func.value) == state:
                    return True
                if self._method_writes_state(found, state, seen):
                    return True
        return False

    def _holds_view(self, node: cst.Call, receiver: cst.BaseExpression, method: str) -> bool:
        """A name last bound to a view (``v = x.permute(0, 2, 1)``), or to a value sharing a parameter's
        memory (``v = x[0]``), before the copy: the copy is of the input's memory, as a chained one is.
        For ``.contiguous()``, a view that keeps contiguity (``v = made.view(-1)``) counts only if what
        it views may not be contiguous."""
        function = self.ctx.enclosing_function()
        if function is None or not isinstance(receiver, cst.Name):
            return False
        facts = writes.of(self.ctx, function.body)
        where = facts.calls.get(id(node))
        held = facts.held_at(receiver.value, where) if where is not None else None
        if held is None:
            return False
        value, shared = held
        if isinstance(value, cst.Call) and method_name(value) in VIEWS:
            if method == "contiguous" and self._made_here(node, _under_contiguity_keepers(value)):
                return False  # ``v = torch.cat(parts).view(b, -1)``: contiguous already
            return True
        names = {p.name.value for p in parameters(function) if self._may_hold_tensors(p)} - {"self", "cls"}
        return bool(shared & names)

    def _may_hold_tensors(self, param: cst.Param) -> bool:
        """Unannotated, or annotated with a tensor, an array, a container of them or ``Any``: a
        parameter annotated ``DataLoader`` yields new batches, which share none of its memory."""
        annotation = param.annotation
        if annotation is None or types.annotation_kind(self.ctx, annotation.annotation) is not None:
            return True
        return source_of(annotation.annotation).rpartition(".")[2] in ("Any", "object")

    def _made_here(self, node: cst.Call, value: cst.BaseExpression, where: int | None = None) -> bool:
        """A new tensor this function made, contiguous as every fresh result is: an operation
        (``a * 2``), a call known to return a tensor that is not a view (``torch.cat(parts)``, a project
        function annotated ``-> Tensor``), a dtype conversion of one (``t.long()``, which is ``t`` or a
        copy with its strides), or a name bound to one of these and sharing no other memory."""
        function = self.ctx.enclosing_function()
        facts = writes.of(self.ctx, function.body if function is not None else self.ctx.module)
        if where is None:
            where = facts.calls.get(id(node))
        if isinstance(value, cst.Name):
            held = facts.held_at(value.value, where) if where is not None else None
            if held is None or held[0] is None or (held[1] and not writes.converts_dtype(held[0])):
                return False
            value = held[0]
        if writes.converts_dtype(value):
            receiver = value.func.value  # type: ignore[attr-defined]
            return self._made_here(node, receiver, facts.calls.get(id(value)))
        if isinstance(value, cst.BinaryOperation | cst.UnaryOperation):
            return True
        return (
            isinstance(value, cst.Call)
            and method_name(value) not in writes.VIEW_METHODS
            and not writes.is_view_call(self.ctx, value)
            and types.kind_of(self.ctx, value) == types.TENSOR
        )

    def _is_parameter(self, receiver: cst.BaseExpression) -> bool:
        """A parameter of the function, or its ``.detach()``, which shares its memory."""
        function = self.ctx.enclosing_function()
        receiver = _detached_from(receiver)
        if function is None or not isinstance(receiver, cst.Name):
            return False
        return any(p.name.value == receiver.value for p in parameters(function))

    def _bound_to_contiguous(self, node: cst.Call, receiver: cst.BaseExpression) -> bool:
        """``receiver`` is a name that every way to ``node`` last bound to a ``.contiguous()`` result,
        which a second ``.contiguous()`` returns as it is."""
        held = self._dominating_binding(node, receiver)
        return held is not None and isinstance(held[0], cst.Call) and method_name(held[0]) == "contiguous"

    def _rebound_to_made(self, node: cst.Call, receiver: cst.BaseExpression) -> bool:
        """``receiver`` is a name that every way to ``node`` last bound to a tensor the function made
        (``feats = torch.cat(feats)``, also under a parameter's name), sharing no other memory."""
        held = self._dominating_binding(node, receiver)
        if held is None or held[0] is None or (held[1] and not writes.converts_dtype(held[0])):
            return False
        return self._made_here(node, held[0])

    def _dominating_binding(
        self, node: cst.Call, receiver: cst.BaseExpression
    ) -> tuple[cst.BaseExpression | None, frozenset[str]] | None:
        """The value (and the names it shares) of the binding of the name ``receiver`` that every way
        to ``node`` passes last; None for anything else than a name bound in the function."""
        function = self.ctx.enclosing_function()
        if function is None or not isinstance(receiver, cst.Name):
            return None
        facts = writes.of(self.ctx, function.body)
        where = facts.calls.get(id(node))
        enclosing = frozenset(id(n) for n in self.ctx.ancestors if isinstance(n, cst.BaseSuite))
        return facts.dominating_binding(receiver.value, where, enclosing) if where is not None else None

    def _fate(self, method: str) -> Fate:
        """What becomes of the copy: needed (written in place, kept or returned, so it must not alias
        the input; handed to code the file cannot see into; or, for ``.contiguous()``, read by an
        operation that needs contiguous memory or would make the same copy itself), bound to a name
        whose uses need none of that, read at once by an operation that makes its own result, or
        none of these.

        The copy is followed through views and subscripts (``x.clone().reshape(-1, 2)``,
        ``torch.diagonal(x.clone())``), conditional expressions (``x if inplace else x.clone()``),
        containers (``{"k": x.clone()}``), functions of this file that return it, and the name it is
        bound to.
        """
        ctx = self.ctx
        ancestors = ctx.ancestors
        value: cst.CSTNode = ancestors[-1]
        contained = False  # inside a container: an operation on it (``[c] + rest``) keeps it
        for index in range(len(ancestors) - 2, -1, -1):
            parent = ancestors[index]
            if parent is value:  # the call an argument passed through
                continue
            kind = type(parent)
            if kind is cst.Attribute and parent.value is value:  # type: ignore[attr-defined]
                if parent.attr.value not in TENSOR_MEMBERS:  # type: ignore[attr-defined]
                    return Fate.NEEDED  # ``td.clone().to_dict()``: no tensor, so not this rule's copy
                call = ancestors[index - 1] if index > 0 else None
                if not (isinstance(call, cst.Call) and call.func is parent):
                    if parent.attr.value not in writes.VIEW_METHODS:  # type: ignore[attr-defined]
                        return Fate.READ  # ``.shape``, ``.dtype``: a property, not the memory
                    value = parent
                    continue
                chained = parent.attr.value  # type: ignore[attr-defined]
                if chained.endswith("_") and not chained.endswith("__"):
                    return Fate.NEEDED
                if method == "contiguous" and writes.needs_contiguous(ctx, call, None):
                    return Fate.NEEDED
                if method == "contiguous" and value is ancestors[-1] and _reshaped_anyway(value, call):
                    return Fate.NEEDED  # ``x.permute(0, 2, 1, 3).contiguous().reshape(b, n, -1)``
                if chained not in writes.VIEW_METHODS:
                    return Fate.READ
                value = parent
            elif kind is cst.Call and parent.func is value:  # type: ignore[attr-defined]
                value = parent
            elif kind is cst.Subscript and parent.value is value:  # type: ignore[attr-defined]
                if writes.is_fresh_index(parent, lambda e: types.kind_of(ctx, e)):  # type: ignore[arg-type]
                    return Fate.READ
                value = parent
            elif kind in _HOLDERS:
                contained = contained or kind is not cst.IfExp
                value = parent
            elif (kind in _COMPREHENSIONS and parent.elt is value) or (  # type: ignore[attr-defined]
                kind is cst.DictComp and parent.value is value  # type: ignore[attr-defined]
            ):
                contained = True
                value = parent
            elif kind in _OPERATIONS:
                if not contained:
                    return Fate.READ
                value = parent
            elif kind is cst.Return or kind is cst.Yield:
                return Fate.NEEDED
            elif kind is cst.Arg:
                call = ancestors[index - 1]
                if not isinstance(call, cst.Call):
                    return Fate.OTHER
                if method == "contiguous" and writes.needs_contiguous(ctx, call, parent):  # type: ignore[arg-type]
                    return Fate.NEEDED  # before following a view of it: ``torch.view_as_complex(c)``
                if self._passes_through(call, parent):  # type: ignore[arg-type]
                    value = call
                    continue
                return Fate.NEEDED if self._argument_needs(call, parent, method) else Fate.READ  # type: ignore[arg-type]
            elif kind is cst.AugAssign and parent.value is value:  # type: ignore[attr-defined]
                # ``total[i] += p.clone()`` reads the copy into another tensor; ``items += [c]`` keeps it
                return Fate.NEEDED if contained else Fate.READ
            elif kind is cst.Assign or kind is cst.AnnAssign:
                unpacked = _unpacked_target(parent, value, ancestors[index + 2 : index + 3])  # type: ignore[arg-type]
                if unpacked is not None:  # ``r, p = b.clone(), b.clone()``: each copy has its own name
                    return self._names_fate([unpacked], parent, method)
                return self._binding_fate(parent, method)  # type: ignore[arg-type]
            elif kind is cst.For and parent.iter is value:  # type: ignore[attr-defined]
                targets = [n.value for n in walk(parent.target) if isinstance(n, cst.Name)]  # type: ignore[attr-defined]
                return self._names_fate(targets, parent, method)  # the targets view the copy's items
            else:
                return Fate.OTHER
        return Fate.OTHER

    def _passes_through(self, call: cst.Call, arg: cst.Arg) -> bool:
        """``torch.diagonal(copy)``, ``tuple([copy])``, ``dict(k=copy)``, a function of this file that
        returns its parameter: the call's result holds or shares the copy, so what happens to the
        result happens to the copy."""
        func = call.func
        if isinstance(func, cst.Name) and func.value in _REGROUPING and self.ctx.qualname(func) is None:
            return True
        qualname = self.ctx.qualname(func) if isinstance(func, cst.Name | cst.Attribute) else None
        if arg.keyword is None and (qualname in writes.VIEW_FUNCTIONS or qualname in writes.HOLDING_FUNCTIONS):
            return True
        return self._callee_effect(call, arg) == writes.RETURNED

    def _argument_needs(self, call: cst.Call, arg: cst.Arg, method: str) -> bool:
        """A call that writes its argument (``inplace=True``, ``out=``), keeps it (``items.append``),
        may write it (a function the file cannot see into), or needs contiguous memory
        (``torch.view_as_complex``, a compiled extension, softmax, a convolution's weight)."""
        if arg.keyword is not None and arg.keyword.value == "out":
            return True
        if writes.keeps_argument(method_name(call), arg):
            return True
        if any(
            a.keyword is not None and a.keyword.value == "inplace" and not is_literal(a.value, "False")
            for a in call.args
        ):
            return True
        if method == "contiguous" and writes.needs_contiguous(self.ctx, call, arg):
            return True
        if writes.reads_only(self.ctx, call):
            return False
        effect = self._callee_effect(call, arg)
        return effect == _UNKNOWN or effect in _NEEDED or (effect == writes.VIEWED and method == "contiguous")

    def _callee_effect(self, call: cst.Call, arg: cst.Arg) -> str | None:
        """What a function of this file does with the parameter ``arg`` lands in (see
        :func:`writes.callee_effects`); ``_UNKNOWN`` for any other callee, which may do anything."""
        function = self.ctx.enclosing_function()
        local = {n.name.value: n for n in function.body.body if isinstance(n, cst.FunctionDef)} if function else {}
        callee = writes.callee_effects(self.ctx, call, local)
        if callee is None:
            return _UNKNOWN
        return dict((id(a), e) for a, e in callee).get(id(arg))

    def _binding_fate(self, statement: cst.Assign | cst.AnnAssign, method: str) -> Fate:
        """A copy bound to names is needed if a use of one needs it; one stored as an attribute or a
        container's item outlives this function's view of it; one stored into a tensor or an array
        (``out[:, i] = copy``) is read there, its values copied in."""
        if isinstance(statement, cst.Assign):
            targets = [t.target for t in statement.targets]
        else:
            targets = [statement.target]
        if len(targets) == 1 and isinstance(statement.value, cst.GeneratorExp | cst.ListComp):
            targets = _unpacked_names(targets[0]) or targets  # ``q, k = (t.contiguous() for t in (q, k))``
        names = [target.value for target in targets if isinstance(target, cst.Name)]
        if any(not isinstance(target, cst.Name) and not self._copied_into(target) for target in targets):
            return Fate.NEEDED
        if method == "contiguous" and _next_reshapes(self.ctx.ancestors, statement, names):
            return Fate.NEEDED
        return self._names_fate(names, statement, method) if names else Fate.READ

    def _names_fate(self, names: list[str], statement: cst.CSTNode, method: str) -> Fate:
        """Needed if a use of a name ``statement`` binds to the copy needs it, else bound."""
        function = self.ctx.enclosing_function()
        facts = writes.of(self.ctx, function.body if function is not None else self.ctx.module)
        needed = _NEEDED_BY_CONTIGUOUS if method == "contiguous" else _NEEDED
        position = facts.position(statement)
        if position is None:  # inside a lambda or class body the block does not enter
            summary = facts.written | facts.kept | facts.returned | facts.passed
            return Fate.NEEDED if any(name in summary for name in names) else Fate.BOUND
        return Fate.NEEDED if any(facts.uses(name, position, needed) for name in names) else Fate.BOUND

    def _copied_into(self, target: cst.BaseExpression) -> bool:
        """A store into a tensor or an array (``out[:, i] = ...``) copies the values in."""
        return isinstance(target, cst.Subscript) and writes.copies_values(
            target, lambda e: types.kind_of(self.ctx, e)
        )


def _detached_from(receiver: cst.BaseExpression) -> cst.BaseExpression:
    """``img`` for ``img.detach()``: the tensor whose memory the detached view shares."""
    if isinstance(receiver, cst.Call) and method_name(receiver) == "detach" and not receiver.args:
        return receiver.func.value  # type: ignore[attr-defined]
    return receiver


def _reshaped_anyway(copy: cst.BaseExpression, reshape: cst.CSTNode | None) -> bool:
    """``copy`` is ``.contiguous()`` of a permuted view and ``reshape`` merges axes of it, which
    copies the data itself: the ``.contiguous()`` makes that same copy, no extra one."""
    if not (isinstance(copy, cst.Call) and isinstance(copy.func, cst.Attribute) and isinstance(reshape, cst.Call)):
        return False
    rank = ranks.permuted_rank(copy.func.value)
    return rank is not None and ranks.merges_axes(reshape, rank)


def _next_reshapes(ancestors: list[cst.CSTNode], statement: cst.CSTNode, names: list[str]) -> bool:
    """``x = v.permute(0, 2, 1, 3).contiguous()`` followed at once by ``x = x.reshape(b, n, -1)``: the
    statement after the binding reshapes the bound name so that it copies anyway."""
    if len(names) != 1 or not isinstance(statement, cst.Assign):
        return False
    line = next((n for n in reversed(ancestors) if isinstance(n, cst.SimpleStatementLine)), None)
    block = next((n for n in reversed(ancestors) if isinstance(n, cst.IndentedBlock | cst.Module)), None)
    if line is None or block is None or line.body[-1] is not statement:
        return False
    body = list(block.body)
    index = next((i for i, member in enumerate(body) if member is line), len(body))
    following = body[index + 1] if index + 1 < len(body) else None
    if not isinstance(following, cst.SimpleStatementLine):
        return False
    first = following.body[0]
    value = first.value if isinstance(first, cst.Assign | cst.Expr | cst.Return) else None
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        receiver = value.func.value
        if isinstance(receiver, cst.Name) and receiver.value == names[0]:
            return _reshaped_anyway(statement.value, value)
        value = receiver
    return False


def _under_contiguity_keepers(value: cst.BaseExpression) -> cst.BaseExpression:
    """``value`` without the views that keep contiguity chained on it: ``t`` for ``t.view(-1).unsqueeze(0)``."""
    while isinstance(value, cst.Call) and method_name(value) in _KEEP_CONTIGUITY:
        value = value.func.value  # type: ignore[attr-defined]
    return value


def _unpacked_target(
    statement: cst.Assign | cst.AnnAssign, value: cst.CSTNode, inner: list[cst.CSTNode]
) -> str | None:
    """The name ``a, b = x, y`` binds to the element ``inner`` of the display ``value`` it unpacks,
    when the target is a plain tuple of names as long as the display."""
    if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1 and statement.value is value):
        return None
    target = statement.targets[0].target
    if not (isinstance(value, cst.Tuple | cst.List) and isinstance(target, cst.Tuple | cst.List) and inner):
        return None
    elements, names = value.elements, target.elements
    if len(elements) != len(names) or any(isinstance(e, cst.StarredElement) for e in (*elements, *names)):
        return None
    position = next((i for i, element in enumerate(elements) if element is inner[0]), None)
    name = names[position].value if position is not None else None
    return name.value if isinstance(name, cst.Name) else None


def _unpacked_names(target: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The names of a tuple or list target of plain names, each of which takes one item; empty for
    any other target."""
    if not isinstance(target, cst.Tuple | cst.List):
        return []
    elements = [element.value for element in target.elements if not isinstance(element, cst.StarredElement)]
    if len(elements) != len(target.elements) or not all(isinstance(e, cst.Name) for e in elements):
        return []
    return elements


def _viewed_name(value: cst.BaseExpression | None) -> str | None:
    """The name whose memory ``value`` views: ``buf`` for ``buf[0]``, ``buf.permute(1, 0)``, ``buf.real``."""
    while True:
        if isinstance(value, cst.Subscript | cst.Attribute):
            value = value.value
        elif isinstance(value, cst.Call) and method_name(value) in writes.VIEW_METHODS:
            value = value.func.value  # type: ignore[attr-defined]
        else:
            return value.value if isinstance(value, cst.Name) else None


_HOLDERS = frozenset(
    {cst.IfExp, cst.Element, cst.Tuple, cst.List, cst.Set, cst.DictElement, cst.Dict, cst.StarredElement}
)
_COMPREHENSIONS = frozenset({cst.ListComp, cst.GeneratorExp, cst.SetComp})
_REGROUPING = frozenset("tuple list dict set frozenset zip enumerate reversed iter sorted".split())
#: Operations that read their operands and make a new result.
_OPERATIONS = frozenset({cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget})
_UNKNOWN = "unknown"
_WRITTEN = frozenset({writes.WRITTEN})
_NEEDED = frozenset({writes.WRITTEN, writes.KEPT, writes.RETURNED, writes.PASSED})
_NEEDED_BY_CONTIGUOUS = _NEEDED | {writes.VIEWED}
