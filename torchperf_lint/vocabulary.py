"""The torch names and idioms the project index and the rules both recognise, defined once.

Plain data and text tests only: the index reads CPython's ``ast`` and must not import LibCST, while
the rules read LibCST trees; both spell the contract's vocabulary from here.
"""

from __future__ import annotations

import re
from pathlib import Path

#: ``# torchperf: prevalidated`` on a ``def`` line marks a caller-prevalidated function.
PRAGMA = re.compile(r"#\s*torchperf:\s*prevalidated\b")

NO_GRAD = frozenset({"torch.no_grad", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"})
INFERENCE_MODE = frozenset({"torch.inference_mode", "torch.autograd.grad_mode.inference_mode"})
#: Context managers and decorators that stop autograd recording.
GRAD_GUARDS = NO_GRAD | INFERENCE_MODE
#: ``torch.set_grad_enabled`` under each name torch exports it by.
SET_GRAD_ENABLED = frozenset(
    {"torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "torch.autograd.grad_mode.set_grad_enabled"}
)
#: Context managers that turn recording back on inside a guard.
GRAD_ENABLERS = (
    frozenset({"torch.enable_grad", "torch.autograd.enable_grad", "torch.autograd.grad_mode.enable_grad"})
    | SET_GRAD_ENABLED
)

#: Collective communication calls that overwrite their first argument (a tensor, or a list they
#: fill) with what the processes exchanged.
COLLECTIVES = frozenset(
    "all_reduce broadcast reduce recv irecv scatter all_gather all_gather_into_tensor reduce_scatter "
    "reduce_scatter_tensor all_to_all all_to_all_single all_gather_object broadcast_object_list".split()
)
_DISTRIBUTED_MODULES = frozenset({"dist", "distributed"})


def is_collective(qualname: str) -> bool:
    """``torch.distributed.all_reduce`` and the same collective of a library's ``dist`` module
    (``mmengine.dist``, ``composer.utils.dist``): each fills its first argument with the result."""
    module, _, function = qualname.rpartition(".")
    return function in COLLECTIVES and (
        module.startswith("torch.distributed") or module.rpartition(".")[2] in _DISTRIBUTED_MODULES
    )


_F = "torch.nn.functional."
#: Sampling, convolution, interpolation, padding and matrix products: the calls whose saved inputs cost.
HEAVY_OPS = frozenset(
    {
        *(_F + name for name in ("grid_sample", "affine_grid", "interpolate", "upsample", "pad", "linear")),
        *(_F + f"conv{d}d" for d in (1, 2, 3)),
        *(_F + f"conv_transpose{d}d" for d in (1, 2, 3)),
        *(_F + f"{kind}_pool{d}d" for kind in ("avg", "max") for d in (1, 2, 3)),
        *(f"torch.conv{d}d" for d in (1, 2, 3)),
        "torch.matmul",
        "torch.mm",
        "torch.bmm",
        "torch.einsum",
        "torch.tensordot",
        "torch.baddbmm",
        "torch.addmm",
    }
)

#: Public members of ``torch.Tensor``, listed from the installed torch once (the file's header says
#: how), since the linter never imports torch: a member outside it says the value is not a tensor.
TENSOR_MEMBERS = frozenset(
    line
    for line in Path(__file__).with_name("tensor_members.txt").read_text(encoding="utf-8").splitlines()
    if line and not line.startswith("#")
)
#: Annotations that name a tensor: the class, a parameter, and the legacy typed tensor classes
#: (``seq: torch.LongTensor``), which old signatures still use for a tensor of that dtype.
TENSOR_TYPES = frozenset(
    {"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter"}
    | {
        f"torch.{prefix}{kind}Tensor"
        for prefix in ("", "cuda.")
        for kind in ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")
    }
)
#: ``np.array`` is a function, but written as an annotation it can only mean an array.
ARRAY_TYPES = frozenset({"numpy.ndarray", "numpy.typing.NDArray", "numpy.array"})
#: ``torch.autograd.Function`` under its public and module names: a subclass defines a backward pass.
AUTOGRAD_FUNCTIONS = frozenset(
    {"torch.autograd.Function", "torch.autograd.function.Function", "torch.autograd.function.InplaceFunction"}
)
#: Libraries whose subscripted annotations name the array type first: ``Float[torch.Tensor, "b c"]``.
SHAPED_TYPE_LIBRARIES = ("jaxtyping.", "torchtyping.")
#: pandas containers: their reductions are no tensor reads.
FRAME_TYPES = frozenset(
    {"pandas.DataFrame", "pandas.Series", "pandas.Index", "pandas.core.frame.DataFrame"}
    | {"pandas.core.series.Series"}
)

#: What a project function can return about the geometry of a positional parameter, recorded as
#: ``<measure>:<position>``: ``shape:0`` (``x.shape``, ``x.size()``), ``size:0`` (``x.shape[-1]``,
#: ``x.size(1)``), ``strides:0`` (``x.stride()``) and ``stride:0`` (``x.stride(1)``).
MEASURES = frozenset({"shape", "size", "strides", "stride"})

#: Device types that are not the CPU; a route to any of them breaks the CPU-only contract. Besides
#: torch's own, the names out-of-tree backends register or frameworks use for them (``"tpu"`` for
#: XLA, ``"neuron"``, ``"musa"``, ``"mlu"``...).
NON_CPU_DEVICES = frozenset(
    {"cuda", "mps", "xpu", "hip", "hpu", "npu", "xla", "mtia", "ipu", "vulkan", "privateuseone", "maia"}
    | {"tpu", "neuron", "musa", "mlu", "sdaa", "gcu"}
)
#: What a project function returns when every return names one of them (``f"cuda:{i}"``).
DEVICE_NAME = "device-name"


def named_device(text: str, whole: bool) -> str | None:
    """The device type a string names: ``"cuda:0"`` gives ``cuda``. ``text`` is the whole string, or
    (``whole`` false) the fixed start of one built at run time (``"cuda:" + str(i)``), which names a
    device only where an index follows, after a ``:``: ``"cuda" + suffix`` may be any word."""
    if not whole and ":" not in text:
        return None
    return text.split(":")[0].strip()


#: Exceptions whose ``raise`` outside an ``except`` block rejects an argument.
VALIDATION_ERRORS = frozenset(
    {"ValueError", "TypeError", "IndexError", "KeyError", "LookupError", "AssertionError"}
)
#: ``validate_x(...)``, ``check_x(...)``, ``ensure_x``, ``assert_x`` and ``torch._check``: validator calls.
VALIDATOR = re.compile(r"^_*(validate|check|ensure|assert)(_|$)")

#: What a check can be about, read from the text of its condition (or a validator's name).
PROPERTIES = ("container", "shape", "dtype", "device", "layout", "strides", "autograd", "value")
_PROPERTY_PATTERNS = (
    ("container", re.compile(r"\bisinstance\s*\(|\btype\s*\(")),
    ("shape", re.compile(r"\.(shape|ndim|dim|size|numel)\b|\blen\s*\(|\bshape\b|\bndim\b|\brank\b")),
    ("dtype", re.compile(r"\.?dtype\b|\bis_floating_point\b|\bis_complex\b")),
    ("device", re.compile(r"\.device\b|\.is_cuda\b|\.is_mps\b|\bdevice\b")),
    ("layout", re.compile(r"\blayout\b|\bmemory_format\b|\bchannels_last")),
    ("strides", re.compile(r"\.(stride|strides|is_contiguous|flags)\b|\bcontiguous\b")),
    ("autograd", re.compile(r"\brequires_grad\b|\bis_grad_enabled\b|\bgrad_fn\b")),
)


def check_properties(text: str) -> frozenset[str]:
    """The properties a check tests, from its condition's source (``volume.dtype != torch.uint8`` ->
    ``dtype``). A condition that names none of them tests a value (``k not in (1, 2, 3)``)."""
    found = frozenset(name for name, pattern in _PROPERTY_PATTERNS if pattern.search(text))
    return found or frozenset({"value"})


def validator_properties(name: str) -> frozenset[str]:
    """What a validator call checks: the property its name says (``check_dtype``), else everything."""
    named = check_properties(name.replace("_", " "))
    return named if named != {"value"} else frozenset(PROPERTIES)


#: A name that says its value is the caller's wish for gradients (``requires_grad``, ``need_grad``,
#: ``differentiable``, ``grad_enabled``, ``wrt_traj``: differentiate with respect to it), or against
#: them (``no_grad``, ``with_grad``, ``track_grads``).
GRAD_FLAG_NAME = re.compile(
    r"requires?_grad|needs?_grad|grad_enabled|differentiable|(?:^|_)(?:no|with|track|keep|compute)_grad(?:s|ients?)?(?:$|_)"
    r"|(?:^|_)wrt(?:$|_)",
    re.IGNORECASE,
)

#: Tensor methods whose result is a Python value, or no tensor at all.
NOT_TENSOR_METHODS = frozenset(
    "item tolist numpy dim ndimension size numel nelement stride storage_offset data_ptr element_size "
    "equal get_device untyped_storage storage type backward register_hook _nnz dense_dim sparse_dim "
    "is_contiguous is_floating_point is_complex is_signed is_pinned is_shared is_coalesced".split()
) | frozenset(  # methods tensors do not have: a value that has them was never a tensor
    "items keys values get replace startswith endswith format join lower upper strip".split()
)
