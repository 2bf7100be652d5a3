"""Call arguments written on a command line: ``tensor:3x64x128x128,dtype=uint8``, ``eye:3x4``,
``coords:32x64x64``, ``layout=CDHW``, ``(64,128,128)``.

One argument is one word:

- ``tensor:SHAPE`` / ``array:SHAPE`` - a CPU tensor or a NumPy array of that shape (``3x64x128x128``),
  with options after commas: ``dtype=`` (default ``float32``), ``values=random|zeros|ones|arange``
  (random by default: uniform in [0, 1) for floats, 0 to 255 for integers, from a fixed seed),
  ``scale=X`` (values times X), ``order=AXES`` (memory order, outermost axis first, as digits:
  ``order=1230`` stores a CDHW tensor channels-last), ``step=AXIS:N`` (a view of every N-th element
  along AXIS of a buffer N times as long) and, for arrays, ``readonly``;
- ``eye:N`` or ``eye:RxC`` - a float64 NumPy identity matrix (``eye:3x4`` is an identity affine map);
- ``coords:DxHxW`` - float32 ``(D, H, W, 3)`` voxel coordinates ``(x, y, z)`` of each voxel itself
  (an identity map), with ``scale=X`` and ``container=tensor`` as options;
- ``NAME=VALUE`` - a keyword argument, VALUE being any of these;
- anything else - a Python literal (``(64,128,128)``, ``0.5``, ``None``), or a plain word
  (letters, digits, ``_``, ``.``, ``-``, ``/``: ``CDHW``, ``linear``) as a string. Other text is an
  error, so an expression such as ``(np.ones(3),)*3`` is never passed along as a string.
"""

from __future__ import annotations

import ast
import re

import numpy as np
import torch

_PLAIN_WORD = re.compile(r"^[\w./-]*$")
_KEYWORD = re.compile(r"^(?P<name>[A-Za-z_]\w*)=(?P<value>.*)$", re.DOTALL)
_SEED = 0


class SpecError(ValueError):
    """An argument spec that cannot be built; the message names the spec."""


def call_arguments(words: list[str]) -> tuple[list[object], dict[str, object]]:
    """Positional and keyword arguments from ``words``, in order."""
    args: list[object] = []
    kwargs: dict[str, object] = {}
    for word in words:
        keyword = _KEYWORD.match(word)
        if keyword:
            kwargs[keyword["name"]] = value(keyword["value"])
        else:
            args.append(value(word))
    return args, kwargs


def value(word: str) -> object:
    """The object one word stands for."""
    kind, _, rest = word.partition(":")
    builders = {"tensor": _array, "array": _array, "eye": _eye, "coords": _coords}
    if rest and kind in builders:
        shape_text, *options = rest.split(",")
        try:
            return builders[kind](kind, _shape(shape_text), _options(options))
        except (TypeError, ValueError, RuntimeError) as error:
            raise SpecError(f"{word!r}: {error}") from None
    try:
        return ast.literal_eval(word)
    except (ValueError, SyntaxError):
        if _PLAIN_WORD.match(word):
            return word
        raise SpecError(
            f"{word!r}: not a spec, a Python literal or a plain word (an expression cannot be evaluated here)"
        ) from None


def _shape(text: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(size) for size in text.split("x"))
    except ValueError:
        raise ValueError(f"a shape is sizes joined by 'x' such as 3x64x64, got {text!r}") from None
    if any(size < 0 for size in shape):
        raise ValueError(f"sizes must not be negative, got {text!r}")
    return shape


def _options(items: list[str]) -> dict[str, str]:
    options = {}
    for item in items:
        name, _, setting = item.partition("=")
        options[name.strip()] = setting.strip()
    return options


def _array(kind: str, shape: tuple[int, ...], options: dict[str, str]) -> torch.Tensor | np.ndarray:
    known = {"dtype", "values", "scale", "order", "step"} | ({"readonly"} if kind == "array" else set())
    _refuse_unknown(options, known)
    dtype = np.dtype(options.get("dtype", "float32"))
    order = _order(options.get("order"), len(shape))
    axis, every = _step(options.get("step"), len(shape))
    wide = tuple(size * every if index == axis else size for index, size in enumerate(shape))
    stored = tuple(wide[index] for index in order)
    data = np.transpose(_values(stored, dtype, options), np.argsort(order))
    if every > 1:
        data = data[
            tuple(slice(None, None, every) if index == axis else slice(None) for index in range(len(shape)))
        ]
    if kind == "tensor":
        return torch.from_numpy(data)
    if "readonly" in options:
        data.flags.writeable = False
    return data


def _values(shape: tuple[int, ...], dtype: np.dtype, options: dict[str, str]) -> np.ndarray:
    how = options.get("values", "random")
    rng = np.random.default_rng(_SEED)
    if how == "random":
        data = rng.integers(0, 256, shape) if dtype.kind in "iu" else rng.random(shape)
    elif how in ("zeros", "ones"):
        data = np.zeros(shape) if how == "zeros" else np.ones(shape)
    elif how == "arange":
        data = np.arange(int(np.prod(shape))).reshape(shape)
    else:
        raise ValueError(f"values must be random, zeros, ones or arange, got {how!r}")
    if "scale" in options:
        data = data * float(options["scale"])
    return np.ascontiguousarray(data.astype(dtype))


def _order(text: str | None, rank: int) -> tuple[int, ...]:
    if text is None:
        return tuple(range(rank))
    order = tuple(int(digit) for digit in text)
    if sorted(order) != list(range(rank)):
        raise ValueError(f"order must list each of the {rank} axes once, outermost first, got {text!r}")
    return order


def _step(text: str | None, rank: int) -> tuple[int, int]:
    if text is None:
        return 0, 1
    axis, _, every = text.partition(":")
    if not axis.isdigit() or not every.isdigit() or int(axis) >= rank or int(every) < 1:
        raise ValueError(f"step is AXIS:N, an axis below {rank} and N of at least 1, got {text!r}")
    return int(axis), int(every)


def _eye(kind: str, shape: tuple[int, ...], options: dict[str, str]) -> np.ndarray:
    _refuse_unknown(options, set())
    if len(shape) not in (1, 2):
        raise ValueError("eye takes N or RxC")
    return np.eye(*shape) if len(shape) == 2 else np.eye(shape[0])


def _coords(kind: str, shape: tuple[int, ...], options: dict[str, str]) -> torch.Tensor | np.ndarray:
    _refuse_unknown(options, {"scale", "container"})
    if len(shape) != 3:
        raise ValueError("coords takes DxHxW")
    z, y, x = np.meshgrid(*(np.arange(size, dtype=np.float32) for size in shape), indexing="ij")
    coords = np.stack([x, y, z], axis=-1) * np.float32(options.get("scale", 1.0))
    container = options.get("container", "array")
    if container not in ("array", "tensor"):
        raise ValueError(f"container must be array or tensor, got {container!r}")
    return torch.from_numpy(coords) if container == "tensor" else coords


def _refuse_unknown(options: dict[str, str], known: set[str]) -> None:
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"unknown option {unknown[0]!r} (known: {', '.join(sorted(known)) or 'none'})")
