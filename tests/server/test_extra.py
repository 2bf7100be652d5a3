"""Without the ``server`` extra, ``torchperf-lint server`` names the extra and exits 2."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import CONSOLE_SCRIPT

#: Imported by ``site`` at start-up: makes ``import <module>`` fail as if it were not installed.
HIDE = "import sys\nsys.modules[{module!r}] = None\n"


@pytest.mark.parametrize("module", ["pygls", "lsprotocol"])
def test_the_server_without_its_extra_says_which_extra_to_install_and_exits_2(tmp_path: Path, module: str):
    (tmp_path / "sitecustomize.py").write_text(HIDE.format(module=module))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    result = subprocess.run([CONSOLE_SCRIPT, "server"], capture_output=True, text=True, env=env, input="")
    assert result.returncode == 2
    first, command = result.stderr.splitlines()
    assert first.startswith("torchperf-lint: error: the language server needs the `server` extra (")
    assert first.endswith("); install it with:")
    # The development install is editable, so the hint repeats it; tests/test_install_hints.py runs it.
    checkout = Path(__file__).resolve().parents[2]
    # The hint names the interpreter the console script runs, whichever of the venv's names for it
    # (python, python3.11) its first line holds.
    interpreter, _, rest = command.strip().partition(" ")
    assert Path(interpreter).resolve() == Path(sys.executable).resolve()
    assert rest == f"-m pip install -e {shlex.quote(f'{checkout}[server]')}"
    assert result.stdout == ""


def test_the_rest_of_the_command_line_works_without_the_extra(tmp_path: Path):
    (tmp_path / "sitecustomize.py").write_text(HIDE.format(module="pygls") + HIDE.format(module="lsprotocol"))
    (tmp_path / "k.py").write_text("import torch\ny = x.cuda()\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    result = subprocess.run(
        [CONSOLE_SCRIPT, "--no-cache", "k.py"], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert (result.returncode, result.stdout.splitlines()[0]) == (
        1,
        "k.py:2:5: TPL003 `.cuda()` moves work to a non-CPU device; routes are CPU-only by contract",
    )
