"""Entry points read from the metadata folders on ``sys.path``, as ``importlib.metadata`` reads them."""

from __future__ import annotations

import sys
from importlib import metadata

from torchperf_lint.entry_points import EntryPoint, entry_points


def _distribution(folder, name: str, text: str) -> None:
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(text)


def test_the_group_is_read_and_the_first_distribution_of_a_name_wins(tmp_path, monkeypatch):
    first, second = tmp_path / "first", tmp_path / "second"
    _distribution(first, "rule_pack", "# rules\n[torchperf_lint.rules]\nmine = rule_pack:RULES\n[other]\nx = y\n")
    _distribution(second, "rule_pack", "[torchperf_lint.rules]\nshadowed = old_pack:RULES\n")
    _distribution(second, "extra", "[torchperf_lint.rules]\n# a comment\nextra = extra.rules:PACK [fast]\n")
    monkeypatch.setattr(sys, "path", [str(first), str(second)])

    found = entry_points("torchperf_lint.rules")

    assert found == [EntryPoint("mine", "rule_pack:RULES"), EntryPoint("extra", "extra.rules:PACK [fast]")]
    assert [(p.name, p.value) for p in metadata.entry_points(group="torchperf_lint.rules")] == [
        (p.name, p.value) for p in found
    ]
    assert found[1].module == "extra.rules"


def test_an_entry_point_loads_the_attribute_it_names():
    assert EntryPoint("join", "os.path:join").load() is __import__("os").path.join
    assert EntryPoint("path", "os.path").load() is __import__("os").path
