"""TPL004: a primitive that picks another path when gradients are wanted."""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.bookkeeping import (
    arms_differ_by_detach,
    in_custom_backward,
    is_detached_form,
    is_layer_tensor,
    is_parameter_collection,
    is_parameter_loop_variable,
    only_amends_a_raise,
    only_collects_names,
    only_detaches,
    only_extends_text,
    only_keeps_for_backward,
    only_registers_observers,
    only_rejects,
    only_reports,
    only_returns_tested,
    only_sets_grad_flags,
    only_tallies_parameters,
)
from torchperf_lint.toolkit.exemptions import tests_apply
from torchperf_lint.toolkit.functions import parameters
from torchperf_lint.toolkit.matching import is_literal, keyword, source_of, string_value, walk
from torchperf_lint.toolkit.traversal import in_source_order
from torchperf_lint.toolkit.types import bound_value
from torchperf_lint.vocabulary import GRAD_ENABLERS, GRAD_FLAG_NAME, GRAD_GUARDS

#: A file mentioning none of these cannot read autograd state (aliases keep the name in their import).
_STATE_TEXT = re.compile(r"requires_grad|is_grad_enabled|is_inference_mode_enabled")
_GRAD_STATE_CALLS = {
    "torch.is_grad_enabled",
    "torch.is_inference_mode_enabled",
    "torch.autograd.grad_mode.is_grad_enabled",
}
#: An attribute named for a learnable parameter (``_flat_param``, ``_params``, ``weight_parameter``).
_PARAMETER_ATTRIBUTE = re.compile(r"(?:^|_)param(?:eter)?s?$")
#: Calls that make a branch a grad route or an inference route.
_GRAD_HANDLERS = GRAD_GUARDS | GRAD_ENABLERS


class GraphPreservingFallback(Rule):
    code = "TPL004"
    fix_safety = (
        "No fix: the fallback branch has to be deleted by hand once the caller is known not to need "
        "gradients, and which branch to keep is not visible in the code."
    )
    name = "graph-preserving-fallback"
    hint = "Delete the autograd-dependent branch; the primitive has one eager route."
    summary = "Branching on autograd state to choose a route"
    message = "branching on `{what}`{via} adds a graph-preserving route; primitives have one eager route"
    why = (
        "A second route taken only when gradients are wanted is a route no benchmark measured "
        "and whose results can differ from the eager one. Primitives reject inputs that need a "
        "graph in their public validation and otherwise run one route."
    )
    example = "if volume.requires_grad:\n    return slow_differentiable(volume)"
    use_instead = 'if volume.requires_grad:\n    raise ValueError("volume must not require grad")'
    notes = (
        "Flagged: an `if`, `while` or conditional expression whose test reads `.requires_grad`, "
        "`torch.is_grad_enabled()` or `torch.is_inference_mode_enabled()` (also `getattr(x, 'requires_grad', "
        "False)`), directly, through a local "
        "or an attribute bound to such a read, alone or folded with other conditions (`needs = "
        "x.requires_grad and training` then `if needs:`), or through a project function that returns "
        "one (`if _needs_graph(x):`, in this file or another module); and a branch on a parameter named "
        "for autograd (`requires_grad`, `differentiable`, `need_grad`, or against it: `no_grad`, "
        "`track_grads`; also `grad` or `gradient` declared a bool, `grad: bool = False`, where a bare `grad` "
        "is a gradient tensor), or a local folded from one, in a "
        "function that handles grad on some path (`no_grad`, `detach`, `requires_grad_`), unless it only "
        "fills in a default (`if requires_grad is None:`) or the parameter is declared to hold something else "
        "than a yes or no (`no_grad: List[str]` of name patterns, an annotation without `bool`, a default of "
        "`()` or `[]`); an attribute of `self` named so "
        "(`self.requires_grad`, `self.no_grad`) in a class that is no tensor (a module keeping its "
        "constructor's argument) counts as such a setting. "
        "One test gives "
        "one finding, however many reads it combines. Exempt, because none of them is a second route: "
        'a branch that only raises (also after building its message: `msg = f"..."`, `raise '
        "ValueError(msg)`), or holds only `if` statements whose arms only raise (`if not grad: if not "
        "detach: raise ValueError(...)`), or only adds to the message of the error raised right after it (`if "
        "value.requires_grad: msg += ' hint'` then `raise NotImplementedError(msg)`), which is validation; "
        "a branch that only registers gradient hooks that watch without changing the gradient (a hook "
        "returning nothing or its argument, a function of the file or a method of the class, `self._seen`, "
        "or a `functools.partial` of one returning nothing; a lambda calling a warning or check such as "
        "`warn_if_nan`, or a function or method that returns nothing, `lambda g: self.clear_cache()`), "
        "or that only asks torch to keep a gradient (`t.retain_grad()`), "
        "since torch refuses a hook on a tensor that does not require grad and neither pass changes (a "
        "hook returning a new gradient is a backward route and is still flagged); a branch that only returns "
        "the tensor it tested (`if t.requires_grad: return t`, a search for the first tensor that "
        "records); in a custom "
        "`torch.autograd.Function`'s `forward`, a branch that only keeps values on the context for the "
        "backward (`ctx.opt = opt`, `ctx.save_for_backward(x)`, or `X = None` for a value what follows only "
        "keeps there), which computes the output the same way; "
        "a branch that does nothing (`pass`) or only turns autograd flags off (`pos.requires_grad_(False)` "
        "restoring the caller's flag, `t.requires_grad = False`), where the same operations run either way "
        "(turning them on, `if not x.requires_grad: x.requires_grad_()`, makes what follows record a graph "
        "and is flagged); "
        "a branch that only warns, logs or prints (also through a helper named for it: `_print_rank0(msg)`, "
        "`rank_zero_warn(msg)`, `self.log_once(msg)`), only extends text a name holds (`text = "
        "text[:-1] + ', requires_grad=True)'` in a repr; binding a fresh literal such as `mode = 'graph'` "
        "may pick a route later and is flagged), or only "
        "records names (`out.add(f'pos_embed_{i}')` when building a no-weight-decay set, `found.append(name)` "
        "with a variable named for a name or key; a conditional "
        "expression whose arms are only names, `[prefix + 'bias'] if self.bias.requires_grad else []`), "
        "or only gathers "
        "trainable tensors into a collection named for parameters (`parameters.append(t)`) or counts their "
        "elements (`total += t.numel()`), which touches "
        "no tensor; a branch that only detaches its input (`x = x.detach()`, `x = x.data`, "
        "`x = x.detach().clone()`, "
        "`x.detach() if x.requires_grad else x`, or arms equal but for a `.detach()`: "
        "`t.detach().cpu().numpy() if t.requires_grad else t.cpu().numpy()`, and the same two ways as "
        "statements: an `if`/`else` assigning one target, or an `if` that returns followed by the other "
        "`return`; element by element for a tuple or list, `(a, b)` against `(a.detach(), b.detach())`), "
        "which normalises it; "
        "reads inside a custom `torch.autograd.Function`'s `backward`, `jvp` or `vjp`, or a function "
        "nested there (a hook the backward pass runs), which skip gradients nobody needs in the "
        "backward pass itself; and `p.requires_grad` on learnable parameters being iterated "
        "(`model.parameters()`, `named_parameters()`, a collection named like `params`, a project "
        "function returning one, or a local bound to one of these) or picked from such a collection "
        "(`p = params.get(name)`, also kept only when its owner exists, `W = None if base is None else "
        "base._parameters.get('weight')`, `params[name]`, `next(m.parameters())` in the test itself, and a helper "
        "returning `next(m.parameters()).requires_grad` "
        "or the flag of `ps[0]` after `ps = list(m.parameters())`, which says whether a model trains), "
        "or kept on an object under a name for one (`module._flat_param`, `self._centers._params`, also "
        "through a local bound to it), or the `weight` or `bias` of a layer reached through an attribute or "
        "a call (`fusion.value.weight`, `self.get_input_embeddings().weight`, also through a local), read by "
        "name (`getattr(layer, 'bias', None)`), of a name an `isinstance(m, nn.Embedding)` test shows to be a "
        "layer (the test of an `if` around the read, or a part of its own `and` chain), or "
        "of each layer of a model (`m.weight` for `m` in `model.modules()`, `named_modules()`, "
        "`children()`), "
        "which is freezing and optimizer bookkeeping. A flag passed on only as "
        "the `requires_grad=` argument of a call (`self.pos = nn.Parameter(t, requires_grad="
        "self.pos.requires_grad)`) configures the tensor the call makes: the name then holds that "
        "tensor, and testing it (`if self.pos is not None:`) reads no autograd state."
    ) + tests_apply(
        "a branch on `requires_grad` or the grad mode in a test picks between two routes as a kernel "
        "would, and the contract rules out a route chosen by autograd state wherever it is written; a "
        "test that needs both calls the kernel under `torch.no_grad()` and without it"
    )
    valid = (
        # a custom Function's forward that only decides what the backward keeps: a value dropped
        # after a helper's verdict on the inputs' flags, after a flag itself; whether a model trains
        "import torch\ndef cache_x(op, gx, gy):\n    return gy\nclass Op(torch.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, op, X, Y):\n        out = X * Y\n"
        "        req_x, req_y = X.requires_grad, Y.requires_grad\n        if not cache_x(op, req_x, req_y):\n"
        "            X = None\n        if not Y.requires_grad:\n            Y = None\n"
        "        ctx.save_for_backward(X, Y)\n        return out\n",
        "import torch\ndef f(adapter, x, loss):\n    if next(adapter.parameters()).requires_grad is True:\n"
        "        loss = loss + x.sum()\n    return loss\n",
        # which layers of a model train, read from each layer's weight or bias: over ``modules()``,
        # ``named_modules()``, a comprehension over ``children()``
        "import torch\ndef shard(model):\n    for m in model.modules():\n"
        "        if isinstance(m, torch.nn.Linear) and m.weight.requires_grad:\n            wrap(m)\n",
        "import torch\ndef shard(model):\n    for name, m in model.named_modules():\n"
        "        if m.bias is not None and m.bias.requires_grad:\n            wrap(name)\n",
        "import torch\ndef trained(model):\n    return [m for m in model.children() if m.weight.requires_grad]\n",
        # keeping a gradient for someone to read, and finding the first tensor that records
        "import torch\nclass P(torch.nn.Parameter):\n    def __init__(self, t):\n"
        "        if t.requires_grad:\n            self.retain_grad()\n",
        "import torch\ndef first_recording(outputs):\n    for data in outputs:\n"
        "        if data.requires_grad:\n            return data\n    return None\n",
        # whether a model trains, read from one of its parameters by a helper: a local, ``next``, an index
        "import torch\ndef requires_grad(m):\n    ps = list(m.parameters())\n"
        "    return ps[0].requires_grad if len(ps) > 0 else False\n"
        "def trains(m):\n    return next(m.parameters()).requires_grad\n"
        "def first(m):\n    return list(m.parameters())[0].requires_grad\n"
        "def init(m, func):\n    if requires_grad(m):\n        func(m)\n"
        "    if trains(m) or first(m):\n        func(m)\n",
        # parameters iterated through a local bound to a collection of them
        "import torch\ndef select(model, excluded):\n    allow = not_excluded_parameters(model, excluded)\n"
        "    result = []\n    for name, param in allow:\n        if param.requires_grad:\n"
        "            result.append((name, param))\n    return result\n",
        # collecting the names (keys) of what trains
        "import torch\ndef dynamic(point):\n    found = []\n    for name, vector in point.embeddings.items():\n"
        "        if vector.requires_grad:\n            found.append(name)\n    return found\n",
        "import torch\nif x.requires_grad:\n    raise ValueError('no grad')\n",
        # only registers gradient hooks that watch the gradient (torch refuses one on a tensor that
        # does not require grad)
        "import torch\ndef watch(x):\n    if x.requires_grad:\n"
        "        x.register_hook(lambda g: warn_if_nan(g, 'grad'))\n    return x * 2\n",
        "import torch\ndef watch(x, handles):\n    def _show(g):\n        print(g.norm())\n"
        "    needs = torch.is_tensor(x) and x.requires_grad\n"
        "    if needs:\n        handles.append(x.register_hook(_show))\n    return x\n",
        "import torch\ndef _tracked(x):\n    return x.requires_grad\ndef _seen(g):\n    log(g)\n    return g\n"
        "def watch(x):\n    if _tracked(x):\n        handle = x.register_hook(_seen)\n    return x\n",
        # only adds to the message of the error raised right after it
        "import torch\ndef f(x, impls, dim):\n    if dim not in impls:\n        msg = f'no {dim}'\n"
        "        if x.requires_grad:\n            msg += ' (try a reparam)'\n"
        "        raise NotImplementedError(msg)\n"
        "    return impls[dim](x)\n",
        "import torch\ndef f(x, impls, dim):\n    latent = x.requires_grad\n    if dim not in impls:\n"
        "        msg = 'missing'\n        if latent:\n            msg = msg + ' for a latent'\n"
        "        raise KeyError(msg)\n    return impls[dim](x)\n",
        "import torch\ndef _latent(x):\n    return x.requires_grad\ndef f(x, ok):\n    if not ok:\n"
        "        hint = ''\n        if _latent(x):\n            hint = ' (latent)'\n"
        "        raise ValueError('bad' + hint)\n    return x\n",
        # a custom Function's forward keeping what its backward needs on the context
        "import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, opt):\n"
        "        out = x * 2\n        if x.requires_grad:\n            ctx.opt = opt\n        return out\n",
        "import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, w):\n"
        "        needs = x.requires_grad or w.requires_grad\n        if needs:\n"
        "            ctx.save_for_backward(x, w)\n            ctx.scale = 2\n        return x * w\n",
        "import torch\nfrom torch.autograd import Function\nclass F(Function):\n    @staticmethod\n"
        "    def forward(ctx, x):\n        if getattr(x, 'requires_grad', False):\n            ctx.mark_dirty(x)\n"
        "        return x.mul_(2)\n",
        "import torch\ndef f(x):\n    g = getattr(x, 'grad', None)\n    return x if g is None else x - g\n",
        # ``self.requires_grad`` of a module: its constructor's setting, in a method that handles no grad
        "import torch\nclass Conv(torch.nn.Module):\n    def __init__(self, requires_grad=True):\n"
        "        super().__init__()\n        self.requires_grad = requires_grad\n"
        "    def reset_parameters(self):\n        if self.requires_grad:\n            self.beta.data.fill_(1)\n",
        "import torch\nclass Conv(torch.nn.Module):\n    def forward(self, x):\n"
        "        train = self.requires_grad and self.training\n        if train:\n            x = x * self.beta\n"
        "        return x\n",
        "import torch\nclass Conv(torch.nn.Module):\n    def scale(self):\n"
        "        return self.beta if self.requires_grad else self.one\n",
        "import torch\ndef f(x):\n    if x.requires_grad:\n        msg = f'no grad: {x.shape}'\n"
        "        raise ValueError(msg)\n    return x\n",
        "import torch\nclass G(torch.autograd.Function):\n    @staticmethod\n    def backward(ctx, grad):\n"
        "        if grad.requires_grad:\n            return grad * 2\n        return grad\n",
        "import torch\nfrom torch.autograd import Function\nclass G(Function):\n    @staticmethod\n"
        "    def backward(ctx, grad):\n        needed = grad.requires_grad and ctx.needs_input_grad[0]\n"
        "        return grad if needed else None\n",
        "import torch\ndef f(x):\n    if x.requires_grad:\n        x = x.detach()\n    return x * 2\n",
        "import torch\ndef f(x):\n    x = x.detach() if x.requires_grad else x\n    return x * 2\n",
        # ``.data`` detaches as ``.detach()`` does: inline, in a branch, before a copy
        "import torch\ndef f(value, tensor):\n    v = value.data if value.requires_grad else value\n"
        "    if tensor.requires_grad:\n        tensor = tensor.data\n"
        "    w = value.data.clone() if value.requires_grad else value.clone()\n    return v, tensor, w\n",
        "import torch\nclass Mean:\n    def add(self, v):\n        if v.requires_grad:\n"
        "            v = v.detach().clone()\n        self.v = v\n",
        "import torch\ndef keep(v):\n    return v.detach().cpu() if v.requires_grad else v\n",
        # arms that differ only by a .detach(), a hook the backward pass runs, names collected
        "import torch\ndef to_numpy(t):\n"
        "    return t.detach().cpu().numpy() if t.requires_grad else t.cpu().numpy()\n",
        "import torch\nclass G(torch.autograd.Function):\n    @staticmethod\n    def backward(ctx, grad):\n"
        "        def sync(p):\n            if not p.grad.requires_grad:\n                p.grad = p.grad / 2\n"
        "        ctx.hook = sync\n        return grad\n",
        "import torch\ndef trainable(tensors):\n    parameters, total = [], 0\n    for t in tensors:\n"
        "        if t.requires_grad:\n            parameters.append(t)\n        if t.cores[0].requires_grad:\n"
        "            total += t.cores[0].numel()\n    return parameters, total\n",
        "import torch\ndef no_weight_decay(self, n):\n    out = set()\n    for i in range(n):\n"
        "        pe = getattr(self, f'pos_embed_{i}', None)\n        if pe is not None and pe.requires_grad:\n"
        "            out.add(f'pos_embed_{i}')\n    return out\n",
        "import torch, logging\ndef setup(named):\n    for k, v in named.items():\n"
        "        if not v.requires_grad:\n            log = logging.getLogger(k)\n"
        "            log.warning(f'{k} is frozen')\n",
        "import torch\ndef _needs(x):\n    return x.requires_grad\ndef f(x):\n    if _needs(x):\n"
        "        x = x.detach()\n    return x\n",
        "import torch\ndef ema(model, shadow):\n    for p, s in zip(model.parameters(), shadow):\n"
        "        if p.requires_grad:\n            s.mul_(0.9).add_(p)\n",
        # parameters picked from a collection of them, and names listed by whether they train
        "import torch\ndef pairs(model, names, out):\n    params = dict(model.named_parameters())\n"
        "    for a, b in names:\n        pb = params.get(b)\n        if pb is not None and pb.requires_grad:\n"
        "            out.append(a)\n        if params[a].requires_grad:\n            out.append(b)\n",
        "import torch\ndef trainable(param_groups, key):\n    p = param_groups[0]['params'][key]\n"
        "    return 1 if p.requires_grad else 0\n",
        "import torch\nclass M:\n    def getparamnames(self, prefix=''):\n"
        "        return [prefix + 'w'] + ([prefix + 'bias'] if self.bias.requires_grad else [])\n",
        "import torch\ndef split(params):\n    grads = [p for p in params if p.requires_grad]\n"
        "    if len(grads) < len(params):\n        return grads\n    return params\n",
        "import torch\ndef make(n, requires_grad=False):\n    if requires_grad:\n        return torch.zeros(n)\n"
        "    return torch.ones(n)\n",
        "import torch\ndef wrap(data, requires_grad=None):\n    if requires_grad is None:\n"
        "        requires_grad = data.requires_grad\n"
        "    return torch.as_tensor(data).requires_grad_(requires_grad)\n",
        "import torch\nflag = x.requires_grad\n",
        "def is_grad_enabled():\n    return 1\nif is_grad_enabled():\n    pass\n",
        "import torch\ndef f(x):\n    recording = torch.is_grad_enabled()\n    recording = False\n"
        "    if recording:\n        pass\n",
        "import torch\ndef _size(x):\n    return x.numel()\nif _size(x):\n    pass\n",
        "import torch\nclass M:\n    def grow(self, n):\n"
        "        self.pos = torch.nn.Parameter(pad(self.pos, n), requires_grad=self.pos.requires_grad)\n"
        "    def forward(self, x):\n        if self.pos is not None:\n"
        "            x = x + self.pos\n        return x\n",
        "import torch\ndef _replace(p, data):\n    if p.device.type == 'meta':\n"
        "        return torch.nn.Parameter(data, requires_grad=data.requires_grad)\n    return p\n"
        "class L(torch.nn.Module):\n    def load(self, w):\n        self.weight = _replace(self.weight, w)\n"
        "    def reset(self):\n        if self.weight.dtype == torch.uint8:\n"
        "            raise ValueError('packed')\n"
        "        return self.weight.detach()\n",
        "import torch\ndef describe(t, text):\n    if t.requires_grad:\n"
        "        text = text[:-1] + ', requires_grad=True)'\n    else:\n        text += f' ({len(text)} chars)'\n"
        "    return text\n",
        "import torch\ndef f(x, n):\n    w = torch.zeros(n, requires_grad=x.requires_grad)\n"
        "    if w.numel() > 4:\n        return slow(x, w)\n    return fast(x, w)\n",
        # validation nested in the branch: every arm of the inner tests raises; directly, through a
        # local, through a helper of the file
        "import torch\ndef check(detach):\n    if not torch.is_grad_enabled():\n        if not detach:\n"
        "            raise ValueError('detach needs grad')\n    return detach\n",
        "import torch\ndef f(x, strict):\n    needs = x.requires_grad\n    if needs:\n        if strict:\n"
        "            msg = 'no grad'\n            raise ValueError(msg)\n        elif x.is_leaf:\n"
        "            raise TypeError('leaf')\n    return x * 2\n",
        "import torch\ndef _tracked(x):\n    return x.requires_grad\ndef f(x):\n    if _tracked(x):\n"
        "        if x.dim() != 3:\n            raise ValueError('3-d')\n        else:\n"
        "            raise TypeError('no grad')\n    return x * 2\n",
        # hooks that return nothing: a lambda calling a method or a function that returns nothing, a
        # method of the class, a ``functools.partial`` of a function
        "import torch\nclass E(torch.nn.Module):\n    def clear_cache(self):\n        self._cache.clear()\n"
        "    def forward(self, x):\n        if x.requires_grad:\n"
        "            x.register_hook(lambda grad: self.clear_cache())\n        return x\n",
        "import torch\nclass E(torch.nn.Module):\n    def _seen(self, grad):\n        self.count += 1\n"
        "    def forward(self, x):\n        if x.requires_grad:\n            x.register_hook(self._seen)\n"
        "        return x\n",
        "import torch\nfrom functools import partial\ndef _on_grad(loud, grad):\n    if loud:\n"
        "        print(grad.norm())\ndef _reset():\n    STATE.clear()\ndef f(x):\n    if x.requires_grad:\n"
        "        x.register_hook(partial(_on_grad, True))\n        x.register_hook(lambda g: _reset())\n"
        "    return x\n",
        # a branch that does nothing or only restores a flag: ``pass``, through a local, an attribute
        "import torch\ndef f(x):\n    if not torch.is_grad_enabled():\n        pass\n    return x * 2\n",
        "import torch\ndef forces(pos, energy):\n    did = pos.requires_grad\n    pos.requires_grad_(True)\n"
        "    out = energy(pos)\n    if not did:\n        pos.requires_grad_(False)\n    return out\n",
        "import torch\nclass M:\n    def run(self, fn):\n        was = self.x.requires_grad\n"
        "        y = fn(self.x)\n        if not was:\n            self.x.requires_grad = False\n"
        "        return y\n",
        # a parameter kept on an object under a name for one: directly, through a local, on ``self``
        "import torch\ndef upcast(module):\n    if module._flat_param.requires_grad:\n"
        "        module._flat_param.data = module._flat_param.data.float()\n",
        "import torch\ndef upcast(module):\n    param = module._flat_param\n"
        "    if param.dtype != torch.float32 and param.requires_grad:\n        module.upcast()\n",
        "import torch\nclass Centers(torch.nn.Module):\n    def init(self):\n"
        "        if not self._centers._params.requires_grad:\n            self._centers._params.mul_(2)\n",
        # a bare ``grad`` is a gradient tensor, not a flag
        "import torch\ndef step(grad, lr):\n    if grad is None:\n        return None\n    with torch.no_grad():\n"
        "        return grad * lr\n",
        # arms that differ by a ``.detach()`` only: assigned in if/else, returned then fallen through, nested
        "import torch\ndef to_numpy(e):\n    if isinstance(e, torch.Tensor):\n        if e.requires_grad:\n"
        "            e = e.cpu().detach().numpy()\n        else:\n            e = e.cpu().numpy()\n    return e\n"
        "def predict(model, x):\n    p = model(x)\n    if p.requires_grad:\n"
        "        return p.detach().cpu().numpy()\n    return p.cpu().numpy()\n",
        # a layer's weight or bias: through an attribute chain, a call, a local
        "import torch\ndef fusion_loss(model):\n    loss = 0.0\n    for m in model.modules():\n"
        "        if m.value.weight.requires_grad:\n            loss = loss + (m.value.weight - 1).sum()\n"
        "    if model.get_input_embeddings().weight.requires_grad:\n        loss = loss * 2\n"
        "    w = model.head.bias\n    if w.requires_grad:\n        loss = loss + w.sum()\n    return loss\n",
        # a layer's weight or bias read by name, directly, through a local, folded into a flag
        "import torch\ndef pairs(layers, out):\n    for a, b in zip(layers, layers[1:]):\n"
        "        if getattr(a, 'weight').requires_grad:\n            out.append(a)\n"
        "        bias = getattr(a, 'bias', None)\n        if bias is not None and bias.requires_grad:\n"
        "            out.append(b)\n        found = b.training and bias.requires_grad\n        if found:\n"
        "            out.append((a, b))\n",
        # a layer by an isinstance test around the read: nested, in the same test, through a local
        "import torch\nfrom torch import nn\ndef init(module):\n    if isinstance(module, nn.Embedding):\n"
        "        if module.weight.requires_grad:\n            module.weight.data.normal_()\n"
        "    if isinstance(module, (nn.Linear, nn.Conv2d)) and module.bias.requires_grad:\n"
        "        module.bias.data.zero_()\n    if isinstance(module, nn.LayerNorm):\n        w = module.weight\n"
        "        if w.requires_grad:\n            w.data.fill_(1.0)\n",
        # a parameter picked from a module's own table, when the module is there
        "import torch\ndef fused_ok(proj, params, name):\n    base = proj._modules.get('base_layer')\n"
        "    W = None if base is None else base._parameters.get('weight')\n"
        "    if W is not None and W.requires_grad:\n"
        "        return False\n    B = base._parameters.get('bias') if base is not None else None\n"
        "    if B is not None and B.requires_grad:\n        return False\n"
        "    p = params.get(name) if params else None\n    return not (p is not None and p.requires_grad)\n",
        # a branch that only reports through a helper named for it: the project's, an imported one, a method
        "import torch\nfrom .dist import rank_zero_warn\ndef _print_rank0(message):\n    print(message)\n"
        "class Wrap:\n    def setup(self, ignored):\n        kept = [p for p in ignored if p.requires_grad]\n"
        "        if kept:\n            n = len(kept)\n            _print_rank0(f'{n} trainable kept')\n"
        "        if any(p.requires_grad for p in ignored):\n            rank_zero_warn('some train')\n"
        "        if kept[0].requires_grad:\n            self.log_once('first trains')\n",
        # arms equal but for a ``.detach()`` of each element: a tuple, a list, returned
        "import torch\ndef fake(a, b, requires_grad: bool):\n    if requires_grad:\n        data = (a, b)\n"
        "    else:\n        data = (a.detach(), b.detach())\n    return data\n"
        "def fake_list(a, b, requires_grad: bool):\n    if requires_grad:\n        out = [a, b * 2]\n"
        "    else:\n        out = [a.detach(), b * 2]\n    return out\n"
        "def pair(a, b, requires_grad: bool):\n    if not requires_grad:\n        return a.detach(), b.detach()\n"
        "    return a, b\n",
        # a parameter named for autograd that holds something else: patterns of names to freeze
        "import torch\nfrom typing import List, Sequence\ndef freeze(model, no_grad: List[str] = None):\n"
        "    if no_grad:\n        model = model.detach()\n    return model\n"
        "def freeze_some(model, requires_grad: Sequence[str]):\n    if requires_grad:\n"
        "        model = model.detach()\n    return model\n"
        "def freeze_all(model, no_grad=()):\n    if no_grad:\n        model = model.detach()\n    return model\n",
    )
    invalid = (
        Invalid(  # a flag declared a bool, also in text; a helper's name that computes (``log_softmax``)
            "import torch\ndef f(x, requires_grad: 'bool'):\n    if requires_grad:\n        return slow(x)\n"
            "    return x.detach()\ndef g(x, no_grad: Optional[bool] = None):\n    if no_grad:\n"
            "        return x.detach()\n    return slow(x)\ndef h(x):\n    if x.requires_grad:\n"
            "        log_softmax(x)\n    return x\n",
            ((3, 8), (7, 8), (11, 8)),
        ),
        Invalid(  # a weight of a plain name with no isinstance test of a layer; arms that differ otherwise
            "import torch\nfrom torch import nn\ndef f(module, x):\n    if isinstance(x, nn.Linear):\n"
            "        pass\n    if module.weight.requires_grad:\n        x = slow(x)\n    return x\n"
            "def g(a, b, requires_grad: bool):\n    if requires_grad:\n        data = (a, b)\n    else:\n"
            "        data = (a.detach(), b.sum())\n    return data\n",
            ((6, 8), (10, 8)),
        ),
        Invalid(  # a value dropped in the forward that the output is then computed from
            "import torch\nclass Op(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, X, Y):\n"
            "        if not Y.requires_grad:\n            X = None\n        ctx.save_for_backward(X)\n"
            "        return Y * 2 if X is None else X * Y\n",
            ((5, 16),),
        ),
        Invalid(  # the weight of each item of a plain list may be a kernel's own tensor
            "import torch\ndef f(items, x):\n    for m in items:\n        if m.weight.requires_grad:\n"
            "            x = fused(x)\n    return x\n",
            ((4, 12),),
        ),
        Invalid(  # a ``grad`` parameter declared a bool: annotated, defaulted, as the test of an if
            "import torch\nfrom contextlib import nullcontext\nclass M:\n"
            "    def predict(self, x, grad: bool = False):\n"
            "        ctx = torch.no_grad() if not grad else nullcontext()\n        with ctx:\n"
            "            return self.model(x)\ndef f(model, x, gradients=False):\n    if not gradients:\n"
            "        with torch.no_grad():\n            return model(x)\n    return model(x)\n",
            ((5, 38), (9, 12)),
        ),
        Invalid(  # ways that differ by more than a ``.detach()``: other work, another target
            "import torch\ndef f(model, x):\n    p = model(x)\n    if p.requires_grad:\n"
            "        return p.detach().cpu().numpy()\n    return p.cpu().numpy() * 2\n"
            "def g(x):\n    if x.requires_grad:\n        y = x.detach().sum()\n    else:\n        z = x.sum()\n"
            "    return x\n",
            ((4, 8), (8, 8)),
        ),
        Invalid(  # a weight kept on ``self`` by a kernel: its own tensor, whose flag picks a route
            "import torch\nclass Warp:\n    def __call__(self, x):\n        if self.weight.requires_grad:\n"
            "            return slow(x, self.weight)\n        return fast(x, self.weight)\n",
            ((4, 12),),
        ),
        Invalid(  # turning recording on in the branch: what follows records a graph
            "import torch\ndef f(x, model):\n    if not x.requires_grad:\n        x.requires_grad_()\n"
            "    if x.requires_grad is False:\n        x.requires_grad = True\n    return model(x)\n",
            ((3, 12), (5, 8)),
        ),
        Invalid(  # an inner test that raises on one arm and works on the other; a hook that scales the
            # gradient it is given; a buffer that is not named for a parameter
            "import torch\ndef f(x, strict):\n    if x.requires_grad:\n        if strict:\n"
            "            raise ValueError('no grad')\n        x = slow(x)\n    return x * 2\n"
            "class E(torch.nn.Module):\n    def scaled(self, g):\n        return g * 2\n"
            "    def forward(self, x):\n        if x.requires_grad:\n"
            "            x.register_hook(lambda grad: self.scaled(grad))\n"
            "        if self.state.buffer.requires_grad:\n            return slow(x)\n        return x\n",
            ((3, 8), (12, 12), (14, 12)),
        ),
        Invalid(  # a branch that returns something else than what it tested
            "import torch\ndef f(outputs, x):\n    for data in outputs:\n"
            "        if data.requires_grad:\n            return data * x\n    return x\n",
            ((4, 12),),
        ),
        Invalid(  # a helper's flag of a plain item, a loop over a plain local, a tensor collected
            "import torch\ndef _first(x):\n    ys = list(x)\n    return ys[0].requires_grad\n"
            "def f(x, rows):\n    if _first(x):\n        return x.detach()\n    allow = list(rows)\n"
            "    for r in allow:\n        if r.requires_grad:\n            x = x + r\n"
            "    for name, vector in rows.items():\n        if vector.requires_grad:\n"
            "            x.append(vector)\n"
            "    return x\n",
            ((6, 8), (10, 12), (13, 12)),
        ),
        Invalid(  # a tensor picked from a table of other things; an arm that is a value, not a name
            "import torch\ndef route(x, table):\n    w = table.get('w')\n    if w.requires_grad:\n"
            "        return slow(x)\n    return x if not x.requires_grad else ['x']\n",
            ((4, 8), (6, 21)),
        ),
        Invalid(
            "import torch\ndef f(x):\n    rows = x.unbind(0) if x.requires_grad else None\n"
            "    if rows is None:\n        return fast(x)\n    return slow(rows)\n",
            ((3, 27), (4, 8)),
        ),
        Invalid(
            "import torch\ndef f(x):\n    needs = torch.zeros(1, requires_grad=x.requires_grad).requires_grad\n"
            "    if needs:\n        return slow(x)\n    return x\n",
            ((4, 8),),
        ),
        Invalid(
            "import torch\ndef f(x, w):\n"
            "    keep = torch.nn.Parameter(w, requires_grad=x.requires_grad or w.requires_grad)\n"
            "    if keep.requires_grad:\n        return slow(x)\n    return x\n",
            ((4, 8),),
        ),
        Invalid("import torch\nif x.requires_grad:\n    y = slow(x)\n", ((2, 4),)),
        Invalid(
            "import torch, warnings\ndef f(x):\n    if x.requires_grad:\n        warnings.warn('slow')\n"
            "    else:\n        x = fast(x)\n    return x\n",
            ((3, 8),),
        ),
        Invalid("import torch\ndef f(x):\n    return x.detach().mul(2) if x.requires_grad else x\n", ((3, 33),)),
        Invalid(
            "import torch\ndef f(t):\n    a = t.detach().cpu().numpy() if t.requires_grad else t.numpy()\n"
            "    def hook(p):\n        if p.requires_grad:\n            return p * 2\n        return p\n"
            "    if t.requires_grad:\n        out.add(t)\n    return a, hook\n",
            ((3, 37), (5, 12), (8, 8)),
        ),
        Invalid("import torch\ny = a(x) if torch.is_grad_enabled() else b(x)\n", ((2, 13),)),
        Invalid(
            "from torch import is_inference_mode_enabled as inf\nif not inf():\n    y = slow(x)\n",
            ((2, 8),),
        ),
        Invalid(
            "import torch\ndef f(x):\n    recording = torch.is_grad_enabled()\n    if recording:\n"
            "        return slow(x)\n    return fast(x)\n",
            ((4, 8),),
        ),
        Invalid(
            "import torch\ndef _needs_graph(x):\n    return x.requires_grad\ndef f(x):\n"
            "    if _needs_graph(x):\n        return slow(x)\n",
            ((5, 8),),
        ),
        Invalid(
            "import torch\nif a.requires_grad or b.requires_grad and torch.is_grad_enabled():\n    y = slow(a)\n",
            ((2, 4),),
        ),
        Invalid(
            "import torch\ndef f(x, training):\n    needs = x.requires_grad and training\n    y = x * 2\n"
            "    if needs:\n        return slow(y)\n    return y\n",
            ((5, 8),),
        ),
        Invalid(
            "import torch\nclass M:\n    def __init__(self, w):\n        self.graph = w.requires_grad\n"
            "    def forward(self, x):\n        if self.graph:\n            return slow(x)\n        return x\n",
            ((6, 12),),
        ),
        Invalid(
            "import torch\ndef f(x, requires_grad=False):\n    if requires_grad:\n        return slow(x)\n"
            "    with torch.no_grad():\n        return fast(x)\n",
            ((3, 8),),
        ),
        Invalid(
            "import torch\ndef f(x, differentiable: bool):\n"
            "    grad_route = differentiable and x.is_floating_point()\n"
            "    return slow(x) if grad_route else fast(x.detach())\n",
            ((4, 23),),
        ),
        Invalid(  # a flag asking to skip gradients picks the route as well: directly and through a local
            "import torch\nclass FID:\n    def features(self, x, no_grad=True):\n        if no_grad:\n"
            "            with torch.no_grad():\n                return self.net(x)\n"
            "        else:\n            return self.net(x)\n",
            ((4, 12),),
        ),
        Invalid(
            "import torch\ndef embed(net, x, track_grads: bool, train: bool):\n    keep = track_grads and train\n"
            "    if not keep:\n        x = x.detach()\n        return net(x).detach()\n    return net(x)\n",
            ((4, 12),),
        ),
        Invalid(  # the flag read by name, in a conditional expression, a local and a helper
            "import torch\ndef mul_(x, y):\n"
            "    return x.mul(y) if getattr(y, 'requires_grad', False) else x.mul_(y)\n",
            ((3, 24),),
        ),
        Invalid(
            "import torch\ndef scale(c, d):\n    tracked = getattr(d, 'requires_grad', False)\n    if tracked:\n"
            "        return c.clone() * d\n    return c.mul_(d)\n",
            ((4, 8),),
        ),
        Invalid(
            "import torch\ndef _tracked(t):\n    return getattr(t, 'requires_grad', False)\ndef scale(c, d):\n"
            "    if _tracked(d):\n        return c.clone() * d\n    return c.mul_(d)\n",
            ((5, 8),),
        ),
        Invalid(  # a forward that also computes in the branch, and a module's forward keeping state
            "import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, opt):\n"
            "        if x.requires_grad:\n            ctx.opt = opt\n            x = x.double()\n"
            "        return x * 2\n",
            ((5, 12),),
        ),
        Invalid(
            "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        if x.requires_grad:\n"
            "            self.cache = x\n        return x * 2\n",
            ((4, 12),),
        ),
        Invalid(  # a hook that returns a new gradient is a backward route
            "import torch\ndef fixed_point(x, solve):\n    def hook(g):\n        return solve(g)\n"
            "    if x.requires_grad:\n        x.register_hook(hook)\n    return x\n",
            ((5, 8),),
        ),
        Invalid(  # registers a hook, then runs another route
            "import torch\ndef watch(x):\n    if x.requires_grad:\n        x.register_hook(print)\n"
            "        return slow(x)\n    return x * 2\n",
            ((3, 8),),
        ),
        Invalid(  # an ``elif`` binding what the route returns
            "import torch\ndef f(x, dim):\n    if dim > 3:\n        y = x\n    elif x.requires_grad:\n"
            "        y = slow(x)\n    return y\n",
            ((5, 10),),
        ),
        Invalid(  # the name the branch binds picks the route, not an error message
            "import torch\ndef f(x):\n    mode = 'eager'\n    if x.requires_grad:\n        mode = 'graph'\n"
            "    return run(x, mode)\n",
            ((4, 8),),
        ),
        Invalid(  # a module's setting choosing a route in a method that handles grad
            "import torch\nclass Conv(torch.nn.Module):\n    def forward(self, x):\n"
            "        if self.requires_grad:\n            return slow(x)\n        with torch.no_grad():\n"
            "            return fast(x)\n",
            ((4, 12),),
        ),
        Invalid(  # in a tensor subclass, ``self.requires_grad`` is the tensor's own autograd state
            "import torch\nclass Volume(torch.Tensor):\n    def warp(self):\n        if self.requires_grad:\n"
            "            return slow(self)\n        return fast(self)\n",
            ((4, 12),),
        ),
        Invalid(
            "import torch\nfrom contextlib import nullcontext\nclass T(torch.nn.Module):\n"
            "    def __init__(self, module, no_grad=False):\n        self.module, self.no_grad = module, no_grad\n"
            "    def forward(self, x):\n        with torch.no_grad() if self.no_grad else nullcontext():\n"
            "            return self.module(x)\n    def run(self, x):\n        if self.no_grad:\n"
            "            return self.module(x.detach())\n        return self.module(x)\n",
            ((7, 33), (10, 12)),
        ),
        Invalid(
            "import torch\nclass M:\n    def backward(self, grad):\n        if grad.requires_grad:\n"
            "            return grad * 2\n        return grad\n",
            ((4, 12),),
        ),
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._state_names: list[set[str]] = [set()]  # per function: locals holding autograd state
        #: Per function: parameters asking for autograd (``requires_grad``), and locals folded from them.
        self._flags: list[set[str]] = [set()]
        self._watches: bool | None = None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._state_names.append(set())
        self._flags.append({p.name.value for p in parameters(node) if _is_grad_flag(self.ctx, p)})

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._state_names.pop()
        self._flags.pop()

    def leave_Assign(self, node: cst.Assign) -> None:
        """After the right-hand side is read, a name bound to autograd state holds it."""
        for target in node.targets:
            self._bind(target.target, node.value)

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)

    def leave_AugAssign(self, node: cst.AugAssign) -> None:
        """``needs |= x.requires_grad`` folds more state in; it never takes any out."""
        if self._reads(node.value):
            self._bind(node.target, node.value)

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind(node.target, node.value)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if not self._flags[-1] and not self._watching():
            return  # nothing is tracked, so nothing can be bound or unbound
        pairs = [(target, value)]
        if isinstance(target, cst.Tuple | cst.List) and isinstance(value, cst.Tuple | cst.List):
            if len(target.elements) == len(value.elements):
                pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements, strict=True)]
        flags = self._flags[-1]
        for name, part in pairs:
            if isinstance(name, cst.Name) and flags:
                reads_flag = any(isinstance(n, cst.Name) and n.value in flags for n in walk(part))
                (flags.add if reads_flag else flags.discard)(name.value)
            if isinstance(name, cst.Name | cst.Attribute):
                key, reads = source_of(name), self._reads(part) and not _copies_flag_into_tensor(part)
                (self._state_names[-1].add if reads else self._state_names[-1].discard)(key)
                if isinstance(name, cst.Attribute):  # ``self.needs_graph``: read by other methods too
                    (self._state_names[0].add if reads else self._state_names[0].discard)(key)

    def _reads(self, value: cst.BaseExpression) -> bool:
        return self._watching() and self._first_read(value) is not None

    def _watching(self) -> bool:
        """Whether the file can read autograd state at all: it mentions it, or calls a project
        function that returns it (asked once per file, so most files skip the work)."""
        if self._watches is None:
            self._watches = self.ctx.mentions(_STATE_TEXT) or "grad-flag" in self.ctx.kernel.returns.values()
        return self._watches

    def visit_If(self, node: cst.If) -> None:
        if only_rejects(node.body) or (only_detaches(node.body) and _detaches_or_nothing(node.orelse)):
            return
        if arms_differ_by_detach(node, lambda: self._next_statement(node)):
            return  # ``if x.requires_grad: y = x.detach().numpy() else: y = x.numpy()``: one route
        if only_extends_text(node.body) and _extends_text_or_nothing(node.orelse):
            return  # ``text += ", requires_grad=True)"`` describes the tensor; it routes nothing
        if node.orelse is None and (
            only_reports(node.body)
            or only_collects_names(node.body)
            or only_tallies_parameters(node.body)
            or only_registers_observers(self.ctx, node.body)
            or only_sets_grad_flags(node.body)
        ):
            return  # ``if not p.requires_grad: logger.warning(...)`` tells, it routes nothing
        if self.ctx.parent is not None and only_amends_a_raise(node, self.ctx.parent):
            return
        if node.orelse is None and only_keeps_for_backward(self.ctx, node.body):
            return
        if node.orelse is None and only_returns_tested(node.test, node.body):
            return
        self._check_test(node.test)

    def _next_statement(self, node: cst.If) -> cst.BaseStatement | None:
        """The statement after ``node`` in its block, if any."""
        block = self.ctx.parent
        lines = list(block.body) if isinstance(block, cst.IndentedBlock | cst.Module) else []
        index = next((i for i, line in enumerate(lines) if line is node), None)
        return lines[index + 1] if index is not None and index + 1 < len(lines) else None

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if not is_detached_form(node) and not (_names_only(node.body) and _names_only(node.orelse)):
            self._check_test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._check_test(node.test)

    def _check_test(self, test: cst.BaseExpression) -> None:
        """One finding per test, however many autograd reads it combines."""
        if in_custom_backward(self.ctx):
            return
        flag = self._flag_route(test)
        if isinstance(flag, cst.Attribute):
            self.report(flag, what=source_of(flag), via=", a setting asking for autograd,")
            return
        if flag is not None:
            function = self.ctx.enclosing_function()
            own = function is not None and flag.value in {p.name.value for p in parameters(function)}
            via = ", a parameter asking for autograd," if own else ", which holds a parameter asking for autograd,"
            self.report(flag, what=flag.value, via=via)
            return
        if not self._watching():
            return
        names = self._state_names[-1] | self._state_names[0]
        found = self._first_read(test, names=names)
        if found is not None:
            node, what, via = found
            self.report(node, what=what, via=via)

    def _flag_handles_grad(self) -> bool:
        function = self.ctx.enclosing_function()
        return function is not None and _handles_grad(self.ctx, function.body)

    def _flag_route(self, test: cst.BaseExpression) -> cst.Name | cst.Attribute | None:
        """``if requires_grad:`` on a parameter named for autograd (or a local folded from one), or
        ``if self.no_grad:`` on such a setting of a module, in a function that handles grad on some
        path (records, detaches, or runs under ``no_grad``): the caller's flag chooses between a
        graph-preserving route and an eager one."""
        flags = self._flags[-1]
        flag = next(
            (
                n
                for n in in_source_order(test)
                if (isinstance(n, cst.Name) and n.value in flags)
                or (
                    isinstance(n, cst.Attribute)
                    and GRAD_FLAG_NAME.search(n.attr.value)
                    and _is_setting(self.ctx, n)
                )
            ),
            None,
        )
        function = self.ctx.enclosing_function()
        if flag is None or function is None or _tests_for_none(test):
            return None
        return flag if self._flag_handles_grad() else None

    def _first_read(
        self, expression: cst.BaseExpression, names: set[str] = frozenset()
    ) -> tuple[cst.CSTNode, str, str] | None:
        ctx = self.ctx
        for found in in_source_order(expression):
            if isinstance(found, cst.Attribute) and found.attr.value == "requires_grad":
                if _is_setting(ctx, found):
                    if self._flag_handles_grad():
                        return found, source_of(found), ", a setting asking for autograd,"
                    continue
                if ctx.imports_torch and ctx.qualname(found) is None and not _of_parameter(ctx, found, expression):
                    return found, ".requires_grad", ""
                if source_of(found) in names:
                    return found, source_of(found), ", which holds autograd state,"
            elif isinstance(found, cst.Attribute) and source_of(found) in names:
                return found, source_of(found), ", which holds autograd state,"
            elif isinstance(found, cst.Call):
                qualname = ctx.qualname(found.func)
                if _reads_flag_by_name(ctx, found):  # ``getattr(y, "requires_grad", False)``
                    return found, source_of(found), ""
                if qualname in _GRAD_STATE_CALLS:
                    return found, f"{qualname}()", ""
                if _returns_grad_flag(ctx, found.func, qualname):
                    shown = source_of(found.func)
                    return found, f"{shown}()", ", which returns autograd state,"
            elif isinstance(found, cst.Name) and found.value in names:
                return found, found.value, ", which holds autograd state,"
        return None


def _is_setting(ctx, read: cst.Attribute) -> bool:
    """``self.requires_grad`` (or another attribute named for autograd: ``self.no_grad``) in a class that
    is no tensor (an ``nn.Module`` storing its constructor's argument): a setting of the object, like
    a parameter named for autograd, and not any tensor's autograd state."""
    if not (isinstance(read.value, cst.Name) and read.value.value == "self"):
        return False
    owner = next((node for node in reversed(ctx.ancestors) if isinstance(node, cst.ClassDef)), None)
    return owner is not None and not any(
        "Tensor" in (ctx.qualname(base.value) or source_of(base.value)) or "Parameter" in source_of(base.value)
        for base in owner.bases
    )


def _reads_flag_by_name(ctx, call: cst.Call) -> bool:
    """``getattr(y, "requires_grad", False)``: the builtin reading a tensor's flag by its name."""
    func = call.func
    return (
        isinstance(func, cst.Name)
        and func.value == "getattr"
        and ctx.qualname(func) is None
        and len(call.args) >= 2
        and string_value(call.args[1].value) == "requires_grad"
    )


def _copies_flag_into_tensor(value: cst.BaseExpression) -> bool:
    """``nn.Parameter(t, requires_grad=p.requires_grad)``: the flag only configures the tensor the
    call makes, so the bound name holds that tensor, not autograd state to branch on later."""
    flag = keyword(value, "requires_grad") if isinstance(value, cst.Call) else None
    return flag is not None and not any(
        isinstance(n, cst.Attribute) and n.attr.value == "requires_grad"
        for arg in value.args
        if arg is not flag
        for n in walk(arg)
    )


def _tests_for_none(test: cst.BaseExpression) -> bool:
    """``if requires_grad is None:`` fills in a default; it chooses no route."""
    return isinstance(test, cst.Comparison) and all(
        isinstance(target.operator, cst.Is | cst.IsNot) and is_literal(target.comparator, "None")
        for target in test.comparisons
    )


def _returns_grad_flag(ctx, func: cst.BaseExpression, qualname: str | None) -> bool:
    """A project function that returns autograd state: one of this file's, or one the kernel map
    says returns a ``requires_grad``/grad-mode read (another module's, say)."""
    if qualname is not None:
        return ctx.kernel.returns.get(qualname) == "grad-flag"
    if isinstance(func, cst.Name):
        return (
            _is_state_helper(ctx, func.value)
            or ctx.kernel.returns.get(f"{ctx.module_name}.{func.value}") == "grad-flag"
        )
    return False


def _names_only(node: cst.BaseExpression) -> bool:
    """Text or a list of texts (``[prefix + "bias"]``, ``[]``): an arm that only names things, as when
    a module lists the names of its trainable parameters; picking it routes no tensor work."""
    if isinstance(node, cst.List | cst.Tuple):
        return all(_names_only(element.value) for element in node.elements)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        sides = (node.left, node.right)
        text = [side for side in sides if isinstance(side, cst.SimpleString | cst.FormattedString)]
        return bool(text) and all(isinstance(side, cst.Name) or any(side is t for t in text) for side in sides)
    return isinstance(node, cst.SimpleString | cst.FormattedString | cst.ConcatenatedString)


def _picked_from_parameters(ctx, value: cst.BaseExpression) -> bool:
    """``params[name]`` or ``params.get(name)`` of a collection of parameters, directly or through
    the name it was bound to."""
    if isinstance(value, cst.Name):
        value = _unless_none(bound_value(ctx, value))
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "get":
        collection = value.func.value
    elif isinstance(value, cst.Subscript):
        collection = value.value
    else:
        return False
    # a collection spelt by names and items only (``params``, ``group["params"]``): a call result
    # that merely reads some ``params`` argument is not one
    calls = any(isinstance(node, cst.Call) for node in walk(collection))
    return not calls and is_parameter_collection(ctx, collection)


def _unless_none(value: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """``None if base is None else base._parameters.get("weight")``: the value when there is one."""
    if isinstance(value, cst.IfExp):
        if is_literal(value.body, "None"):
            return value.orelse
        if is_literal(value.orelse, "None"):
            return value.body
    return value


def _of_parameter(ctx, read: cst.Attribute, within: cst.BaseExpression) -> bool:
    """``p.requires_grad`` on a learnable parameter being iterated (by a loop around the test, or a
    comprehension inside it), or picked from a collection of them (``p = params.get(name)``,
    ``params[name]``): freezing and bookkeeping of parameters, not a route."""
    if _picked_from_parameters(ctx, read.value):
        return True
    receiver = bound_value(ctx, read.value) if isinstance(read.value, cst.Name) else read.value
    if isinstance(receiver, cst.Attribute) and _PARAMETER_ATTRIBUTE.search(receiver.attr.value):
        return True  # ``module._flat_param``, ``self._centers._params``: a parameter kept on an object
    if is_layer_tensor(ctx, receiver):
        return True  # ``fusion.value.weight``: a layer's learned tensor
    function = ctx.enclosing_function()
    if receiver is not None and function is not None and _parameter_picks(ctx, function)(receiver):
        return True  # ``next(adapter.parameters())``: whether a model trains
    if not isinstance(read.value, cst.Name):
        return False
    name = read.value.value
    if is_parameter_loop_variable(ctx, name):
        return True
    return any(
        isinstance(loop, cst.CompFor) and _binds(loop.target, name) and is_parameter_collection(ctx, loop.iter)
        for loop in walk(within)
    )


def _is_grad_flag(ctx, param: cst.Param) -> bool:
    """A parameter named for autograd (``requires_grad``, ``no_grad``, ``wrt_x``), or named ``grad``
    or ``gradient(s)`` and declared a bool (``grad: bool = False``, or a ``True``/``False`` default):
    a caller's choice between recording and not, where a bare ``grad`` is usually a gradient tensor."""
    name = param.name.value
    annotation = param.annotation.annotation if param.annotation is not None else None
    default = param.default
    if _declared_no_flag(annotation, default):
        return False  # ``no_grad: List[str] = None``: patterns of parameters to freeze, not a switch
    if GRAD_FLAG_NAME.search(name):
        return True
    if name.lower() not in ("grad", "grads", "gradient", "gradients"):
        return False
    boolean = isinstance(annotation, cst.Name) and annotation.value == "bool"
    return boolean or (default is not None and (is_literal(default, "True") or is_literal(default, "False")))


def _declared_no_flag(annotation: cst.BaseExpression | None, default: cst.BaseExpression | None) -> bool:
    """An annotation that does not mention ``bool`` (``List[str]``, ``Sequence[str]``), or a default
    that is a collection or text (``()``, ``[]``, ``"all"``): the parameter holds something else than
    a yes-or-no wish for gradients."""
    if annotation is not None:
        return not any(
            (isinstance(n, cst.Name) and n.value == "bool")
            or (isinstance(n, cst.SimpleString) and "bool" in n.value)
            for n in walk(annotation)
        )
    return isinstance(default, cst.List | cst.Tuple | cst.Set | cst.Dict | cst.SimpleString | cst.FormattedString)


def _binds(target: cst.BaseExpression, name: str) -> bool:
    return any(isinstance(node, cst.Name) and node.value == name for node in walk(target))


def _detaches_or_nothing(orelse: cst.If | cst.Else | None) -> bool:
    return orelse is None or (isinstance(orelse, cst.Else) and only_detaches(orelse.body))


def _extends_text_or_nothing(orelse: cst.If | cst.Else | None) -> bool:
    return orelse is None or (isinstance(orelse, cst.Else) and only_extends_text(orelse.body))


def _handles_grad(ctx, arm: cst.CSTNode) -> bool:
    for node in walk(arm):
        if isinstance(node, cst.Call):
            qualname = ctx.qualname(node.func) or ""
            if qualname in _GRAD_HANDLERS or qualname.startswith("torch.autograd."):
                return True
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("detach", "requires_grad_"):
                return True
    return False


def _is_state_helper(ctx, name: str) -> bool:
    """Whether ``name`` is a module-level function of this file that returns autograd state;
    each function is analysed once, and only when something calls it in a test or binding."""
    key = ("grad-state-helper", id(ctx.module), name)
    found = ctx.facts.get(key)
    if found is None:
        functions = ctx.facts.get(("module-functions", id(ctx.module)))
        if functions is None:
            functions = ctx.facts[("module-functions", id(ctx.module))] = {
                statement.name.value: statement
                for statement in ctx.module.body
                if isinstance(statement, cst.FunctionDef)
            }
        function = functions.get(name)  # type: ignore[union-attr]
        found = ctx.facts[key] = function is not None and _returns_state(ctx, function)
    return found  # type: ignore[return-value]


def _parameter_picks(ctx, function: cst.FunctionDef) -> Callable[[cst.BaseExpression], bool]:
    """A test of whether an expression is one of a model's parameters, picked in ``function``:
    ``ps[0]`` after ``ps = list(m.parameters())``, or ``next(m.parameters())``. A helper returning
    such a parameter's flag tells whether the model trains (bookkeeping), not a tensor's state."""
    collections = {
        target.target.value
        for node in walk(function.body, into_functions=False)
        if isinstance(node, cst.Assign) and is_parameter_collection(ctx, node.value, through_local=False)
        for target in node.targets
        if isinstance(target.target, cst.Name)
    }

    def picks(receiver: cst.BaseExpression) -> bool:
        if isinstance(receiver, cst.Subscript):
            receiver = receiver.value
        elif (
            isinstance(receiver, cst.Call)
            and isinstance(receiver.func, cst.Name)
            and receiver.func.value == "next"
        ):
            receiver = receiver.args[0].value if receiver.args else receiver
        else:
            return False
        if isinstance(receiver, cst.Name):
            return receiver.value in collections
        return isinstance(receiver, cst.Call) and is_parameter_collection(ctx, receiver, through_local=False)

    return picks


def _returns_state(ctx, function: cst.FunctionDef) -> bool:
    """A ``return`` whose value reads autograd state. A read passed as a call's ``requires_grad=``
    argument (``return nn.Parameter(data, requires_grad=data.requires_grad)``) only configures the
    tensor returned, as in `_copies_flag_into_tensor`."""
    for node in walk(function.body, into_functions=False):
        if isinstance(node, cst.Return) and node.value is not None:
            settings = {
                id(part)
                for arg in walk(node.value)
                if isinstance(arg, cst.Arg) and arg.keyword is not None and arg.keyword.value == "requires_grad"
                for part in walk(arg.value)
            }
            picks = _parameter_picks(ctx, function)
            for part in walk(node.value):
                if id(part) in settings:
                    continue
                if isinstance(part, cst.Attribute) and part.attr.value == "requires_grad":
                    if not picks(part.value):
                        return True
                    continue
                if isinstance(part, cst.Call) and _reads_flag_by_name(ctx, part):
                    return True
                if isinstance(part, cst.Call) and ctx.qualname(part.func) in _GRAD_STATE_CALLS:
                    return True
    return False
