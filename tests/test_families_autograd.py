"""Autograd bookkeeping and autograd routes (TPL001, TPL004) in their cross-module spellings: what a
helper in another module returns (autograd state, a model's parameters) is known where it is called.
The same families in one file are the rules' own examples."""

from __future__ import annotations

from helpers import lint_package

FLAGS = "import torch\n\ndef needs_graph(x):\n    return x.requires_grad and torch.is_grad_enabled()\n"
PARAMS = "def trainable(model):\n    return [p for p in model.parameters() if p.requires_grad]\n"


def test_a_route_chosen_by_another_modules_grad_flag_is_reported(tmp_path):
    route = (
        "import torch\nfrom pkg.flags import needs_graph\n\n"
        "def warp(x):\n    if needs_graph(x):\n        return slow(x)\n    return fast(x)\n"
    )
    files = {"pkg/__init__.py": "", "pkg/flags.py": FLAGS, "pkg/route.py": route}
    assert lint_package(tmp_path, files, "TPL004") == [("pkg/route.py", "TPL004", 5, 8)]


def test_a_local_folded_from_another_modules_grad_flag_is_reported(tmp_path):
    route = (
        "import torch\nfrom .flags import needs_graph\n\n"
        "def warp(x, training):\n    keep = needs_graph(x) and training\n    y = x * 2\n"
        "    return slow(y) if keep else y\n"
    )
    files = {"pkg/__init__.py": "", "pkg/flags.py": FLAGS, "pkg/route.py": route}
    assert lint_package(tmp_path, files, "TPL004") == [("pkg/route.py", "TPL004", 7, 23)]


def test_a_flag_read_by_name_in_another_module_chooses_a_route(tmp_path):
    flags = "def tracked(t):\n    return getattr(t, 'requires_grad', False)\n"
    route = (
        "import torch\nfrom pkg.flags import tracked\n\n"
        "def scale(c, d):\n    if tracked(d):\n        return c.clone() * d\n    return c.mul_(d)\n"
    )
    files = {"pkg/__init__.py": "", "pkg/flags.py": flags, "pkg/route.py": route}
    assert lint_package(tmp_path, files, "TPL004") == [("pkg/route.py", "TPL004", 5, 8)]


def test_detaching_or_rejecting_on_another_modules_grad_flag_is_no_route(tmp_path):
    route = (
        "import torch\nfrom pkg.flags import needs_graph\n\n"
        "def warp(x):\n    if needs_graph(x):\n        x = x.detach()\n    return x * 2\n\n"
        "def check(x):\n    if needs_graph(x):\n        msg = f'{x.shape} requires grad'\n"
        "        raise ValueError(msg)\n    return x\n"
    )
    files = {"pkg/__init__.py": "", "pkg/flags.py": FLAGS, "pkg/route.py": route}
    assert lint_package(tmp_path, files, "TPL004") == []


def test_parameters_from_another_modules_helper_are_bookkeeping(tmp_path):
    train = (
        "import torch\nfrom pkg.params import trainable\n\n"
        "def unfreeze(model):\n    for p in trainable(model):\n        p.requires_grad = True\n\n"
        "def ema(model, shadow):\n    for p, s in zip(trainable(model), shadow):\n"
        "        if p.requires_grad:\n            s.mul_(0.9).add_(p)\n"
    )
    files = {"pkg/__init__.py": "", "pkg/params.py": PARAMS, "pkg/train.py": train}
    assert lint_package(tmp_path, files, "TPL001", "TPL004") == []


def test_tensors_from_another_modules_helper_are_not_parameters(tmp_path):
    make = "import torch\n\ndef grids(n):\n    return [torch.zeros(n) for _ in range(3)]\n"
    route = (
        "import torch\nfrom pkg.make import grids\n\n"
        "def route(n):\n    for g in grids(n):\n        g.requires_grad = True\n"
        "        if g.requires_grad:\n            slow(g)\n"
    )
    files = {"pkg/__init__.py": "", "pkg/make.py": make, "pkg/route.py": route}
    assert lint_package(tmp_path, files, "TPL001", "TPL004") == [
        ("pkg/route.py", "TPL001", 6, 9),
        ("pkg/route.py", "TPL004", 7, 12),
    ]


def test_a_layers_weight_from_another_modules_helper_is_a_parameter(tmp_path):
    layers = (
        "def embeddings(model):\n    return model.get_input_embeddings()\n\ndef table(n):\n    return make(n)\n"
    )
    train = (
        "import torch\nfrom pkg.layers import embeddings, table\n\n"
        "def unfreeze(model):\n    embeddings(model).weight.requires_grad = True\n"
        "    if embeddings(model).bias.requires_grad:\n        model.mark()\n\n"
        "def route(ctx, n):\n    t = table(n)\n    t.requires_grad = True\n"
        "    ctx.weight.requires_grad_()\n    return t\n"
    )
    files = {"pkg/__init__.py": "", "pkg/layers.py": layers, "pkg/train.py": train}
    assert lint_package(tmp_path, files, "TPL001", "TPL004") == [
        ("pkg/train.py", "TPL001", 11, 5),
        ("pkg/train.py", "TPL001", 12, 5),
    ]


def test_a_flag_another_modules_helper_reads_from_the_inputs_is_passed_along(tmp_path):
    flags = "def wants_grad(x):\n    return x.requires_grad\n\ndef is_big(x):\n    return x.numel() > 9\n"
    route = (
        "import torch\nfrom pkg.flags import wants_grad, is_big\n\n"
        "def logm(m):\n    rg, big = wants_grad(m), is_big(m)\n    w = wants_grad(m)\n    out = m * 2\n"
        "    if w:\n        out.requires_grad_()\n    b = is_big(m)\n    if b:\n        out.requires_grad_()\n"
        "    return out\n"
    )
    files = {"pkg/__init__.py": "", "pkg/flags.py": flags, "pkg/route.py": route}
    assert lint_package(tmp_path, files, "TPL001") == [("pkg/route.py", "TPL001", 12, 9)]


def test_a_subclass_of_another_modules_autograd_function_defines_a_backward_pass(tmp_path):
    function = (
        "import torch\n\nclass QuantizedFunction(torch.autograd.Function):\n"
        "    @staticmethod\n    def backward(ctx, g):\n        return g\n\nclass Plain:\n    pass\n"
    )
    weights = (
        "from pkg.function import QuantizedFunction, Plain\nfrom pkg import function\n\n"
        "class AWQ(QuantizedFunction):\n    @staticmethod\n    def backward(ctx, g):\n"
        "        if g.requires_grad:\n            return g * 2\n        return g\n\n"
        "class Marlin(function.QuantizedFunction):\n    pass\n\nclass Config(Plain):\n    pass\n"
    )
    files = {"pkg/__init__.py": "", "pkg/function.py": function, "pkg/weights.py": weights}
    assert lint_package(tmp_path, files, "TPL001", "TPL004") == [
        ("pkg/function.py", "TPL001", 3, 25),
        ("pkg/weights.py", "TPL001", 4, 11),
        ("pkg/weights.py", "TPL001", 11, 14),
    ]


def test_a_forward_that_drops_what_another_modules_rule_says_the_backward_needs_is_no_route(tmp_path):
    rules = "def cache_x(op, grad_x, grad_y):\n    return grad_y\n"
    op = (
        "import torch\nfrom pkg.rules import cache_x\n\nclass Op(torch.autograd.Function):\n"
        "    @staticmethod\n    def forward(ctx, op, x, y):\n        out = x * y\n"
        "        if not cache_x(op, x.requires_grad, y.requires_grad):\n            x = None\n"
        "        ctx.save_for_backward(x, y)\n        return out\n\n"
        "    @staticmethod\n    def backward(ctx, g):\n        x, y = ctx.saved_tensors\n"
        "        return None, g * y, g * x\n\n"
        "def route(op, x, y):\n    if not cache_x(op, x.requires_grad, y.requires_grad):\n        return x * y\n"
        "    return torch.mul(x, y)\n"
    )
    files = {"pkg/__init__.py": "", "pkg/rules.py": rules, "pkg/op.py": op}
    assert lint_package(tmp_path, files, "TPL004") == [("pkg/op.py", "TPL004", 19, 24)]
