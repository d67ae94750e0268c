"""The CUDA backend of ``cule.Atari`` (``device="cuda"``).

Same API and results as the CPU backend; every output is a torch CUDA tensor on the
env's device, work is queued on PyTorch's current stream, and a step makes no host
synchronisation unless the caller reads a value on the host.
"""
from __future__ import annotations

import numpy as np
import torch


def cuda_available() -> bool:
    try:
        from . import _cuda  # noqa: F401
    except ImportError:
        return False
    return torch.cuda.is_available()


class CudaBackend:
    """Owns one cule._cuda.CudaBatch and the device tensors it writes into."""

    def __init__(self, config: dict, rom: bytes, num_envs: int, device: torch.device):
        from . import _cuda
        self.device = device
        self.n = num_envs
        index = device.index if device.index is not None else torch.cuda.current_device()
        self.batch = _cuda.CudaBatch(config, rom, num_envs, index)
        self.rewards = torch.zeros(num_envs, dtype=torch.int32, device=device)
        self.screen_height = config["screen_height"]

    @property
    def stream(self) -> int:
        return torch.cuda.current_stream(self.device).cuda_stream

    def load(self, seeds, modes, diffs, params):
        self.batch.load(np.ascontiguousarray(seeds, np.uint32), np.ascontiguousarray(modes, np.uint16),
                        np.ascontiguousarray(diffs, np.uint8), *params, self.stream)

    def set_mode(self, mode, difficulty):
        self.batch.set_mode(mode, difficulty, self.stream)

    def reset(self, ids: torch.Tensor, params):
        mask = torch.zeros(self.n, dtype=torch.uint8, device=self.device)
        mask[ids.to(self.device)] = 1
        self.batch.reset_masked(mask.data_ptr(), *params, self.stream)

    def act(self, actions: torch.Tensor, params) -> torch.Tensor:
        a = actions.to(device=self.device, dtype=torch.int64).contiguous()
        rewards = torch.empty(self.n, dtype=torch.int32, device=self.device)
        self.batch.act(a.data_ptr(), rewards.data_ptr(), *params, self.stream)
        return rewards

    def ram(self) -> torch.Tensor:
        out = torch.empty((self.n, 128), dtype=torch.uint8, device=self.device)
        self.batch.read_ram(out.data_ptr(), self.stream)
        return out

    def info(self):
        n, dev = self.n, self.device
        lives = torch.empty(n, dtype=torch.int32, device=dev)
        term = torch.empty(n, dtype=torch.uint8, device=dev)
        trunc = torch.empty(n, dtype=torch.uint8, device=dev)
        ep = torch.empty(n, dtype=torch.int32, device=dev)
        fr = torch.empty(n, dtype=torch.int32, device=dev)
        self.batch.read_info(lives.data_ptr(), term.data_ptr(), trunc.data_ptr(), ep.data_ptr(), fr.data_ptr(),
                             self.stream)
        return lives, term.bool(), trunc.bool(), ep, fr

    def screen_rgb(self) -> torch.Tensor:
        out = torch.empty((self.n, self.screen_height, 160, 3), dtype=torch.uint8, device=self.device)
        self.batch.screen_rgb(out.data_ptr(), self.stream)
        return out

    def screen_grayscale(self) -> torch.Tensor:
        out = torch.empty((self.n, self.screen_height, 160), dtype=torch.uint8, device=self.device)
        self.batch.screen_grayscale(out.data_ptr(), self.stream)
        return out
