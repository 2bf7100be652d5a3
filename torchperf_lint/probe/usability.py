"""Would a caller's next step work on the result? Tried on the real outputs, as a caller would.

An output made under ``inference_mode`` looks like any tensor until autograd has to save it (a
trainable layer's forward) or something updates it in place; both raise only then, downstream.
"""

from __future__ import annotations

import re

import numpy as np
import torch


def backward_problem(tensor: torch.Tensor) -> str | None:
    """Why ``tensor`` cannot feed a trainable layer and its backward pass, or None when it can.

    The layer is a trainable scale: its forward saves the input for the weight's gradient, which is
    what a convolution or linear layer does. Integer results are converted to float32 first, as a
    caller must.
    """
    weight = torch.ones((), requires_grad=True)
    with torch.enable_grad():
        try:
            value = tensor if tensor.is_floating_point() or tensor.is_complex() else tensor.to(torch.float32)
            (value * weight).real.sum().backward()
        except RuntimeError as error:
            return _first_sentence(error)
    return None


def inplace_problem(array: torch.Tensor | np.ndarray) -> str | None:
    """Why ``array`` cannot take an in-place update, or None when it can. The update writes the
    values already there, so the result is unchanged."""
    if isinstance(array, np.ndarray):
        return None if array.flags.writeable else "the array is read-only"
    try:
        with torch.no_grad():
            array.copy_(array.clone())
    except RuntimeError as error:
        return _first_sentence(error)
    return None


def _first_sentence(error: Exception) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return re.split(r"\.(?=\s|[A-Z]|$)", text, maxsplit=1)[0]
