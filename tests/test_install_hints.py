"""Every install command the project prints or documents works from a clone, in a fresh venv.

The package is on no index, so a hint must name where the user installed from: the checkout
(``pip install ".[server]"``), the repository's URL, or, in the server's message, the source pip
recorded. The commands are read from the README and the skill, run as written (the README's
placeholder repository URL becomes the clone's), and must not fall back on an
index entry that does not exist.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from test_install import checked, fresh_venv

from torchperf_lint.installation import requirement

ROOT = Path(__file__).resolve().parents[1]
#: The README's stand-in for wherever the repository is hosted.
PLACEHOLDER_URL = "https://example.org/your-mirror/torchperf-lint"
#: Commands whose packages do come from an index, that CI runs itself (the set-up line), or that install
#: the project a reviewer is reviewing (the skill's placeholder for its own extras).
NOT_HINTS = ("torch==", "torchfix", '-e ".[dev]"', '".[EXTRAS]"')


def documented_commands() -> list[str]:
    """Every ``pip install`` of the README and of SKILL.md that installs this project."""
    texts = [ROOT / "README.md", ROOT / "skill" / "torchperf-review" / "SKILL.md"]
    found = []
    for text in (path.read_text() for path in texts):
        for command in re.findall(r"pip install [^`\n;)]*", text):
            command = command.split("  #")[0].strip().split(" && ")[0]
            if not any(marker in command for marker in NOT_HINTS):
                found.append(command)
    return sorted(set(found))


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """The repository's files as they are in the working tree (what git would commit: tracked, and new
    files it does not ignore), committed in a new repository."""
    folder = tmp_path_factory.mktemp("clone") / "torchperf-lint"
    listing = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    tracked = subprocess.run(listing, cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        if (ROOT / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "clone"]):
        subprocess.run(command, cwd=folder, env=env, check=True)
    return folder


def pip(python: Path, command: str, cwd: Path) -> str:
    """Run a documented ``pip install ...`` with the venv's interpreter; what pip printed."""
    arguments = shlex.split(command)
    assert arguments[:2] == ["pip", "install"], command
    output = checked(python, "-m", *arguments, cwd=cwd)
    assert "does not provide the extra" not in output, output
    return output


def test_the_documented_commands_are_the_ones_this_test_runs():
    assert documented_commands() == [
        'pip install ".[kernels]"',
        'pip install ".[server]"',
        f'pip install "torchperf-lint @ git+{PLACEHOLDER_URL}"',
        f'pip install "torchperf-lint[server] @ git+{PLACEHOLDER_URL}"',
        "pip install .",
    ]


def test_every_documented_command_installs_from_a_clone(clone, tmp_path):
    python = fresh_venv(tmp_path / "venv")
    for command in documented_commands():
        # The URL names a host: pip's requirement parser refuses `git+file:///`, whose host is empty.
        pip(python, command.replace(PLACEHOLDER_URL, f"file://localhost{clone}"), cwd=clone)
        assert checked(python, "-c", "import torchperf_lint.rules; print('ok')", cwd=tmp_path) == "ok\n", command


def test_the_servers_hint_installs_the_extra_from_where_the_linter_came(clone, tmp_path):
    python = fresh_venv(tmp_path / "venv")
    pip(python, "pip install .", cwd=clone)
    script = tmp_path / "venv" / "bin" / "torchperf-lint"
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text("import sys\nsys.modules['pygls'] = None\n")
    missing = subprocess.run(
        [script, "server"], capture_output=True, text=True, input="", env={**os.environ, "PYTHONPATH": str(hide)}
    )
    assert missing.returncode == 2
    hint = missing.stderr.splitlines()[-1].strip()
    assert hint == f"{python} -m pip install {shlex.quote(f'{clone}[server]')}"
    checked(*shlex.split(hint), cwd=tmp_path)
    served = subprocess.run([script, "server"], capture_output=True, text=True, input="")
    assert served.returncode == 1 and "extra" not in served.stderr  # no `shutdown` before the input ended


@pytest.mark.parametrize(
    ("origin", "expected"),
    [
        ({"url": "file:///src/tpl", "dir_info": {}}, "'/src/tpl[server]'"),
        ({"url": "file:///src/my%20tpl", "dir_info": {"editable": True}}, "-e '/src/my tpl[server]'"),
        (
            {"url": "https://host/tpl.git", "vcs_info": {"vcs": "git", "commit_id": "ab12"}},
            "'torchperf-lint[server] @ git+https://host/tpl.git@ab12'",
        ),
        (
            {"url": "file:///w/torchperf_lint-0.1.0-py3-none-any.whl", "archive_info": {}},
            "'torchperf-lint[server] @ file:///w/torchperf_lint-0.1.0-py3-none-any.whl'",
        ),
    ],
    ids=["checkout", "editable", "repository", "wheel"],
)
def test_the_hint_repeats_the_recorded_source(origin, expected):
    assert requirement("server", origin) == expected


def test_without_a_record_the_hint_names_the_checkout_it_runs_from():
    assert requirement("server", None) == shlex.quote(f"{ROOT}[server]")
