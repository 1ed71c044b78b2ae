"""The torch device a model runs on: CUDA where a gpu worker has it, else the CPU."""

from __future__ import annotations

import torch


def pick_device(device: str | torch.device | None = "auto") -> torch.device:
    """CUDA when available for ``"auto"`` or None, else the named device."""
    if device is None or device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)
