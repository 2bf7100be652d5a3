"""TPL002: compilation or graph capture in code that must stay eager."""

from __future__ import annotations

import re

import libcst as cst

from torchperf_lint.fixes import SAFE, NodeEdit, PendingFix
from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.matching import (
    is_reference,
    is_torch_name,
    method_name,
    positional,
    source_of,
    string_value,
    walk,
)
from torchperf_lint.toolkit.scopes import dotted
from torchperf_lint.toolkit.traversal import in_source_order

_COMPILERS = (
    "torch.compile",
    "torch.jit.script",
    "torch.jit.trace",
    "torch.jit.trace_module",
    "torch.jit.script_method",
    "torch.jit.freeze",
    "torch.jit.optimize_for_inference",
    "torch.jit.CompilationUnit",
    "torch.jit.script_if_tracing",
    "torch.export.export",
    "torch.fx.symbolic_trace",
    "torch.onnx.export",
    "torch.onnx.dynamo_export",
    # Third-party compilers that wrap torch.compile or TorchScript, matched where the import resolves.
    "torch_tensorrt.compile",
    "torch_tensorrt.dynamo.compile",
    "torch_tensorrt.ts.compile",
    "torch2trt.torch2trt",
    "thunder.jit",
)
#: Loaders of TorchScript modules: what they return runs as a graph, not as eager Python.
_LOADERS = frozenset({"torch.jit.load", "torch.jit._load_for_lite_interpreter"})
#: Taking only a loaded module's weights runs none of its graph.
_WEIGHTS_METHOD = "state_dict"
#: Packages whose every member is compiler machinery: internal ones and the public ``torch.compiler`` API.
_COMPILER_PACKAGES = ("torch._dynamo", "torch._inductor", "torch.compiler")
#: Queries that only ask whether code is being compiled or exported; eager code may ask them freely.
_QUERY_PREFIX = "is_"
#: Compilers whose removal leaves a function returning the same values.
_EAGER_EQUIVALENT = frozenset(
    {"torch.compile", "torch.jit.script", "torch.jit.script_method", "torch.jit.script_if_tracing"}
)
#: What a compiler does, where "compiles or captures a graph" would say more than is true of every call.
_EFFECTS = {"torch.jit.script_if_tracing": "scripts the function whenever it is traced"}
#: Keywords of ``torch.compile`` that ``nn.Module.compile`` passes on to it.
_COMPILE_KEYWORDS = frozenset({"backend", "fullgraph", "dynamic", "mode", "options"})


class Compilation(Rule):
    code = "TPL002"
    name = "compilation"
    hint = "Remove the compile/script wrapper and benchmark the eager route."
    summary = "`torch.compile`, TorchScript, dynamo or graph capture"
    message = "`{what}` {effect}; public routes stay eager"
    why = (
        "The contract promises eager CPU routes. Compilation adds a warm-up the first call pays, "
        "recompiles when shapes or dtypes change, and makes the measured route differ from the one "
        "that runs. Graph capture with `torch.export.export` or `torch.fx.symbolic_trace` is "
        "included: it is the first step of the same machinery."
    )
    example = "@torch.compile\ndef warp(volume): ..."
    use_instead = "def warp(volume): ...  # eager, benchmarked as such"
    notes = (
        "Matches the qualified name however it was imported: `torch.compile`, TorchScript "
        "(`torch.jit.script`, `trace`, `freeze`, `optimize_for_inference`, `CompilationUnit`, and "
        "`script_if_tracing`, which turns a traced caller's call into a scripted graph), "
        "`torch.export.export`, `torch.fx.symbolic_trace`, "
        "`torch.onnx.export`, every member of the public `torch.compiler` API (`reset`, "
        "`load_compiled_function`, `disable`...) and of `torch._dynamo`/`torch._inductor` (imports "
        "included), and third-party compilers where their import resolves (`torch_tensorrt.compile`, "
        "`torch2trt.torch2trt`, `thunder.jit`), also when the module is imported by a call: a name "
        'bound to `optional_import("torch_tensorrt")`, `importlib.import_module(...)` or '
        "`__import__(...)`, a project function returning one, or such a name imported from another "
        "module of the project. `nn.Module.compile` is flagged when called with `torch.compile`'s own "
        "keywords (`model.compile(backend=...)`, `mode=`, `fullgraph=`, `dynamic=`, `options=`), which "
        "no other library's `compile` takes. `torch.jit.load` is flagged too: the module it returns runs as a "
        "TorchScript graph, unless only its weights are taken (`torch.jit.load(p).state_dict()`, "
        "after `.eval()` or through a local used for nothing else), or the loaded module is bound to a "
        "local that is never read (a check that a saved file loads), which runs no graph. Exempt: "
        "queries whose name starts with `is_` "
        '(`torch.compiler.is_compiling()`, `getattr(torch._dynamo, "is_compiling")`), which only ask '
        "whether code is being compiled and are how eager code stays compatible; a feature check "
        "`callable(torch.compile)` or `inspect.signature(torch.onnx.export)`, which compiles nothing (the "
        "call it guards is still flagged); "
        "`re.compile` and "
        "local functions named `compile`, which are not torch; a compiling function's own name assigned "
        "or deleted (`torch.compile = mocked`, `del torch.compile`, a test installing a mock), which "
        "replaces the name and compiles nothing (setting `torch._dynamo.config` values configures the "
        "compiler and is still flagged). Test files are not exempt: "
        "a test that compiles a route is a compiled candidate, which the contract rules out."
    )
    fix = "safe"
    fix_safety = (
        "A `@torch.compile`, `@torch.jit.script`, `@torch.jit.script_method` or "
        "`@torch.jit.script_if_tracing` decorator is deleted, and `torch.compile(fn, ...)`, "
        "`torch.jit.script(fn)` or `torch.jit.script_if_tracing(fn)` is replaced by `fn`: the function then "
        "runs eagerly and returns the same values, which is what the contract measures. Tracing, "
        "export and dynamo calls have no fix: they take example inputs or change what is returned."
    )
    valid = (
        # a star-importing module that binds ``torch`` itself says what it is
        "from .helpers import *\ntorch = Flame()\ntorch.compile(fuel)\n",
        "import re\npattern = re.compile('x')\n",
        "import torch\ndef has_compiler():\n    return hasattr(torch, 'compile') and callable(torch.compile)\n",
        "from torch import compile\nSUPPORTED = callable(compile)\n",
        # asking what the exporter takes: directly, from-imported, through the module alias
        "import inspect\nimport torch\nDYNAMO = 'dynamo' in inspect.signature(torch.onnx.export).parameters\n",
        "from inspect import signature, getfullargspec\nfrom torch.onnx import export\n"
        "ARGS = getfullargspec(export).args\nHAS = 'dynamo' in signature(export).parameters\n",
        "def compile(src):\n    return src\ncompile('a')\n",
        "import torch\nclass M:\n    def compile(self):\n        pass\nM().compile()\n",
        "from torch import compile\ndef f(compile):\n    return compile(1)\n",
        "import torch\nx = torch.jit\n",
        # other libraries' ``compile`` methods take no torch.compile keywords
        "import torch\ndef f(model, pattern):\n    model.compile(optimizer='adam', loss='mse')\n"
        "    return pattern.compile()\n",
        # a test installing a mock in place of a compiler and removing it again compiles nothing
        "import torch\ndef setup(mocked):\n    torch.compile = mocked\n    yield\n    del torch.compile\n",
        "from torch import jit\ndef patch(fake):\n    jit.script, jit.trace = fake, fake\n",
        "import torch\nclass T:\n    def setUp(self):\n        self.saved = 1\n"
        "        torch.jit.trace: object = None\n",
        "import torch\nif torch.compiler.is_compiling():\n    pass\n",
        "import torch\nf = getattr(torch._dynamo, 'is_compiling', None)\n",
        "from torch._dynamo.utils import is_compile_supported\nok = is_compile_supported('cpu')\n",
        "def compile(model):\n    return model\ntorch_tensorrt = None\ncompile(1)\n",
        "import importlib\nimport torch\nnp = importlib.import_module('numpy')\nx = np.compile(1)\n",
        "import torch\nstate = torch.load('weights.pt')\n",
        "import torch\ndef f(p):\n    return build(torch.jit.load(p, map_location='cpu').state_dict())\n",
        "import torch\ndef f(p):\n    return build(torch.jit.load(p).eval().state_dict())\n",
        "from torch import jit\ndef f(p):\n    model = jit.load(p, map_location='cpu').eval()\n"
        "    return build(model.state_dict())\n",
        # loaded and never read: a check that the saved file loads
        "import torch\ndef f(m, p):\n    torch.jit.save(m, p)\n    loaded = torch.jit.load(p)\n    return p\n",
        "from torch import jit\ndef f(p, check):\n    if check:\n        _ = jit.load(p, map_location='cpu')\n",
        "import torch\ndef f(p):\n    with open(p, 'rb') as h:\n        model = torch.jit.load(h).eval()\n"
        "    model = build(model.state_dict())\n    return model(1)\n",
    )
    invalid = (
        # ``torch`` brought in by a star import (``from .torch_imports import *``) is still torch
        Invalid("from .torch_imports import *\ndef f(fn):\n    return torch.jit.script(fn)\n", ((3, 12),)),
        Invalid("import torch\nmodel = torch.jit.load('m.pt')\n", ((2, 9),)),
        # ``nn.Module.compile`` with torch.compile's keywords, on a local, an attribute or a loop value
        Invalid(
            "import torch\ndef f(model, backend):\n    model.compile(backend=backend)\n"
            "    model.head.compile(mode='max-autotune')\n    for m in model.layers:\n"
            "        m.compile(fullgraph=True, dynamic=False)\n",
            ((3, 5), (4, 5), (6, 9)),
        ),
        # a compiler stored under another name, or a target's value, is still a compiler
        Invalid("import torch\nclass M:\n    def __init__(self):\n        self.fn = torch.compile\n", ((4, 19),)),
        Invalid("import torch\nfn, n = torch.jit.script, 1\n", ((2, 9),)),
        # setting the compiler's configuration configures it: only the compiler's own name is mocked
        Invalid("import torch\ntorch._dynamo.config.suppress_errors = True\n", ((2, 1),)),
        Invalid("import torch\ndef f(p):\n    return torch.jit.load(p).eval()(1)\n", ((3, 12),)),
        Invalid(  # the feature check passes; the compile it guards is a compiled route
            "import torch\ndef f(fn):\n    if callable(torch.compile):\n        fn = torch.compile(fn)\n"
            "    return fn\n",
            ((4, 14),),
        ),
        Invalid(  # a compiled model handed to an introspecting function is compiled all the same
            "import inspect\nimport torch\ndef f(model):\n    return inspect.signature(torch.compile(model))\n",
            ((4, 30),),
        ),
        Invalid(
            "import torch\ndef f(p, jit):\n    model = torch.jit.load(p).eval()\n    if not jit:\n"
            "        model = build(model.state_dict())\n    return model\n",
            ((3, 13),),
        ),
        Invalid(
            "import torch\ndef f(p):\n    m = torch.jit.load(p)\n    w = m.state_dict()\n    return m(w)\n",
            ((3, 9),),
        ),
        Invalid(
            "import torch\nfrom monai.utils import optional_import\n"
            "trt, has_trt = optional_import('torch_tensorrt')\n"
            "def f(model):\n    return trt.compile(model, ir='dynamo')\n",
            ((5, 12),),
        ),
        Invalid(
            "import importlib\nimport torch\ndef _trt():\n    return importlib.import_module('torch_tensorrt')\n"
            "def f(model):\n    return _trt().compile(model)\n",
            ((6, 12),),
        ),
        Invalid(
            "import torch\n@torch.compile\ndef f(x):\n    return x\n",
            ((2, 2),),
            fixed="import torch\ndef f(x):\n    return x\n",
        ),
        Invalid(
            "import torch\n@functools.cache\n@torch.compile(mode='max-autotune')\ndef f(x):\n    pass\n",
            ((3, 2),),
            fixed="import torch\n@functools.cache\ndef f(x):\n    pass\n",
        ),
        Invalid(
            "from torch import compile as c\ng = c(f, dynamic=False)\n",
            ((2, 5),),
            fixed="from torch import compile as c\ng = f\n",
        ),
        Invalid("from torch import jit\ng = jit.script(f)\n", ((2, 5),), fixed="from torch import jit\ng = f\n"),
        Invalid("import torch\ng = torch.jit.trace(f, example)\n", ((2, 5),)),
        Invalid(  # scripting under tracing: by attribute, imported by name, and through an alias
            "import torch\n@torch.jit.script_if_tracing\ndef f(x):\n    return x\n",
            ((2, 2),),
            fixed="import torch\ndef f(x):\n    return x\n",
        ),
        Invalid(
            "from torch.jit import script_if_tracing\n@script_if_tracing\ndef f(x):\n    return x\n",
            ((2, 2),),
            fixed="from torch.jit import script_if_tracing\ndef f(x):\n    return x\n",
        ),
        Invalid(
            "import torch.jit as tj\ndef f(x):\n    return x\ng = tj.script_if_tracing(f)\n",
            ((4, 5),),
            fixed="import torch.jit as tj\ndef f(x):\n    return x\ng = f\n",
        ),
        Invalid(
            "import torch\nm = torch.jit.optimize_for_inference(torch.jit.script(model))\n", ((2, 5), (2, 38))
        ),
        Invalid("import functools, torch as T\ng = functools.partial(T.compile, f)\n", ((2, 23),)),
        Invalid("import torch._dynamo\n", ((1, 8),)),
        Invalid("import torch\ntorch._dynamo.reset()\n", ((2, 1),)),
        Invalid("import torch\ntorch.onnx.export(model, args, 'm.onnx')\n", ((2, 1),)),
        Invalid(
            "import torch\ntorch.compiler.reset()\nfn = torch.compiler.load_compiled_function(f)\n",
            ((2, 1), (3, 6)),
        ),
        Invalid("import torch_tensorrt as trt\nm = trt.compile(model, ir='dynamo')\n", ((2, 5),)),
        Invalid("from torch import compiler\n@compiler.disable\ndef f(x):\n    pass\n", ((1, 19), (2, 2))),
    )

    def visit_Call(self, node: cst.Call) -> None:
        """``model.compile(backend="inductor")``: ``nn.Module.compile`` runs ``torch.compile`` on the
        module's forward. Known by ``torch.compile``'s own keywords, which no other ``compile`` takes."""
        if method_name(node) != "compile" or not self.ctx.imports_torch or self.ctx.qualname(node.func):
            return
        if any(arg.keyword is not None and arg.keyword.value in _COMPILE_KEYWORDS for arg in node.args):
            self.report(node, what=f"{source_of(node.func)}(...)", effect="compiles the module with torch.compile")

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.ctx.imported_names:  # any other bare name has no qualified name
            self._check_reference(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._check_reference(node)

    def _check_reference(self, node: cst.Name | cst.Attribute) -> None:
        qualname = self.ctx.qualname(node) or self._imported_by_name(node)
        if qualname is None or not is_reference(self.ctx, node):
            return
        if (qualname in _COMPILERS or qualname in _LOADERS) and _rebound(self.ctx, node):
            return
        if qualname in _LOADERS:
            if not _only_weights_taken(self.ctx):
                self.report(node, what=qualname, effect="runs a TorchScript graph instead of eager code")
        elif qualname in _COMPILERS:
            if _asked_whether_callable(self.ctx):
                return
            effect = _EFFECTS.get(qualname, "compiles or captures a graph")
            self.report(node, fix=_eager_fix(self.ctx, node, qualname), what=qualname, effect=effect)
        elif is_torch_name(qualname, *_COMPILER_PACKAGES) and not self._is_query(qualname):
            self.report(node, what=_member_of(qualname), effect="belongs to the compiler stack")

    def _imported_by_name(self, node: cst.Name | cst.Attribute) -> str | None:
        """The qualified name of a chain whose root is a module imported by name: a local bound to
        ``optional_import("torch_tensorrt")`` or ``importlib.import_module(...)``, or a call to a
        project function that returns one (``_tensorrt().compile(model)``)."""
        if not isinstance(node, cst.Attribute):
            return None  # a bare name is a module itself at most, never a member of one
        attributes: list[str] = []
        while isinstance(node, cst.Attribute):
            attributes.append(node.attr.value)
            node = node.value
        module = None
        if isinstance(node, cst.Name):
            module = _modules_imported_by_name(self.ctx).get(node.value)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name | cst.Attribute):
            callee = self.ctx.qualname(node.func)
            if callee is None and isinstance(node.func, cst.Name):
                callee = f"{self.ctx.module_name}.{node.func.value}"
            kind = self.ctx.kernel.returns.get(callee or "", "")
            module = kind.removeprefix("module:") if kind.startswith("module:") else None
        return ".".join([module, *reversed(attributes)]) if module and attributes else None

    def _is_query(self, qualname: str) -> bool:
        """``torch.compiler.is_compiling``, or ``getattr(torch._dynamo, "is_compiling", ...)``."""
        if qualname.rpartition(".")[2].startswith(_QUERY_PREFIX):
            return True
        arg, call = self.ctx.parent, self.ctx.ancestors[-3] if len(self.ctx.ancestors) > 2 else None
        if not (isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and isinstance(call.func, cst.Name)):
            return False
        args = positional(call)
        if call.func.value not in ("getattr", "hasattr") or len(args) < 2 or args[0] is not arg:
            return False
        attribute = string_value(args[1].value)
        return attribute is not None and attribute.startswith(_QUERY_PREFIX)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        parent = self.ctx.parent
        name = dotted(node.name)
        if isinstance(parent, cst.ImportFrom):
            base = dotted(parent.module) if parent.module is not None and not parent.relative else None
            name = f"{base}.{name}" if base else None
        if name is not None and is_torch_name(name, *_COMPILER_PACKAGES):
            if not name.rpartition(".")[2].startswith(_QUERY_PREFIX):
                self.report(node, what=_member_of(name), effect="belongs to the compiler stack")


#: The text of a call whose callee's name says it imports, with a string first (``optional_import("m"``,
#: ``import_module('m'``): a file without one binds no module by a call, so its tree need not be walked.
_IMPORT_CALL = re.compile(r"import\w*\s*\(\s*[rRbBuU]?['\"]", re.IGNORECASE)


def _rebound(ctx, node: cst.CSTNode) -> bool:
    """``torch.compile = mocked``, ``del torch.compile`` or one name of a tuple target: the name is
    replaced or removed (a test installing a mock), and nothing is compiled."""
    holders = reversed(ctx.ancestors[:-1])  # the reference's enclosing nodes, innermost first
    child = node
    for holder in holders:
        if isinstance(holder, cst.Element | cst.Tuple | cst.List):
            child = holder
            continue
        targets = (holder.target,) if isinstance(holder, cst.AssignTarget | cst.AnnAssign | cst.Del) else ()
        return any(target is child for target in targets)
    return False


def _asked_whether_callable(ctx) -> bool:
    """``callable(torch.compile)`` or ``inspect.signature(torch.onnx.export)``: a feature check (is
    this torch new enough, does the exporter take ``dynamo=``?) that compiles nothing."""
    arg, call = ctx.parent, ctx.ancestors[-3] if len(ctx.ancestors) > 2 else None
    if not (isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and len(call.args) == 1):
        return False
    if isinstance(ctx.ancestors[-1], cst.Call):
        return False  # ``inspect.signature(torch.compile(model))`` compiles the model first
    if isinstance(call.func, cst.Name) and call.func.value == "callable":
        return True
    return ctx.qualname(call.func) in _INTROSPECTING


#: Functions that read a callable's description (its parameters, source, documentation) without calling it.
_INTROSPECTING = frozenset({"inspect.signature", "inspect.getfullargspec", "inspect.getsource", "inspect.getdoc"})


def _only_weights_taken(ctx) -> bool:
    """``torch.jit.load(path).state_dict()``, directly, after ``.eval()``, or through a local used
    for nothing else in its function: the weights feed an eager model and no graph ever runs."""
    chain = list(reversed(ctx.ancestors))  # the loader reference first, then its enclosing nodes
    if len(chain) < 2 or not isinstance(chain[1], cst.Call) or chain[1].func is not chain[0]:
        return False
    result, rest = chain[1], chain[2:]
    while len(rest) > 1 and _is_method_call(rest[0], rest[1], result, "eval"):
        result, rest = rest[1], rest[2:]
    if rest and isinstance(rest[0], cst.Attribute) and rest[0].value is result:
        return rest[0].attr.value == _WEIGHTS_METHOD
    function = ctx.enclosing_function()
    if function is None or len(rest) < 1 or not isinstance(rest[0], cst.Assign):
        return False
    targets = rest[0].targets
    if len(targets) != 1 or not isinstance(targets[0].target, cst.Name):
        return False
    return _used_only_for_weights(function, rest[0], targets[0].target.value)


def _used_only_for_weights(function: cst.FunctionDef, binding: cst.Assign, name: str) -> bool:
    """Every read of ``name`` after ``binding``, up to a statement of the function's own body that
    rebinds it (``model = build(model.state_dict())``), is a ``.state_dict`` read, or there is none
    (a module loaded only to check that the file loads). A rebinding under
    a condition ends nothing: on the other path the loaded module is still what the name holds."""
    inside_binding = {id(node) for node in walk(binding)}
    unconditional = {
        id(small)
        for line in function.body.body
        if isinstance(line, cst.SimpleStatementLine)
        for small in line.body
    }
    reads: list[cst.Attribute] = []
    read_roots: set[int] = set()
    started = False
    for node in in_source_order(function.body):
        if node is binding:
            started = True
        if not started or id(node) in inside_binding:
            continue
        rebinding = (
            id(node) in unconditional
            and isinstance(node, cst.Assign)
            and any(isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets)
        )
        for part in walk(node.value) if rebinding else (node,):
            if isinstance(part, cst.Attribute) and isinstance(part.value, cst.Name) and part.value.value == name:
                reads.append(part)
                read_roots.add(id(part.value))
            elif isinstance(part, cst.Name) and part.value == name and id(part) not in read_roots:
                return False
        if rebinding:
            break
    return all(read.attr.value == _WEIGHTS_METHOD for read in reads)  # never read: nothing runs


def _is_method_call(attribute: cst.CSTNode, call: cst.CSTNode, receiver: cst.CSTNode, method: str) -> bool:
    return (
        isinstance(attribute, cst.Attribute)
        and attribute.value is receiver
        and attribute.attr.value == method
        and isinstance(call, cst.Call)
        and call.func is attribute
    )


def _modules_imported_by_name(ctx) -> dict[str, str]:
    """Names this file binds to a module imported by a call (computed once per file)."""
    key = ("imported-by-name", id(ctx.module))
    found = ctx.facts.get(key)
    if found is None:
        found = ctx.facts[key] = {}
        if _IMPORT_CALL.search(ctx.text):
            for node in walk(ctx.module):
                if isinstance(node, cst.Assign) and len(node.targets) == 1:
                    module = _import_call_module(node.value)
                    target = node.targets[0].target
                    if isinstance(target, cst.Tuple | cst.List) and target.elements:
                        target = target.elements[0].value
                    if module is not None and isinstance(target, cst.Name):
                        found[target.value] = module
    return found  # type: ignore[return-value]


def _import_call_module(value: cst.BaseExpression) -> str | None:
    """``"m"`` for ``optional_import("m")``, ``importlib.import_module("m")``, ``__import__("m")`` and
    ``optional_import("m")[0]``: any callee whose name says it imports a module named by a string."""
    if isinstance(value, cst.Subscript):
        value = value.value
    if not isinstance(value, cst.Call) or not value.args:
        return None
    func = value.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return string_value(value.args[0].value) if "import" in name.lower() else None


def _eager_fix(ctx, node: cst.CSTNode, qualname: str) -> PendingFix | None:
    """Delete a compiling decorator, or unwrap ``compile(fn, ...)`` to ``fn``; None where neither fits."""
    if qualname not in _EAGER_EQUIVALENT:
        return None
    outer = ctx.ancestors[-2] if len(ctx.ancestors) > 1 else None
    call = outer if isinstance(outer, cst.Call) and outer.func is node else None
    decorator = ctx.ancestors[-3 if call is not None else -2] if len(ctx.ancestors) > 2 else None
    if isinstance(decorator, cst.Decorator):
        return PendingFix(SAFE, f"Remove the `@{qualname}` decorator", (NodeEdit(decorator, whole_lines=True),))
    if call is not None and len(positional(call)) == 1 and call.args[0].keyword is None:
        unwrap = NodeEdit(call, source_of(call.args[0].value))
        return PendingFix(SAFE, f"Call the function eagerly instead of `{qualname}`", (unwrap,))
    return None


def _member_of(qualname: str) -> str:
    """``torch._dynamo`` for anything inside it; ``torch.compiler.reset`` for the public API."""
    parts = qualname.split(".")
    return ".".join(parts[:3] if parts[1] == "compiler" else parts[:2])
