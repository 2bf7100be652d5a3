"""``torchperf-lint probe MODULE:FUNCTION ARG...``: text and JSON, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from torchperf_lint.cli import main  # noqa: E402
from torchperf_lint.probe.inputs import SpecError, call_arguments  # noqa: E402

KERNELS = "probe.kernels"


def test_a_kept_call_exits_0_and_prints_the_report(capsys):
    code = main(["probe", f"{KERNELS}:resize_no_grad", "tensor:3x4x5x6", "(8,10,12)"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[1] == "  input  volume: Tensor float32 (3, 4, 5, 6) strides (120, 30, 6, 1) contiguous"
    assert "         11,520 B  aten.upsample_trilinear3d -> float32 (1, 3, 8, 10, 12)\n" in out
    assert out.endswith("contract: kept\n")


def test_a_breach_exits_1_and_json_carries_the_breaches(capsys):
    code = main(
        ["probe", f"{KERNELS}:resize_inference", "tensor:3x4x5x6", "size=(8,10,12)", "--output-format", "json"]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    assert data["inference_outputs"] == ["result"]
    assert data["breaches"][0] == "returns inference tensors: result"
    assert (data["allocated_bytes"], data["internal_bytes"], data["full_size_copies"]) == (12240, 720, [])


def test_base_report_gives_the_diff(tmp_path, capsys):
    main(["probe", f"{KERNELS}:scale_channels_last", "tensor:3x4x5x6", "--output-format", "json"])
    base = tmp_path / "base.json"
    base.write_text(capsys.readouterr().out)
    assert main(["probe", f"{KERNELS}:scale_channels_last_copied", "tensor:3x4x5x6", "--base", str(base)]) == 0
    out = capsys.readouterr().out
    assert f"against {base}:\n  +1 full-size copy per call\n" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nowhere:fn"], "torchperf-lint: error: cannot import nowhere: No module named 'nowhere'"),
        ([f"{KERNELS}"], f"torchperf-lint: error: the function to probe is MODULE:FUNCTION, got '{KERNELS}'"),
        ([f"{KERNELS}:missing"], f"torchperf-lint: error: {KERNELS} has no attribute 'missing'"),
        ([f"{KERNELS}:resize_no_grad", "tensor:3xa"], "torchperf-lint: error: cannot build argument "
         "'tensor:3xa': a shape is sizes joined by 'x' such as 3x64x64, got '3xa'"),
        ([f"{KERNELS}:reads_values", "tensor:2x2x2,scale=-1"],
         f"torchperf-lint: error: {KERNELS}:reads_values raised ValueError: negative"),
    ],
)  # fmt: skip
def test_usage_import_and_call_errors_exit_2_with_one_line(argv, message, capsys):
    assert main(["probe", *argv]) == 2
    assert capsys.readouterr().err == message + "\n"


def test_without_torch_the_command_names_the_extra(tmp_path):
    code = (
        "import sys\nsys.modules['torch'] = None\nfrom torchperf_lint.cli import main\n"
        "sys.exit(main(['probe', 'x:y']))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr == (
        "torchperf-lint: error: torchperf_lint.probe.probe_call needs torch; the `probe` extra installs it: "
        'install the CPU build of torch first, then `pip install ".[probe]"` in a checkout of torchperf-lint\n'
    )


def test_argument_specs():
    args, kwargs = call_arguments(
        ["tensor:3x4x5x6,dtype=uint8,order=1230", "array:4x5x6x3,step=3:2,readonly", "eye:3x4", "(4,5,6)",
         "coords:2x3x4,container=tensor,scale=2", "layout=CDHW"]
    )  # fmt: skip
    channels_last, strided, matrix, size, coords = args
    assert (channels_last.dtype, channels_last.stride()) == (torch.uint8, (1, 90, 18, 3))
    assert (strided.strides, strided.flags.writeable) == ((720, 144, 24, 8), False)
    assert matrix.tolist() == [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]] and size == (4, 5, 6)
    assert coords.shape == (2, 3, 4, 3) and coords[1, 2, 3].tolist() == [6.0, 4.0, 2.0]
    assert kwargs == {"layout": "CDHW"}
    with pytest.raises(SpecError, match=r"'tensor:2x2,size=3': unknown option 'size' \(known: dtype, order"):
        call_arguments(["tensor:2x2,size=3"])


def test_a_plain_word_is_a_string_and_an_expression_is_an_error():
    assert call_arguments(["linear", "mode=nearest-exact", "path=data/vol.npy"]) == (
        ["linear"],
        {"mode": "nearest-exact", "path": "data/vol.npy"},
    )
    with pytest.raises(SpecError, match=r"^'\(np.ones\(3\),\)\*3': not a spec, a Python literal or a plain word"):
        call_arguments(["kernels=(np.ones(3),)*3"])


def test_the_report_names_the_file_probed_and_a_base_of_the_same_file_is_refused(tmp_path, capsys):
    import inspect

    from probe import kernels

    assert main(["probe", f"{KERNELS}:scale_channels_last", "tensor:3x4x5x6", "--output-format", "json"]) == 0
    base = tmp_path / "base.json"
    base.write_text(capsys.readouterr().out)
    assert json.loads(base.read_text())["defined_in"] == inspect.getsourcefile(kernels)
    assert main(["probe", f"{KERNELS}:scale_channels_last", "tensor:3x4x5x6", "--base", str(base)]) == 2
    assert capsys.readouterr().err == (
        "torchperf-lint: error: the base report probed the same function in the same file, "
        f"{inspect.getsourcefile(kernels)}, with the same arguments: put the base tree first on the import "
        "path (PYTHONPATH) when probing the base\n"
    )
    # the two sides of a threshold: the same function and file, other inputs
    assert main(["probe", f"{KERNELS}:scale_channels_last", "tensor:3x4x5x7", "--base", str(base)]) == 0
