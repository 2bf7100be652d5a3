"""Every bad argument gets an error of the right type whose message names the argument."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torchperf_lint.reference_kernels import remap3d, warp_affine3d  # noqa: E402

GOOD = torch.zeros(1, 2, 3, 4, 5)
M = np.eye(4)


def warp(volume=GOOD, matrix=M, size=(3, 4, 5), **kw):
    kw.setdefault("layout", "NCDHW")
    return warp_affine3d(volume, matrix, size, **kw)


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: warp(layout="NCHW"), ValueError, "layout must be one of"),
        (lambda: warp(layout="NDHWC"), ValueError, "layout 'NDHWC' is for NumPy arrays"),
        (lambda: warp(np.zeros((1, 3, 4, 5, 2), np.float32)), ValueError, "layout 'NCDHW' is for tensors"),
        (lambda: warp(GOOD[0]), ValueError, "volume with layout 'NCDHW' must have rank 5"),
        (lambda: warp(GOOD.double()), TypeError, "volume dtype must be torch.uint8 or torch.float32"),
        (lambda: warp(np.zeros((3, 4, 5, 2), np.int16), layout="DHWC"), TypeError, "volume dtype must be uint8"),
        (lambda: warp(GOOD.clone().requires_grad_()), ValueError, "volume requires grad"),
        (lambda: warp([[1.0]]), TypeError, "volume must be a torch.Tensor or a numpy.ndarray"),
        (lambda: warp(torch.zeros(1, 0, 3, 4, 5)), ValueError, "at least one channel"),
        (lambda: warp(matrix=np.eye(3)), ValueError, "matrix must have shape (3, 4) or (4, 4)"),
        (lambda: warp(matrix=[["a"] * 4] * 3), TypeError, "matrix must be array-like of numbers"),
        (lambda: warp(matrix=np.full((3, 4), np.nan)), ValueError, "matrix must contain only finite values"),
        (lambda: warp(matrix=np.zeros((3, 4))), ValueError, "matrix is not invertible"),
        (lambda: warp(matrix=np.vstack([np.eye(3, 4), [0, 0, 1, 1]])), ValueError, "matrix bottom row"),
        (lambda: warp(size=(3, 4)), ValueError, "size must be (depth, height, width)"),
        (lambda: warp(size=(3, 0, 5)), ValueError, "size must hold three positive integers"),
        (lambda: warp(size=(3, 4.0, 5)), ValueError, "size must hold three positive integers"),
        (lambda: warp(interpolation="cubic"), ValueError, "interpolation must be 'linear' or 'nearest'"),
        (lambda: warp(border_mode="reflect"), ValueError, "border_mode must be 'constant' or 'replicate'"),
        (lambda: warp(border_value=[1, 2, 3]), ValueError, "border_value must have 1 or 2 values"),
        (lambda: warp(border_value="x"), TypeError, "border_value must be a number"),
        (lambda: warp(border_value=float("inf")), ValueError, "border_value must be finite"),
        (lambda: remap3d(GOOD, np.zeros((2, 2, 2, 3)), layout="NCDHW"), TypeError, "coords dtype must be float32"),
        (
            lambda: remap3d(GOOD, np.zeros((2, 2, 3), np.float32), layout="NCDHW"),
            ValueError,
            "coords must have shape",
        ),
        (  # one map serves the whole batch; a map per item is refused, as the README says
            lambda: remap3d(GOOD, np.zeros((2, 2, 2, 2, 3), np.float32), layout="NCDHW"),
            ValueError,
            "coords must have shape (D_out, H_out, W_out, 3), got (2, 2, 2, 2, 3)",
        ),
        (lambda: remap3d(GOOD, [[0.0]], layout="NCDHW"), TypeError, "coords must be a numpy.ndarray"),
        (
            lambda: remap3d(GOOD, np.full((1, 1, 1, 3), np.inf, np.float32), layout="NCDHW"),
            ValueError,
            "coords must contain only finite values",
        ),
        (
            lambda: remap3d(GOOD, torch.zeros(1, 1, 1, 3, requires_grad=True), layout="NCDHW"),
            ValueError,
            "coords requires grad",
        ),
    ],
)
def test_bad_arguments_are_named(call, error, words):
    with pytest.raises(error) as raised:
        call()
    assert words in str(raised.value)


def test_layout_is_keyword_only_and_required():
    with pytest.raises(TypeError):
        warp_affine3d(GOOD, M, (3, 4, 5), "NCDHW")
    with pytest.raises(TypeError):
        remap3d(GOOD, np.zeros((1, 1, 1, 3), np.float32))


def test_one_nan_among_finite_coords_is_refused():
    coords = np.zeros((2, 2, 2, 3), np.float32)
    coords[1, 0, 1, 2] = np.nan
    with pytest.raises(ValueError, match="coords must contain only finite values"):
        remap3d(GOOD, coords, layout="NCDHW")


def test_finite_coords_whose_sum_overflows_float32_are_accepted():
    coords = np.full((2, 2, 2, 3), 3.0e38, np.float32)  # far outside the volume: every voxel reads the fill
    result = remap3d(GOOD, coords, layout="NCDHW", border_value=7.0)
    assert torch.equal(result, torch.full((GOOD.shape[0], GOOD.shape[1], 2, 2, 2), 7.0))
