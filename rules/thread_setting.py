"""TPL104: library code that changes the process's thread counts."""

from __future__ import annotations

import libcst as cst

from torchperf_lint.fixes import PendingFix
from torchperf_lint.rule import Invalid, Rule
from torchperf_lint.toolkit.exemptions import test_files
from torchperf_lint.toolkit.matching import method_name, positional, string_value, walk

_SETTERS = frozenset({"torch.set_num_threads", "torch.set_num_interop_threads"})
#: Calls that read the command line: a function making them is an application's entry point.
_COMMAND_LINE_METHODS = frozenset({"parse_args", "parse_known_args"})
#: Decorators that turn a function into a command (``@click.command()``, ``@app.command()``,
#: ``@hydra.main(...)``), also as one name (``@hydra_main(...)``, a wrapper of ``hydra.main``).
_COMMAND_DECORATORS = frozenset({"command", "main"})
THREAD_VARIABLES = frozenset(
    {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"}
)


class ThreadSetting(Rule):
    code = "TPL104"
    name = "thread-setting"
    hint = "Set threads in the application's or benchmark's entry point only."
    summary = "Thread counts set from library code"
    message = "`{what}` sets thread counts for the whole process; leave that to the application or benchmark"
    why = (
        "Thread counts are process-wide. A kernel that calls `torch.set_num_threads` or writes "
        "`OMP_NUM_THREADS` overrides the application's choice for every other library, and makes "
        "benchmark results depend on import order. Entry scripts and benchmarks set threads on "
        "purpose, so they are exempt by default."
    )
    example = "torch.set_num_threads(1)  # in a kernel module"
    use_instead = "def main():\n    torch.set_num_threads(args.threads)  # in the benchmark's entry point"
    notes = (
        "Flagged: `torch.set_num_threads`, `torch.set_num_interop_threads`, and writing "
        "OMP/MKL/OpenBLAS/NumExpr/vecLib thread variables through `os.environ[...] = `, "
        "`os.environ.setdefault`, `os.environ.update` or `os.putenv`, by name or through a loop over "
        "names that include one (`for env in ('MKL_NUM_THREADS', 'OMP_NUM_THREADS'): os.environ[env] = "
        "n`). Ignored by default in "
        "`bench*.py` files and `bench/`, `benchmarks/` folders (the default `per-file-ignores`), which "
        "set thread counts on purpose. Exempt everywhere: an application's entry point, which is where "
        'thread counts belong: the `if __name__ == "__main__":` block, and a function that reads the '
        "command line (it calls `parse_args()`/`parse_known_args()` or reads `sys.argv`) or is made a "
        "command by a decorator (`@click.command()`, `@app.command()`, `@hydra.main(...)`, or one name "
        "ending in `main` or `command`, such as `@hydra_main(...)`). A function "
        "handed arguments parsed elsewhere (`def run(args):`) is library code and is still flagged."
    ) + test_files("tests pin thread counts to make results and timings reproducible, as benchmarks do")
    options = (
        "- `per-file-ignores` / `extend-per-file-ignores`: the default exempts `bench*.py`, `bench/`, "
        "`benchmarks/` and test files; setting `per-file-ignores` replaces that default."
    )
    fix_safety = "No fix: where thread counts belong is a decision about the application."
    requires_text = ("torch", "_THREADS")
    valid = (
        "import torch\nn = torch.get_num_threads()\n",
        "import os\nos.environ['CUDA_VISIBLE_DEVICES'] = ''\n",
        "import os\nthreads = os.environ.get('OMP_NUM_THREADS')\n",
        "import os\ndef init(paths):\n    for key in ('HOME', 'TMPDIR'):\n        os.environ[key] = paths[key]\n",
        "import os\ndef init(env, n):\n    for key in env:\n        os.environ[key] = str(n)\n",
        # an application's entry point: the main block, a function parsing the command line, a command
        "import os, torch\nif __name__ == '__main__':\n    os.environ['MKL_NUM_THREADS'] = '1'\n"
        "    torch.set_num_interop_threads(1)\n",
        "import argparse, torch\ndef main():\n    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('-t', type=int)\n    args = parser.parse_args()\n"
        "    torch.set_num_threads(args.t)\n",
        "import sys, torch\ndef main():\n    torch.set_num_threads(int(sys.argv[1]))\n",
        "import click, torch\n@click.command()\n@click.option('--threads', type=int)\ndef run(threads):\n"
        "    torch.set_num_threads(threads)\n",
        # a command made by a wrapper imported under one name (dora's hydra_main, a project's own)
        "import os\nfrom dora import hydra_main\n@hydra_main(config_path='conf')\ndef main(args):\n"
        "    os.environ['OMP_NUM_THREADS'] = '1'\n",
        "import torch\nfrom .cli import app_command\n@app_command\ndef serve(threads):\n"
        "    torch.set_num_threads(threads)\n",
        "import torch\nfrom typer import Typer\napp = Typer()\n@app.command('run')\ndef run(threads: int):\n"
        "    torch.set_num_threads(threads)\n",
    )
    invalid = (
        Invalid("import torch\ntorch.set_num_threads(1)\n", ((2, 1),)),
        Invalid("import os\nos.environ['OMP_NUM_THREADS'] = '1'\n", ((2, 1),)),
        Invalid(  # a loop over the variables' names
            "import os\ndef init(threads):\n    for env in ('ITK_THREADS', 'MKL_NUM_THREADS', 'OMP_NUM_THREADS'):"
            "\n"
            "        os.environ[env] = str(threads)\n        os.environ.setdefault(env, '1')\n",
            ((4, 9), (5, 9)),
        ),
        Invalid("from os import environ\nenviron.setdefault('MKL_NUM_THREADS', '2')\n", ((2, 1),)),
        Invalid("import os\nos.environ.update(OPENBLAS_NUM_THREADS='1')\n", ((2, 1),)),
        Invalid(  # arguments parsed elsewhere, and a helper nested in an entry point that only defines it
            "import torch\ndef run(args):\n    torch.set_num_threads(args.threads)\n", ((3, 5),)
        ),
        Invalid(  # a decorator that makes no command (its last word is no command word)
            "import functools, torch\n@functools.lru_cache\ndef pin(n):\n    torch.set_num_threads(n)\n",
            ((4, 5),),
        ),
        Invalid(
            "import torch\nfrom x import cached_domain\n@cached_domain\ndef pin(n):\n"
            "    torch.set_num_threads(n)\n",
            ((5, 5),),
        ),
        Invalid(
            "import argparse, torch\ndef main():\n    def pin(n):\n        torch.set_num_threads(n)\n"
            "    args = argparse.ArgumentParser().parse_args()\n    return pin\n",
            ((4, 9),),
        ),
    )

    def report(self, node: cst.CSTNode, fix: PendingFix | None = None, **fields: str) -> None:
        """Every setting is reported the same way, unless it sits in the application's entry point."""
        if not _in_entry_point(self.ctx):
            super().report(node, fix, **fields)

    def visit_Call(self, node: cst.Call) -> None:
        qualname = self.ctx.qualname(node.func)
        if qualname in _SETTERS:
            self.report(node, what=qualname)
        elif qualname == "os.putenv" and self._names_variable(positional(node)[:1]):
            self.report(node, what="os.putenv")
        elif isinstance(node.func, cst.Attribute) and self.ctx.qualname(node.func.value) == "os.environ":
            method = method_name(node)
            if method == "setdefault" and self._names_variable(positional(node)[:1]):
                self.report(node, what="os.environ.setdefault")
            elif method == "update" and self._update_sets_variable(node):
                self.report(node, what="os.environ.update")

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            subscript = target.target
            if isinstance(subscript, cst.Subscript) and self.ctx.qualname(subscript.value) == "os.environ":
                index = subscript.slice[0].slice if len(subscript.slice) == 1 else None
                if not isinstance(index, cst.Index):
                    continue
                variable = self._variable(index.value)
                if variable is not None:
                    shown = repr(variable) if string_value(index.value) is not None else index.value.value
                    self.report(node, what=f"os.environ[{shown}] = ...")  # type: ignore[attr-defined]

    def _names_variable(self, args: list[cst.Arg]) -> bool:
        return bool(args) and self._variable(args[0].value) is not None

    def _variable(self, key: cst.BaseExpression) -> str | None:
        """The thread variable ``key`` names: a literal (``"OMP_NUM_THREADS"``), or the target of an
        enclosing loop over literals that include one (``for env in ("MKL_NUM_THREADS", ...)``)."""
        text = string_value(key)
        if text is not None:
            return text if text in THREAD_VARIABLES else None
        if not isinstance(key, cst.Name):
            return None
        for node in reversed(self.ctx.ancestors):
            if isinstance(node, cst.FunctionDef | cst.ClassDef | cst.Lambda):
                return None
            if (
                isinstance(node, cst.For)
                and isinstance(node.target, cst.Name)
                and node.target.value == key.value
                and isinstance(node.iter, cst.Tuple | cst.List | cst.Set)
            ):
                names = [string_value(element.value) for element in node.iter.elements]
                return next((name for name in names if name in THREAD_VARIABLES), None)
        return None

    def _update_sets_variable(self, node: cst.Call) -> bool:
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in THREAD_VARIABLES:
                return True
            if isinstance(arg.value, cst.Dict):
                keys = [e.key for e in arg.value.elements if isinstance(e, cst.DictElement)]
                if any(string_value(key) in THREAD_VARIABLES for key in keys):
                    return True
        return False


def _in_entry_point(ctx) -> bool:
    """Inside ``if __name__ == "__main__":``, or in a function that reads the command line or is a
    command: the application's own start, which decides the process's thread counts."""
    function = ctx.enclosing_function()
    if function is not None:
        return _reads_command_line(ctx, function) or any(_makes_command(d.decorator) for d in function.decorators)
    return any(isinstance(node, cst.If) and _is_main_test(node.test) for node in ctx.ancestors)


def _is_main_test(test: cst.BaseExpression) -> bool:
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    sides = (test.left, test.comparisons[0].comparator)
    return (
        isinstance(test.comparisons[0].operator, cst.Equal)
        and any(isinstance(side, cst.Name) and side.value == "__name__" for side in sides)
        and any(string_value(side) == "__main__" for side in sides)
    )


def _reads_command_line(ctx, function: cst.FunctionDef) -> bool:
    """The function's own body (not a nested def) calls ``parse_args()`` or reads ``sys.argv``."""
    for node in walk(function.body, into_functions=False):
        if isinstance(node, cst.Call) and method_name(node) in _COMMAND_LINE_METHODS:
            return True
        if isinstance(node, cst.Attribute) and ctx.qualname(node) == "sys.argv":
            return True
    return False


def _makes_command(decorator: cst.BaseExpression) -> bool:
    """``@x.command()``, ``@x.main(...)``, or a name whose last word is one of those (``@hydra_main``)."""
    func = decorator.func if isinstance(decorator, cst.Call) else decorator
    if isinstance(func, cst.Attribute):
        return func.attr.value in _COMMAND_DECORATORS
    return isinstance(func, cst.Name) and func.value.rpartition("_")[2] in _COMMAND_DECORATORS
