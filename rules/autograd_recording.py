"""TPL001: a primitive that makes torch record autograd."""

from __future__ import annotations

import re
from collections.abc import Callable

import libcst as cst

from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.bookkeeping import (
    derives_from_autograd_function,
    is_layer_tensor,
    is_parameter_loop_variable,
)
from torchperf_lint.toolkit.exemptions import test_files
from torchperf_lint.toolkit.functions import parameters
from torchperf_lint.toolkit.matching import (
    conjuncts,
    is_literal,
    isinstance_test,
    keyword,
    method_name,
    positional,
    self_attribute,
    source_of,
    string_value,
    walk,
)
from torchperf_lint.toolkit.traversal import in_source_order
from torchperf_lint.toolkit.types import bound_value
from torchperf_lint.vocabulary import AUTOGRAD_FUNCTIONS, GRAD_FLAG_NAME, SET_GRAD_ENABLED

_ENABLING_CALLS = {
    "torch.enable_grad": ("torch.enable_grad", "turns autograd recording on"),
    "torch.autograd.enable_grad": ("torch.enable_grad", "turns autograd recording on"),
    "torch.autograd.grad_mode.enable_grad": ("torch.enable_grad", "turns autograd recording on"),
    "torch.autograd.grad": ("torch.autograd.grad", "runs a backward pass"),
    "torch.autograd.backward": ("torch.autograd.backward", "runs a backward pass"),
}
#: ``torch.enable_grad`` under each name torch exports it by.
_ENABLE_GRAD = frozenset(name for name, (shown, _) in _ENABLING_CALLS.items() if shown == "torch.enable_grad")
#: Methods that make a new tensor like the one they are called on; only tensors have them.
_NEW_TENSOR_METHODS = frozenset({"new_zeros", "new_ones", "new_full", "new_empty", "new_tensor"})
#: Learnable parameters: ``requires_grad=True`` on them (or on the tensor they wrap) is their default.
_PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
#: Names given to a model or one of its parts (``model``, ``text_model``, ``net``, ``backbone``).
_MODEL_NAME = re.compile(r"(?:^|_)(?:model|module|net|network|backbone)$")
#: Names a function gives the one model parameter it is handed (``def unfreeze(param):``).
_PARAMETER_NAMES = frozenset({"param", "parameter"})
_TURNS_ON = "can turn autograd recording on"


class AutogradRecording(Rule):
    code = "TPL001"
    fix_safety = (
        "No fix: dropping `requires_grad=True` or a `.backward()` changes what the caller can "
        "train, and the right place for `torch.no_grad()` is a judgement about the whole route."
    )
    name = "autograd-recording"
    hint = "Drop requires_grad/backward from the primitive; run its body under torch.no_grad()."
    summary = "Code that makes torch record autograd or run a backward pass"
    message = "`{what}` {effect}; kernel code runs without autograd"
    why = (
        "A primitive is a pure eager kernel. Recording autograd makes every operation keep its "
        "inputs alive for a backward pass nobody asked for, which costs memory and time on every "
        "call. Callers that need gradients own that choice; the kernel must not make it for them."
    )
    example = "grid = torch.zeros(3, requires_grad=True)"
    use_instead = "grid = torch.zeros(3)"
    notes = (
        "Flagged anywhere in the linted files, since a kernel package has no business building a "
        "graph: `requires_grad=True` on a torch factory or on a tensor's own (`x.new_zeros(3, "
        "requires_grad=True)`), `.requires_grad_()` or `.requires_grad_(True)`, "
        "`x.requires_grad = True`, `torch.enable_grad` (called, or named to be entered later: `context = "
        "torch.enable_grad if ttt else nullcontext`, a bare `@enable_grad`), `torch.set_grad_enabled(True)` "
        "(or a flag), "
        "`.backward()`, `torch.autograd.grad`/`backward`, and subclasses of `torch.autograd.Function`, also "
        "through a project class of this file or another module that is one (`class AWQ(QuantizedFunction)`). "
        "Exempt: `self.requires_grad = True` in a class that is no tensor (a hook, a module, a config), "
        "a plain attribute of that object; learnable parameters (`nn.Parameter(t, requires_grad=True)`; "
        "a factory with "
        "`requires_grad=True`, a `.requires_grad_()` or a `.requires_grad = True` whose tensor "
        "`nn.Parameter` wraps, inline, through a local every other use of which it wraps (`w.requires_grad "
        "= True` then `nn.Parameter(w)`; from the binding that reaches the flag to the next, so a list "
        "the name held before does not count), or through a helper of the same file every call "
        "of which it wraps), which record nothing until a model is trained; unfreezing parameters "
        "(`p.requires_grad = True` or `p.requires_grad_()` for `p` in `model.parameters()`, "
        "`named_parameters()`, a collection named like `params`, or a project function returning "
        "one; an argument named `param` or `parameter` or annotated `nn.Parameter`; a name just bound to "
        "`nn.Parameter(...)`; under "
        "`if isinstance(p, nn.Parameter):`; or on an attribute its class binds to an "
        "`nn.Parameter`, `self.freq.requires_grad_()`, also by name (`setattr(self, self._ATTR, "
        "nn.Parameter(t))` with a constant of the class or module, `self.register_parameter('shift', p)`); or on "
        "a tensor of a module, `m.bias.requires_grad "
        "= True` for `m` in `model.modules()`, or the `weight` or `bias` of a layer reached through an "
        "attribute or a call, `self.get_input_embeddings().weight`, `fusion.value.bias`, also through a "
        "local bound to the layer or the tensor), or a submodule's `requires_grad_()` "
        "(`unet.get_submodule(path).requires_grad_(True)`, `m` in `model.named_modules()` or picked from it by "
        "`next(m for m in model.modules() if ...)`, a `torch.nn` module made on the spot or bound to a "
        "name, `nn.Embedding(n, d).requires_grad_(True)`, an attribute "
        "its class binds to a `torch.nn` module or container, `self.proj.requires_grad_()` or "
        "`self.blocks[name].requires_grad_()` with `self.blocks = nn.ModuleDict()`, or a name or "
        "attribute that the same class or function calls a method only modules have on, "
        "`self.generator.named_parameters()`, `net.eval()`), or an attribute of something named for a model "
        "(`model.requires_grad_()`, `model.encoder.embeddings.requires_grad_()`, `self.text_model.norm`, "
        "`module.modules_to_save.default`: a name or attribute called `model`, `module`, `net`, `network`, "
        "`backbone` or ending so), setting "
        "its parameters' flags, "
        "which is training set-up, not kernel work; passing the caller's flag along, which keeps "
        "the caller's choice: "
        "`out.requires_grad_(inp.requires_grad)`, or turning recording on only under "
        "`if requires_grad:` (a parameter of the function named for it, also `wrt_x`: differentiate with "
        "respect to `x`), `if x.requires_grad:` or `if rg:` with a local read from the inputs (`rg = "
        "x.requires_grad`, `any(t.requires_grad for t in ts)`, or a project function returning such a flag), "
        "alone or as one part of an `and`, or "
        "`torch.set_grad_enabled(flag)` where `flag` is a parameter named for it (`requires_grad`, "
        "`need_grad`, `differentiable`, `track_gradients`) or a local read from the inputs' "
        "`requires_grad`; restoring a saved "
        "grad mode, `torch.set_grad_enabled(prev)` where `prev` (a name, also one a nested function "
        "reads, or an attribute such as `self.prev`) was bound to `torch.is_grad_enabled()` in the same "
        "file, which puts back what the caller had rather than turning recording on. Methods "
        "(`.requires_grad_()`, `.backward()`) are matched in files that import torch or a module of the "
        "same project that does (a file working on the project's own tensor subclass need not name torch)."
    ) + test_files(
        "tests call `.backward()` and set `requires_grad` on their inputs to prove a result can feed "
        "training, which is what a kernel's callers do, not the kernel"
    )
    valid = (
        # a name rebound from the list it held to the tensor that is then only wrapped
        "import torch\nfrom torch import nn\ndef prune(self, spans):\n    w = []\n    for a, b in spans:\n"
        "        w.append(self.proj.weight[a:b])\n    w = torch.cat(w).detach()\n    w.requires_grad = True\n"
        "    self.proj.weight = nn.Parameter(w)\n",
        # parts of something named for a model are its submodules or parameters: a chain from a local,
        # from ``self``, a flag set on one
        "import torch\ndef build(model, module, text_model):\n    model.encoder.requires_grad_(False)\n"
        "    text_model.requires_grad_()\n"
        "    model.encoder.embeddings.requires_grad_()\n    module.modules_to_save.default.requires_grad_(True)\n"
        "class T:\n    def thaw(self):\n        self.text_model.final_layer_norm.requires_grad_(True)\n"
        "        self.backbone.pos_embed.requires_grad = True\n",
        # a torch.nn module's requires_grad_ sets its parameters' flags: made inline, bound, then stored
        "import torch\nfrom torch import nn\nclass E(nn.Module):\n    def __init__(self, n, d):\n"
        "        super().__init__()\n        self.emb = nn.Embedding(n, d).requires_grad_(True)\n"
        "        proj = nn.Linear(d, d)\n        proj.requires_grad_(False)\n"
        "        head = torch.nn.Linear(d, 1)\n        head.requires_grad_()\n"
        "        self.proj, self.head = proj, head\n",
        # the flag set on a local that is then only wrapped into a parameter
        "import torch\nfrom torch import nn\ndef prune(weight, keep):\n"
        "    new_w = torch.cat([weight[k] for k in keep]).detach()\n    new_w.requires_grad = True\n"
        "    return nn.Parameter(new_w)\n",
        # a tensor's own factory wrapped into a parameter, not asked to record, or of a value that is no tensor
        "import torch\nfrom torch import nn\ndef f(x):\n    w = nn.Parameter(x.new_zeros(3, requires_grad=True))\n"
        "    return w, x.new_ones(2), x.new_zeros(2, requires_grad=False)\n",
        # unfreezing attributes a class binds to parameters by name: a class constant, a module
        # constant, ``register_parameter``
        "import torch\nfrom torch import nn\n_RANGE = '_range'\nclass Q(nn.Module):\n    _STORAGE = '_scale'\n"
        "    def __init__(self, n):\n        setattr(self, self._STORAGE, nn.Parameter(torch.ones(n)))\n"
        "        setattr(self, _RANGE, nn.Parameter(torch.ones(n)))\n"
        "        self.register_parameter('shift', nn.Parameter(torch.zeros(n)))\n"
        "    def enable_gradients(self):\n        self._scale.requires_grad = True\n"
        "        self._range.requires_grad = True\n        self.shift.requires_grad_(True)\n",
        "import torch\ndef prep(params):\n    flat = flatten(params).float()\n"
        "    flat = torch.nn.Parameter(flat)\n    flat.requires_grad = True\n    return flat\n",
        "import torch\ndef ll(net, x, track_gradients=False):\n    with torch.set_grad_enabled(track_gradients):\n"
        "        return net(x)\n",
        "import torch\ndef setup(model, cfg):\n    text = next(m for m in model.modules() if m.config is cfg)\n"
        "    text.requires_grad_(True)\n    head = [m for m in model.children() if m.name == 'head'][0]\n"
        "    head.requires_grad_()\n",
        # unfreezing a module's tensors; recording turned on at the caller's request, ``wrt_`` a value
        "import torch\ndef unfreeze(model):\n    for m in model.modules():\n        m.bias.requires_grad = True\n"
        "    for name, module in model.named_modules():\n        module.weight.requires_grad = True\n",
        # the inputs' flag kept in a local, directly, over several inputs, from a helper, then passed along
        "import torch\ndef _wants(x):\n    return x.requires_grad\ndef logm(m, ys):\n    rg = m.requires_grad\n"
        "    any_rg = any(t.requires_grad for t in ys)\n    w = _wants(m)\n    out = m * 2\n    if rg:\n"
        "        out = out.requires_grad_()\n    if any_rg:\n        out.requires_grad_()\n    if w:\n"
        "        out.requires_grad_(True)\n    return out\n",
        # a layer's weight or bias reached through a call, an attribute chain, a local
        "import torch\ndef train_embeddings(self):\n    self.get_input_embeddings().weight.requires_grad = True\n"
        "    self.encoder.norm.bias.requires_grad_()\n    emb = self.get_output_embeddings()\n"
        "    emb.weight.requires_grad_(True)\n    w = self.head.proj.weight\n    w.requires_grad = True\n",
        "import torch\nclass Op:\n    def __init__(self, samples, wrt_traj=False):\n"
        "        self.samples = torch.as_tensor(samples)\n        if wrt_traj:\n"
        "            self.samples.requires_grad = True\n",
        # the caller's flag as one part of an ``and``; a plain attribute of an object that is no tensor
        "import torch\nclass Op:\n    def __init__(self, op, wrt_field_map=False):\n"
        "        self.map = torch.as_tensor(op.map)\n        if wrt_field_map and op.has_map:\n"
        "            self.map.requires_grad = True\n",
        "import torch\nclass SwAVHook:\n    def __init__(self, n):\n        self.n = n\n"
        "        self.requires_grad = True\n",
        "import torch\nfrom torch import nn\nclass Head(nn.Module):\n    def freeze(self, x):\n"
        "        if x.requires_grad and self.training:\n            x.requires_grad = True\n"
        "        self.requires_grad = True\n",
        "import torch\nwith torch.no_grad():\n    y = x * 2\n",
        "import torch\n@torch.inference_mode()\ndef f(x):\n    return x\n",
        "import torch\ntorch.set_grad_enabled(False)\n",
        "import torch\nt = torch.ones(3, requires_grad=False)\n",
        "import torch\ny = x.detach()\n",
        "def backward(x):\n    return x.backward()\n",
        "import torch\nx.requires_grad = False\n",
        "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self, n):\n"
        "        self.w = nn.Parameter(torch.ones(n), requires_grad=True)\n"
        "        self.b = nn.Parameter(torch.tensor([0.5], requires_grad=True))\n",
        "import torch\ndef f(data, requires_grad):\n"
        "    out = torch.as_tensor(data).requires_grad_(requires_grad)\n"
        "    return out.detach().clone().requires_grad_(data.requires_grad)\n",
        "import torch\ndef arange(end, requires_grad=False):\n    result = torch.arange(end)\n"
        "    if requires_grad:\n        result.requires_grad_(True)\n    return result\n",
        "import torch\ndef like(x, src):\n    if src.requires_grad:\n        x.requires_grad = True\n"
        "    return x\n",
        "import torch\ndef run(modules):\n    grad_enabled, autocast_enabled = (\n"
        "        torch.is_grad_enabled(),\n        torch.is_autocast_enabled(),\n    )\n\n"
        "    def worker(m):\n        torch.set_grad_enabled(grad_enabled)\n        return m()\n\n"
        "    return [worker(m) for m in modules]\n",
        "import torch\nclass Guard:\n    def __enter__(self):\n        self.prev = torch.is_grad_enabled()\n"
        "    def __exit__(self, *args):\n        torch.set_grad_enabled(self.prev)\n",
        "import torch\ndef unfreeze(model):\n    for p in model.parameters():\n        p.requires_grad = True\n",
        # a helper handed one parameter to unfreeze
        "import torch\ndef unfreeze_parameter(param):\n    param.requires_grad = True\n",
        "import torch\nfrom torch import nn\ndef thaw(p: nn.Parameter):\n    p.requires_grad_()\n",
        "import torch\nclass Unfreezer:\n    def on_epoch(self, net, parameter):\n"
        "        parameter.requires_grad_(True)\n",
        "import torch\ndef unfreeze(model):\n    params = list(model.head.parameters())\n    for p in params:\n"
        "        p.requires_grad_(True)\n",
        "import torch\ndef unfreeze(model):\n    for name, p in model.named_parameters():\n"
        "        if 'head' in name:\n            p.requires_grad = True\n",
        "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self):\n"
        "        self.w = nn.Parameter(torch.zeros(3).requires_grad_())\n",
        # unfreezing submodules: ``requires_grad_`` on an nn.Module sets its parameters' flags
        "import torch\ndef unfreeze(unet, names):\n    for name in names:\n"
        "        module = unet.get_submodule(name)\n        module.requires_grad_(True)\n",
        "import torch\ndef unfreeze(model):\n    for _, m in model.named_modules():\n        m.requires_grad_()\n",
        # a value a module-only method is called on is a module: a class's attribute, a local, a chain
        "import torch\nclass Editor:\n    def step(self, n):\n        if n == 0:\n"
        "            for k, v in self.generator.named_parameters():\n                v.requires_grad_(False)\n"
        "        elif n == 5:\n            self.generator.requires_grad_(True)\n",
        "import torch\ndef f(build):\n    net = build()\n    net.eval()\n    net.requires_grad_()\n",
        "import torch\ndef f(model):\n    heads = list(model.head.parameters())\n"
        "    model.head.requires_grad_(True)\n    return heads\n",
        "import torch\ndef unfreeze(model, path):\n    model.get_submodule(path).requires_grad_(True)\n",
        "import torch\nfrom torch import nn\nclass A(nn.Module):\n    def __init__(self):\n"
        "        self.blocks = nn.ModuleDict({})\n        self.proj = nn.Linear(3, 3)\n"
        "    def add(self, name):\n        self.blocks[name].requires_grad_(True)\n"
        "        self.proj.requires_grad_(True)\n",
        "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self):\n"
        "        w = torch.zeros(3).requires_grad_()\n        self.w = nn.Parameter(w)\n",
        "import torch\nfrom torch import nn\ndef _init(n):\n    return torch.randn(n, requires_grad=True)\n"
        "class M(nn.Module):\n    def __init__(self):\n        self.w = nn.Parameter(_init(3))\n",
        # a tested parameter unfrozen; recording turned on only where the caller asked for it
        "import torch\ndef unlock(x):\n    if isinstance(x, torch.nn.Parameter):\n        x.requires_grad = True\n"
        "def attend(q, k):\n    grad_enabled = any(t.requires_grad for t in (q, k))\n"
        "    with torch.set_grad_enabled(grad_enabled):\n        return q @ k\n"
        "@torch.no_grad()\ndef sample(x, requires_grad=False):\n    with torch.set_grad_enabled(requires_grad):\n"
        "        return x * 2\n",
        # a parameter the class holds, unfrozen
        "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self, n):\n"
        "        self.freq = torch.nn.Parameter(torch.empty(n))\n"
        "    def reset_parameters(self):\n        self.freq.requires_grad_()\n"
        "        self.freq.requires_grad = True\n",
    )
    invalid = (
        Invalid(  # after its binding, the tensor is also read by other work before it is wrapped
            "import torch\nfrom torch import nn\ndef keep(self, spans):\n"
            "    w = [self.proj.weight[a:b] for a, b in spans]\n    w = torch.cat(w).detach()\n"
            "    w.requires_grad = True\n    self.scale = w.sum()\n    self.proj.weight = nn.Parameter(w)\n",
            ((6, 5),),
        ),
        Invalid(  # the flagged tensor is also returned, or read by a function: not only a parameter's
            "import torch\nfrom torch import nn\ndef f(weight):\n    w = weight.detach()\n"
            "    w.requires_grad = True\n    return w, nn.Parameter(w)\n"
            "def g(x):\n    t = torch.zeros(3)\n    t.requires_grad_()\n"
            "    return torch.nn.functional.relu(t)\n",
            ((5, 5), (9, 5)),
        ),
        Invalid(  # a tensor's own factory: on an argument, through an attribute chain, a local
            "import torch\ndef f(graph, x):\n    strain = graph.lattice.new_zeros([3, 3], requires_grad=True)\n"
            "    b = x.new_ones(3, requires_grad=True)\n    c = x.new_tensor([1.0], requires_grad=True)\n"
            "    return strain, b, c\n",
            ((3, 46), (4, 23), (5, 29)),
        ),
        Invalid(  # an attribute set by name to something else is no parameter
            "import torch\nfrom torch import nn\nclass Q(nn.Module):\n    def __init__(self, n):\n"
            "        setattr(self, '_scale', torch.ones(n))\n    def enable(self):\n"
            "        self._scale.requires_grad = True\n",
            ((7, 9),),
        ),
        Invalid(  # a subclass of a project class that is an autograd Function, two levels down
            "import torch\nclass Quantized(torch.autograd.Function):\n    @staticmethod\n"
            "    def backward(ctx, g):\n        return g\nclass AWQ(Quantized):\n    pass\nclass Marlin(AWQ):\n"
            "    pass\n",
            ((2, 17), (6, 11), (8, 14)),
        ),
        Invalid(  # a local that reads something else than the inputs' flag
            "import torch\ndef f(x):\n    fast = x.shape[0] > 3\n    out = x * 2\n    if fast:\n"
            "        out.requires_grad_()\n    return out\n",
            ((6, 9),),
        ),
        Invalid(  # attributes of objects not named for a model: a grid, a context, a model's output
            "import torch\ndef f(x, ctx, model):\n    x.grid.requires_grad_()\n"
            "    ctx.saved.requires_grad = True\n"
            "    model(x).requires_grad_()\n",
            ((3, 5), (4, 5), (5, 5)),
        ),
        Invalid(  # a weight kept on ``self`` or on a plain argument: a kernel's own tensor may be named so
            "import torch\nclass Warp:\n    def fit(self, ctx):\n        self.weight.requires_grad_()\n"
            "        ctx.bias.requires_grad = True\n",
            ((4, 9), (5, 9)),
        ),
        Invalid(  # another value than the one a module-only method is called on
            "import torch\nclass Editor:\n    def step(self, x):\n        self.net.eval()\n"
            "        self.w.requires_grad_(True)\n        x.requires_grad_()\n",
            ((5, 9), (6, 9)),
        ),
        Invalid(  # a tensor subclass's own flag; a branch on a flag not named for autograd
            "import torch\nclass Grid(torch.Tensor):\n    def track(self):\n        self.requires_grad = True\n"
            "def f(x, use_cache, fast):\n    if use_cache and fast:\n        x.requires_grad = True\n",
            ((4, 9), (7, 9)),
        ),
        Invalid(  # a float copy, or an item picked from a plain iterable, is a tensor of its own
            "import torch\ndef f(x):\n    y = x.float()\n    y.requires_grad = True\n"
            "    z = next(t for t in x if t.ndim)\n    z.requires_grad_(True)\n",
            ((4, 5), (6, 5)),
        ),
        Invalid("from .torch_imports import *\nclass Swish(torch.autograd.Function):\n    pass\n", ((2, 13),)),
        Invalid(  # a tensor's own flag, not a module's; a branch on a flag that is no wish for gradients
            "import torch\ndef f(model, x, wrtx):\n    for m in model.modules():\n        x.requires_grad = True\n"
            "    if wrtx:\n        x.requires_grad_()\n    return x\n",
            ((4, 9), (6, 9)),
        ),
        Invalid(
            "import torch\ndef f(self, x):\n    if isinstance(x, torch.Tensor):\n        x.requires_grad = True\n"
            "    enabled = self.training\n    torch.set_grad_enabled(enabled)\n",
            ((4, 9), (6, 5)),
        ),
        Invalid("import torch\nt = torch.ones(3, requires_grad=True)\n", ((2, 19),)),
        Invalid(  # an argument named like a tensor, or annotated one, is no parameter
            "import torch\ndef track(x: torch.Tensor, params):\n    x.requires_grad_()\n"
            "    weights = params[0]\n    weights.requires_grad = True\n",
            ((3, 5), (5, 5)),
        ),
        Invalid("import torch\nx.requires_grad_()\ny.requires_grad_(True)\n", ((2, 1), (3, 1))),
        Invalid("import torch\nx.requires_grad = True\n", ((2, 1),)),
        Invalid(  # a branch on a parameter that does not ask for autograd
            "import torch\ndef queries(res, make):\n    if res:\n        p = make(res)\n"
            "        p.requires_grad = True\n        return p\n",
            ((5, 9),),
        ),
        Invalid(  # a plain tensor attribute is no module
            "import torch\nfrom torch import nn\nclass A(nn.Module):\n    def __init__(self):\n"
            "        self.buf = torch.zeros(3)\n        self.items = [torch.ones(2)]\n"
            "    def train_buf(self):\n        self.buf.requires_grad_(True)\n"
            "        self.items[0].requires_grad_()\n",
            ((8, 9), (9, 9)),
        ),
        Invalid("import torch as T\nwith T.enable_grad():\n    pass\n", ((2, 6),)),
        Invalid(  # named without a call: chosen as the context to enter, or a bare decorator
            "import torch\nfrom contextlib import nullcontext\nfrom torch import enable_grad\n"
            "def f(self, x):\n    context = torch.enable_grad if self.ttt else nullcontext\n"
            "    with context():\n        return self.net(x)\n@enable_grad\ndef g(x):\n    return x * 2\n",
            ((5, 15), (8, 2)),
        ),
        Invalid(  # the same function under torch.autograd's names
            "import torch\ntorch.autograd.set_grad_enabled(True)\n"
            "from torch.autograd.grad_mode import set_grad_enabled\nset_grad_enabled(True)\n",
            ((2, 1), (4, 1)),
        ),
        Invalid("from torch import set_grad_enabled\nset_grad_enabled(True)\n", ((2, 1),)),
        Invalid("import torch\ndef f(x, mode):\n    torch.set_grad_enabled(mode)\n", ((3, 5),)),
        Invalid(
            "import torch\nDEBUG = True\ndef f(x):\n    if DEBUG:\n        x.requires_grad_(True)\n", ((5, 9),)
        ),
        Invalid("import torch.autograd as ag\nag.grad(y, x)\n", ((2, 1),)),
        Invalid("import torch\nloss.backward()\n", ((2, 1),)),
        Invalid(  # a tensor picked out of a module's state is still a tensor
            "import torch\ndef f(model, name):\n    t = model.get_buffer(name)\n    t.requires_grad_(True)\n",
            ((4, 5),),
        ),
        Invalid("from torch import autograd\nclass F(autograd.Function):\n    pass\n", ((2, 9),)),
        Invalid("import torch\ndef f(x):\n    for t in x:\n        t.requires_grad = True\n", ((4, 9),)),
        Invalid(
            "import torch\nfrom torch import nn\ndef _init(n):\n    return torch.randn(n, requires_grad=True)\n"
            "class M(nn.Module):\n    def __init__(self):\n        self.w = nn.Parameter(_init(3))\n"
            "        self.v = _init(3)\n",
            ((4, 27),),
        ),
        Invalid(
            "import torch\nfrom torch import nn\nclass M(nn.Module):\n    def __init__(self, n):\n"
            "        self.freq = torch.nn.Parameter(torch.empty(n))\n        self.buf = torch.zeros(n)\n"
            "    def reset(self, other):\n        self.buf.requires_grad_()\n"
            "        other.freq.requires_grad_()\n",
            ((8, 9), (9, 9)),
        ),
        Invalid(
            "import torch\nfrom torch import nn\ndef f():\n    w = torch.zeros(3).requires_grad_()\n"
            "    p = nn.Parameter(w)\n    return w * 2, p\n",
            ((4, 9),),
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        qualname = ctx.qualname(node.func)
        if qualname in _ENABLING_CALLS:
            what, effect = _ENABLING_CALLS[qualname]
            self.report(node, what=what, effect=effect)
        elif qualname in SET_GRAD_ENABLED:
            args = positional(node) or list(node.args)
            if (
                not (args and is_literal(args[0].value, "False"))
                and not self._restores_saved_state(node)
                and not (args and self._is_callers_wish(args[0].value))
            ):
                shown = source_of(args[0].value) if args else ""
                self.report(node, what=f"torch.set_grad_enabled({shown})", effect=_TURNS_ON)
        requires = keyword(node, "requires_grad")
        if (
            requires is not None
            and is_literal(requires.value, "True")
            and not self._is_parameter(node)
            and not self._becomes_parameter()
            and not self._passes_flag_along()
        ):
            # a torch factory, or a tensor's own (``x.new_zeros(3, requires_grad=True)``)
            made_by_torch = qualname is not None and qualname.startswith("torch.")
            if made_by_torch or (
                qualname is None and ctx.reaches_torch and method_name(node) in _NEW_TENSOR_METHODS
            ):
                self.report(
                    requires, what="requires_grad=True", effect="makes torch record autograd for this tensor"
                )
        if qualname is None and ctx.reaches_torch:
            self._check_method(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "enable_grad":
            self._check_enabler_reference(node)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == "enable_grad":
            self._check_enabler_reference(node)

    def _check_enabler_reference(self, node: cst.Name | cst.Attribute) -> None:
        """``torch.enable_grad`` named without being called: picked as a context to enter later
        (``ctx = torch.enable_grad if ttt else nullcontext``) or applied as a bare decorator. A call
        is reported by `visit_Call`; an import only binds the name."""
        if self.ctx.qualname(node) not in _ENABLE_GRAD:
            return
        parent = self.ctx.ancestors[-2]
        if (isinstance(parent, cst.Call) and parent.func is node) or isinstance(parent, cst.Attribute):
            return
        if any(isinstance(a, cst.Import | cst.ImportFrom) for a in self.ctx.ancestors):
            return
        self.report(node, what="torch.enable_grad", effect="turns autograd recording on where it is entered")

    def _passes_flag_along(self) -> bool:
        """Inside ``if requires_grad:`` (a parameter of the enclosing function named for autograd) or
        ``if x.requires_grad:``: the caller's choice is passed along, not made here. A branch on any
        other parameter (``if train_out_res:``) is the function's own choice."""
        ancestors = self.ctx.ancestors
        function = self.ctx.enclosing_function()
        names = {p.name.value for p in parameters(function)} if function is not None else set()
        for index in range(len(ancestors) - 2, 0, -1):
            node = ancestors[index]
            if isinstance(node, cst.FunctionDef | cst.Lambda | cst.ClassDef):
                return False
            if isinstance(node, cst.If) and ancestors[index + 1] is node.body:
                for test in conjuncts(node.test):  # ``if wrt_field_map and has_map:`` needs the flag too
                    if isinstance(test, cst.Name) and test.value in names and GRAD_FLAG_NAME.search(test.value):
                        return True
                    if isinstance(test, cst.Attribute) and test.attr.value == "requires_grad":
                        return True
                    if isinstance(test, cst.Name) and test.value not in names and self._reads_input_flag(test):
                        return True
        return False

    def _reads_input_flag(self, local: cst.Name) -> bool:
        """A local bound to what the inputs ask for: ``rg = x.requires_grad``, ``rg = any(t.requires_grad
        for t in ts)``, or a project function returning such a flag (``rg = wants_grad(x)``, here or
        in another module)."""
        value = bound_value(self.ctx, local)
        if value is None:
            return False
        if any(isinstance(n, cst.Attribute) and n.attr.value == "requires_grad" for n in walk(value)):
            return True
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name | cst.Attribute):
            return False
        func = value.func
        callee = self.ctx.qualname(func) or (
            f"{self.ctx.module_name}.{func.value}" if isinstance(func, cst.Name) else ""
        )
        return self.ctx.kernel.returns.get(callee) == "grad-flag"

    def _is_callers_wish(self, flag: cst.BaseExpression) -> bool:
        """``torch.set_grad_enabled(requires_grad)`` with a parameter named for it, or with a local read
        from the inputs (``grad_enabled = any(t.requires_grad for t in (q, k, v))``): recording turns on
        only where the caller asked for it, as under ``if requires_grad:``."""
        if not isinstance(flag, cst.Name):
            return False
        function = self.ctx.enclosing_function()
        if function is not None and any(p.name.value == flag.value for p in parameters(function)):
            return GRAD_FLAG_NAME.search(flag.value) is not None
        value = bound_value(self.ctx, flag)
        return value is not None and any(
            isinstance(n, cst.Attribute) and n.attr.value == "requires_grad" for n in walk(value)
        )

    def _restores_saved_state(self, node: cst.Call) -> bool:
        """``torch.set_grad_enabled(prev)`` where ``prev`` (a name or attribute) was read from
        ``torch.is_grad_enabled()`` somewhere in the file: the grad mode is put back, not turned on."""
        args = positional(node) or list(node.args)
        if not args or not isinstance(args[0].value, cst.Name | cst.Attribute):
            return False
        return source_of(args[0].value) in self._saved_states()

    def _saved_states(self) -> frozenset[str]:
        """Names and attributes the file binds to ``torch.is_grad_enabled()`` (computed once per file)."""
        key = ("saved-grad-states", id(self.ctx.module))
        found = self.ctx.facts.get(key)
        if found is None:
            found = self.ctx.facts[key] = frozenset(_saved_states(self.ctx))
        return found  # type: ignore[return-value]

    def _is_parameter(self, node: cst.Call) -> bool:
        """``nn.Parameter(..., requires_grad=True)``, or a factory call that is its argument."""
        if self.ctx.qualname(node.func) in _PARAMETERS:
            return True
        parent, grandparent = self.ctx.parent, self.ctx.ancestors[-3] if len(self.ctx.ancestors) > 2 else None
        return (
            isinstance(parent, cst.Arg)
            and isinstance(grandparent, cst.Call)
            and self.ctx.qualname(grandparent.func) in _PARAMETERS
        )

    def _check_method(self, node: cst.Call) -> None:
        method = method_name(node)
        if method == "backward":
            self.report(node, what=".backward()", effect="runs a backward pass")
        elif method == "requires_grad_":
            args = node.args
            if (
                (not args or is_literal(args[0].value, "True"))
                and not self._passes_flag_along()
                and not self._on_parameter(node.func.value)  # type: ignore[attr-defined]
                and not self._becomes_parameter()
                and not self._wrapped_later(node.func.value)  # type: ignore[attr-defined]
            ):
                self.report(node, what=".requires_grad_()", effect="makes torch record autograd for this tensor")

    def _on_parameter(self, receiver: cst.BaseExpression) -> bool:
        """``p.requires_grad = True`` for ``p`` in a model's parameters or under ``if isinstance(p,
        nn.Parameter):``, or ``self.w.requires_grad_()`` where the class holds an ``nn.Parameter`` in
        ``self.w``: unfreezing, not recording."""
        if self._used_as_module(receiver) or is_layer_tensor(self.ctx, receiver) or self._makes_module(receiver):
            return True
        if _reached_through_a_model(receiver):
            return True
        if isinstance(receiver, cst.Name):
            value = bound_value(self.ctx, receiver)
            return (
                (isinstance(value, cst.Call) and self.ctx.qualname(value.func) in _PARAMETERS)
                or self._makes_module(value)
                or is_layer_tensor(self.ctx, value)
                or is_parameter_loop_variable(self.ctx, receiver.value)
                or self._tested_parameter(receiver.value)
                or self._is_module(receiver)
                or self._parameter_argument(receiver.value)
            )
        if isinstance(receiver, cst.Attribute) and isinstance(receiver.value, cst.Name):
            if self._is_module(receiver.value):  # ``m.bias.requires_grad = True``: a module's tensor
                return True  # is one of its parameters
        if isinstance(receiver, cst.Subscript):  # ``self.blocks[name]`` of an ``nn.ModuleDict``/``ParameterList``
            return self_attribute(receiver.value) in self._module_attributes()
        attribute = self_attribute(receiver)
        return (
            attribute in self._parameter_attributes()
            or attribute in self._module_attributes()
            or _from_module_lookup(receiver)
        )

    def _makes_module(self, value: cst.BaseExpression | None) -> bool:
        """``nn.Embedding(n, d)``: a call to a class of ``torch.nn``, a module whose ``requires_grad_``
        sets its parameters' flags."""
        if not isinstance(value, cst.Call):
            return False
        qualname = self.ctx.qualname(value.func) or ""
        return qualname.startswith("torch.nn.") and qualname.rpartition(".")[2][:1].isupper()

    def _used_as_module(self, receiver: cst.BaseExpression) -> bool:
        """The same name or attribute chain (``self.generator``, ``net``) has a method only modules
        have called on it in the enclosing class or function (``self.generator.named_parameters()``,
        ``net.eval()``): it is an ``nn.Module``, whose ``requires_grad_`` sets its parameters' flags."""
        if not isinstance(receiver, cst.Name | cst.Attribute):
            return False
        text = source_of(receiver)
        scope = next(
            (n for n in reversed(self.ctx.ancestors) if isinstance(n, cst.ClassDef)), self.ctx.enclosing_function()
        )
        return scope is not None and any(
            isinstance(node, cst.Call)
            and method_name(node) in _MODULE_ONLY_METHODS
            and source_of(node.func.value) == text  # type: ignore[attr-defined]
            for node in walk(scope)
        )

    def _parameter_argument(self, name: str) -> bool:
        """``def unfreeze(param): param.requires_grad = True``: an argument of the enclosing function
        named ``param`` or ``parameter``, or annotated ``nn.Parameter``, is a model's parameter handed
        to a helper that unfreezes it."""
        function = self.ctx.enclosing_function()
        for param in parameters(function) if function is not None else ():
            if param.name.value != name:
                continue
            annotation = param.annotation.annotation if param.annotation is not None else None
            return name in _PARAMETER_NAMES or (
                annotation is not None and self.ctx.qualname(annotation) in _PARAMETERS
            )
        return False

    def _is_module(self, name: cst.Name) -> bool:
        """A name bound to a submodule (``module = unet.get_submodule(path)``): ``requires_grad_`` on
        an ``nn.Module`` sets its parameters' flags, which is unfreezing, and no tensor of its own."""
        value = bound_value(self.ctx, name)
        if _from_module_lookup(value) or _picked_from_modules(value):
            return True
        for node in reversed(self.ctx.ancestors):  # ``for _, m in model.named_modules():``
            if isinstance(node, cst.FunctionDef):
                return False
            if (
                isinstance(node, cst.For)
                and isinstance(node.iter, cst.Call)
                and method_name(node.iter) in _MODULE_ITERATORS
                and any(isinstance(n, cst.Name) and n.value == name.value for n in walk(node.target))
            ):
                return True
        return False

    def _tested_parameter(self, name: str) -> bool:
        """Inside the body of ``if isinstance(name, nn.Parameter):`` (or an ``elif`` of that test)."""
        ancestors = self.ctx.ancestors
        for index in range(len(ancestors) - 2, 0, -1):
            node, child = ancestors[index], ancestors[index + 1]
            if isinstance(node, cst.FunctionDef | cst.Lambda | cst.ClassDef):
                return False
            if isinstance(node, cst.If) and child is node.body:
                tested = isinstance_test(node.test)
                if tested is not None and tested[0] == name and self.ctx.qualname(tested[1]) in _PARAMETERS:
                    return True
        return False

    def _parameter_attributes(self) -> frozenset[str]:
        """The attributes the enclosing class binds to an ``nn.Parameter`` (``self.w = nn.Parameter(t)``)."""
        return self._attributes_bound_to(lambda qualname: qualname in _PARAMETERS)

    def _module_attributes(self) -> frozenset[str]:
        """The attributes the enclosing class binds to a module or a module or parameter container of
        ``torch.nn`` (``self.blocks = nn.ModuleDict()``, ``self.proj = nn.Linear(n, m)``): their
        ``requires_grad_()`` sets learnable parameters' flags."""
        return self._attributes_bound_to(
            lambda qualname: qualname.startswith("torch.nn.") and qualname.rpartition(".")[2][:1].isupper()
        )

    def _attributes_bound_to(self, made_by: Callable[[str], bool]) -> frozenset[str]:
        """The attributes the enclosing class binds, in any of its methods, to a call whose qualified
        name ``made_by`` accepts."""
        owner = next((n for n in reversed(self.ctx.ancestors) if isinstance(n, cst.ClassDef)), None)
        if owner is None:
            return frozenset()
        bound = {
            name
            for node in walk(owner.body)
            if isinstance(node, cst.Assign)
            and isinstance(node.value, cst.Call)
            and made_by(self.ctx.qualname(node.value.func) or "")
            for target in node.targets
            if (name := self_attribute(target.target)) is not None
        }
        for node in walk(owner.body):
            named = _named_binding(node)
            if (
                named is not None
                and isinstance(named[1], cst.Call)
                and made_by(self.ctx.qualname(named[1].func) or "")
            ):
                name = _attribute_name(named[0], owner, self.ctx.module)
                if name is not None:
                    bound.add(name)
        return frozenset(bound)

    def _becomes_parameter(self) -> bool:
        """The tensor being made is wrapped by ``nn.Parameter``: inline (``nn.Parameter(t.requires_grad_())``),
        through a local the function wraps, or through a helper of this file every call of which is
        wrapped. A learnable parameter records nothing until a model is trained."""
        ancestors = self.ctx.ancestors
        for index in range(len(ancestors) - 2, 0, -1):
            node = ancestors[index]
            if isinstance(node, cst.Call) and self.ctx.qualname(node.func) in _PARAMETERS:
                return True
            if (
                isinstance(node, cst.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0].target, cst.Name)
            ):
                function = self.ctx.enclosing_function()
                scope = function.body if function is not None else self.ctx.module
                return node.targets[0].target.value in self._wrapped_names(scope)
            if isinstance(node, cst.Return):
                function = self.ctx.enclosing_function()
                return function is not None and function.name.value in self._wrapped_names(self.ctx.module)
            if isinstance(node, cst.BaseStatement | cst.BaseSmallStatement | cst.FunctionDef):
                return False
        return False

    def _wrapped_later(self, receiver: cst.BaseExpression) -> bool:
        """``w.requires_grad = True`` (or ``w.requires_grad_()``) on a name that the function, beyond
        setting or reading its flag, only hands to ``nn.Parameter(w)``: a learnable parameter in the
        making."""
        if not isinstance(receiver, cst.Name):
            return False
        function = self.ctx.enclosing_function()
        scope = function.body if function is not None else self.ctx.module
        return receiver.value in self._wrapped_names(scope) or self._wrapped_in_its_binding(receiver, scope)

    def _wrapped_in_its_binding(self, receiver: cst.Name, scope: cst.CSTNode) -> bool:
        """Read in source order: from the assignment that last bound the name before ``receiver`` to
        the next one, every use of the name, beyond its flag, is the argument of ``nn.Parameter``
        (``w = []``, ``w.append(...)``, ``w = torch.cat(w).detach()``, ``w.requires_grad = True``,
        ``self.proj.weight = nn.Parameter(w)``: the list before is another value)."""
        name = receiver.value
        nodes = list(in_source_order(scope))
        position = next((i for i, node in enumerate(nodes) if node is receiver), None)
        if position is None:
            return False

        def binds(node: cst.CSTNode) -> bool:
            return isinstance(node, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets
            )

        start = next((i for i in range(position, -1, -1) if binds(nodes[i])), None)
        if start is None:
            return False
        end = next((i for i in range(position + 1, len(nodes)) if binds(nodes[i])), len(nodes))
        binding = {id(node) for node in walk(nodes[start])}  # its value reads what the name held before
        wrapped: set[int] = set()
        flags: set[int] = set()
        uses: list[cst.Name] = []
        for node in nodes[start:end]:
            if isinstance(node, cst.Call) and self.ctx.qualname(node.func) in _PARAMETERS:
                wrapped.update(id(arg.value) for arg in node.args)
            elif isinstance(node, cst.Attribute) and node.attr.value in ("requires_grad", "requires_grad_"):
                flags.add(id(node.value))
            elif isinstance(node, cst.Name) and node.value == name and id(node) not in binding:
                uses.append(node)
        outside = [use for use in uses if id(use) not in flags]
        return bool(outside) and all(id(use) in wrapped for use in outside)

    def _wrapped_names(self, scope: cst.CSTNode) -> frozenset[str]:
        """Names every use of which in ``scope`` (as a value passed, or a callee) is the argument of
        ``nn.Parameter(...)``: ``nn.Parameter(w)``, ``nn.Parameter(init(n))``."""
        key = ("parameter-wrapped", id(scope))
        found = self.ctx.facts.get(key)
        if found is None:
            inside: set[int] = set()
            for node in walk(scope):
                if isinstance(node, cst.Call) and self.ctx.qualname(node.func) in _PARAMETERS:
                    inside.update(
                        id(arg.value.func if isinstance(arg.value, cst.Call) else arg.value) for arg in node.args
                    )
            bindings = {id(name) for node in walk(scope) for name in _bound_names(node)}
            bindings |= {id(node.attr) for node in walk(scope) if isinstance(node, cst.Attribute)}
            # setting or reading the flag (``w.requires_grad = True``) hands the tensor to nothing
            bindings |= {
                id(node.value)
                for node in walk(scope)
                if isinstance(node, cst.Attribute) and node.attr.value in ("requires_grad", "requires_grad_")
            }
            uses: dict[str, list[int]] = {}
            for node in walk(scope):
                if isinstance(node, cst.Name) and id(node) not in bindings:
                    uses.setdefault(node.value, []).append(id(node))
            found = frozenset(name for name, ids in uses.items() if all(i in inside for i in ids))
            self.ctx.facts[key] = found
        return found  # type: ignore[return-value]

    def visit_Assign(self, node: cst.Assign) -> None:
        if not (self.ctx.reaches_torch and is_literal(node.value, "True")) or self._passes_flag_along():
            return
        for target in node.targets:
            if isinstance(target.target, cst.Attribute) and target.target.attr.value == "requires_grad":
                receiver = target.target.value
                if self._on_parameter(receiver) or self._own_attribute(receiver) or self._wrapped_later(receiver):
                    continue
                self.report(
                    node, what=".requires_grad = True", effect="makes torch record autograd for this tensor"
                )

    def _own_attribute(self, owner: cst.BaseExpression) -> bool:
        """``self.requires_grad = True`` in a class that is no tensor (a hook, a module, a config):
        a plain attribute of the object, which records nothing."""
        if not (isinstance(owner, cst.Name) and owner.value == "self"):
            return False
        owner_class = next((n for n in reversed(self.ctx.ancestors) if isinstance(n, cst.ClassDef)), None)
        return owner_class is not None and not any(
            isinstance(base.value, cst.Name | cst.Attribute)
            and (self.ctx.qualname(base.value) or source_of(base.value)).endswith(("Tensor", "Parameter"))
            for base in owner_class.bases
        )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        for base in node.bases:
            if self.ctx.qualname(base.value) in AUTOGRAD_FUNCTIONS:
                self.report(base, what="torch.autograd.Function", effect="defines a backward pass for autograd")
            elif derives_from_autograd_function(self.ctx, base.value):
                effect = "derives from torch.autograd.Function, so this class defines a backward pass for autograd"
                self.report(base, what=source_of(base.value), effect=effect)


def _bound_names(node: cst.CSTNode) -> list[cst.Name]:
    """The names a statement binds (not uses): assignment targets, a ``def``'s name, parameters."""
    if isinstance(node, cst.Assign):
        return [t.target for t in node.targets if isinstance(t.target, cst.Name)]
    if isinstance(node, cst.AnnAssign | cst.AugAssign) and isinstance(node.target, cst.Name):
        return [node.target]
    if isinstance(node, cst.FunctionDef | cst.ClassDef | cst.Param):
        return [node.name]
    return []


def _saved_states(ctx) -> set[str]:
    """Targets bound to ``torch.is_grad_enabled()``, alone or as an element of a tuple assignment."""
    found: set[str] = set()
    if "is_grad_enabled" not in ctx.text:
        return found
    for node in walk(ctx.module):
        if not isinstance(node, cst.Assign):
            continue
        for target in node.targets:
            for name, value in _pairs(target.target, node.value):
                if isinstance(value, cst.Call) and ctx.qualname(value.func) in _GRAD_STATE_READS:
                    found.add(source_of(name))
    return found


def _pairs(
    target: cst.BaseExpression, value: cst.BaseExpression
) -> list[tuple[cst.BaseExpression, cst.BaseExpression]]:
    if isinstance(target, cst.Tuple | cst.List) and isinstance(value, cst.Tuple | cst.List):
        if len(target.elements) == len(value.elements):
            return [
                pair
                for t, v in zip(target.elements, value.elements, strict=True)
                for pair in _pairs(t.value, v.value)
            ]
        return []
    return [(target, value)] if isinstance(target, cst.Name | cst.Attribute) else []


_GRAD_STATE_READS = frozenset({"torch.is_grad_enabled", "torch.autograd.grad_mode.is_grad_enabled"})


#: ``nn.Module`` methods that give one of its submodules.
_SUBMODULE_LOOKUPS = frozenset({"get_submodule"})
#: ``nn.Module`` methods that iterate over its submodules.
_MODULE_ITERATORS = frozenset({"modules", "children", "named_modules", "named_children"})
#: Methods ``nn.Module`` has and tensors do not: a value they are called on is a module.
_MODULE_ONLY_METHODS = _MODULE_ITERATORS | frozenset(
    "parameters named_parameters buffers named_buffers eval train load_state_dict zero_grad "
    "register_forward_hook register_forward_pre_hook register_buffer register_parameter get_submodule".split()
)


def _picked_from_modules(value: cst.BaseExpression | None) -> bool:
    """``next(m for m in model.modules() if ...)`` or ``[m for m in model.children()][0]``: one of a
    model's submodules, picked by a comprehension over them."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "next":
        value = value.args[0].value if value.args else None
    elif isinstance(value, cst.Subscript):
        value = value.value
    if not isinstance(value, cst.GeneratorExp | cst.ListComp):
        return False
    loop = value.for_in
    return (
        isinstance(value.elt, cst.Name)
        and isinstance(loop.target, cst.Name)
        and loop.target.value == value.elt.value
        and isinstance(loop.iter, cst.Call)
        and method_name(loop.iter) in _MODULE_ITERATORS
    )


def _from_module_lookup(value: cst.BaseExpression | None) -> bool:
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in _SUBMODULE_LOOKUPS
    )


def _named_binding(node: cst.CSTNode) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """The name and value of ``setattr(self, NAME, value)`` or ``self.register_parameter(NAME, value)``."""
    if not isinstance(node, cst.Call):
        return None
    args = [a.value for a in node.args if a.keyword is None]
    func = node.func
    if isinstance(func, cst.Name) and func.value == "setattr" and len(args) == 3:
        return (args[1], args[2]) if isinstance(args[0], cst.Name) and args[0].value == "self" else None
    if isinstance(func, cst.Attribute) and func.attr.value == "register_parameter" and len(args) == 2:
        return (args[0], args[1]) if _is_self(func.value) else None
    return None


def _reached_through_a_model(receiver: cst.BaseExpression) -> bool:
    """``model``, ``model.encoder.embeddings`` or ``self.model.head``: something named for a model
    (``model``, ``module``, ``net``, ``backbone``, ``text_model``), or an attribute of one, is a model,
    one of its submodules or one of its parameters, whose flags are training set-up."""
    if isinstance(receiver, cst.Name):
        return _MODEL_NAME.search(receiver.value) is not None
    if not isinstance(receiver, cst.Attribute):
        return False
    owner = receiver.value
    while isinstance(owner, cst.Attribute | cst.Subscript):
        if isinstance(owner, cst.Attribute) and _MODEL_NAME.search(owner.attr.value):
            return True
        owner = owner.value
    return isinstance(owner, cst.Name) and _MODEL_NAME.search(owner.value) is not None


def _is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def _attribute_name(node: cst.BaseExpression, owner: cst.ClassDef, module: cst.Module) -> str | None:
    """The attribute name a ``setattr`` gives: a string, or a constant of the class or the module
    bound to one (``self._STORAGE_ATTR`` with ``_STORAGE_ATTR = "_scale"``)."""
    text = string_value(node)
    if text is not None:
        return text
    if isinstance(node, cst.Attribute) and _is_self(node.value):
        wanted, scopes = node.attr.value, (owner.body, module)
    elif isinstance(node, cst.Name):
        wanted, scopes = node.value, (module,)
    else:
        return None
    for scope in scopes:
        for line in getattr(scope, "body", ()):
            for small in getattr(line, "body", ()) if isinstance(line, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Name) and t.target.value == wanted for t in small.targets
                ):
                    return string_value(small.value)
    return None
