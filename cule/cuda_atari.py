"""The CUDA backend of ``cule.Atari`` (``device="cuda"``).

Same API and results as the CPU backend; every output is a torch CUDA tensor on the
env's device, work is queued on PyTorch's current stream, and a step makes no host
synchronisation unless the caller reads a value on the host.

For tests without a GPU the same class also drives ``cule._cuda_emu``, the backend's
source compiled for the host (see ``emulated_module``): its "device" tensors are CPU
tensors and its stream is 0.
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


def emulated_module():
    """The host-compiled CUDA backend (``cule._cuda_emu``), for tests: its kernels run
    thread by thread on the CPU over host memory."""
    from . import _cuda_emu
    return _cuda_emu


class CudaBackend:
    """Owns one cule._cuda.CudaBatch and the device tensors it writes into.

    ``module`` (private, for tests): a module with the ``_cuda`` API to use instead;
    with ``cule._cuda_emu`` the tensors live on ``device`` (the CPU) and no torch.cuda
    call is made.
    """

    def __init__(self, config: dict, rom: bytes, num_envs: int, device: torch.device, module=None):
        if module is None:
            from . import _cuda as module
            self._emulated = False
        else:
            self._emulated = bool(getattr(module, "emulated", False))
        self.n = num_envs
        if self._emulated:
            index = 0
        else:
            index = device.index if device.index is not None else torch.cuda.current_device()
            # Pin "cuda" to the GPU the batch lives on: tensors made later must land
            # there even if the current device changes.
            device = torch.device("cuda", index)
        self.device = device
        self.batch = module.CudaBatch(config, rom, num_envs, index)
        self.screen_height = config["screen_height"]
        self.console_state_bytes = int(module.CudaBatch.console_state_bytes)
        self.frame_buffer_bytes = int(module.CudaBatch.frame_buffer_bytes)

    @property
    def stream(self) -> int:
        if self._emulated:
            return 0
        return torch.cuda.current_stream(self.device).cuda_stream

    def load(self, seeds, modes, diffs, params):
        self.batch.load(np.ascontiguousarray(seeds, np.uint32), np.ascontiguousarray(modes, np.uint16),
                        np.ascontiguousarray(diffs, np.uint8), *params, self.stream)

    def set(self, ids: torch.Tensor, what: int, index: int, values: torch.Tensor) -> None:
        """ALE setRAM / setMode / setDifficulty (``what`` 0 / 1 / 2) on envs ``ids``,
        env ``ids[k]`` getting ``values[k]``; the caller checks the values."""
        mask = torch.zeros(self.n, dtype=torch.uint8, device=self.device)
        full = torch.zeros(self.n, dtype=torch.int32, device=self.device)
        ids = ids.to(self.device)
        mask[ids] = 1
        full[ids] = values.to(device=self.device, dtype=torch.int32)
        self.batch.set_masked(mask.data_ptr(), what, index, full.data_ptr(), self.stream)

    def reset(self, ids: torch.Tensor, params):
        mask = torch.zeros(self.n, dtype=torch.uint8, device=self.device)
        mask[ids.to(self.device)] = 1
        self.batch.reset_masked(mask.data_ptr(), *params, self.stream)

    # ---- the device-side action check (no host synchronisation per step) ----
    #
    # Each act() gets a device flag the step kernel sets when an id is out of range
    # (that step then changes nothing); a copy of it to pinned host memory is queued
    # with an event.  Flags whose event has completed are looked at, without waiting,
    # by the next calls; at most _MAX_PENDING are outstanding (then the oldest is
    # waited for).  synchronize() waits for all.

    _MAX_PENDING = 16

    def _new_flag(self):
        return torch.empty(1, dtype=torch.int32, device=self.device)   # cleared by the backend

    def _queue_check(self, bad: torch.Tensor) -> None:
        if self._emulated:
            if int(bad[0]):
                self._pending_error = True
            return
        host = torch.empty(1, dtype=torch.int32, pin_memory=True)
        host.copy_(bad, non_blocking=True)
        event = torch.cuda.Event()
        event.record(torch.cuda.current_stream(self.device))
        self._pending.append((event, host, bad))

    def raise_pending(self, wait: bool = False) -> None:
        """Raise the ValueError of an earlier act() whose actions were out of range (of
        the class ``bad_action_error``, a ValueError subclass, where one is set)."""
        pending = getattr(self, "_pending", None)
        if pending is None:
            self._pending = pending = []
        while pending and (wait or len(pending) > self._MAX_PENDING or pending[0][0].query()):
            event, host, _ = pending.pop(0)
            event.synchronize()
            if int(host[0]):
                self._pending_error = True
        if getattr(self, "_pending_error", False):
            self._pending_error = False
            pending.clear()
            raise getattr(self, "bad_action_error", ValueError)(getattr(self, "bad_action_message", None) or
                             "actions contains ids outside [0, 18): an earlier act() on the GPU got them and "
                             "changed nothing")

    def synchronize(self) -> None:
        if not self._emulated:
            torch.cuda.current_stream(self.device).synchronize()
        self.raise_pending(wait=True)

    def act(self, actions: torch.Tensor, params) -> torch.Tensor:
        self.raise_pending()
        a = actions.to(device=self.device, dtype=torch.int64).contiguous()
        rewards = torch.empty(self.n, dtype=torch.int32, device=self.device)
        bad = self._new_flag()
        self.batch.act(a.data_ptr(), rewards.data_ptr(), bad.data_ptr(), *params, self.stream)
        self._queue_check(bad)
        return rewards

    @property
    def render_last(self) -> int:
        return self.batch.render_last

    @render_last.setter
    def render_last(self, r: int) -> None:
        self.batch.render_last = r

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

    def export_state(self, ids: torch.Tensor):
        """Consoles ``ids`` (int64 [k], in range, may repeat) as uint8 tensors on the device:
        [k, console_state_bytes] and [k, frame_buffer_bytes], the CPU backend's layout."""
        ids = ids.to(device=self.device, dtype=torch.int64).contiguous()
        k = int(ids.numel())
        consoles = torch.empty((k, self.console_state_bytes), dtype=torch.uint8, device=self.device)
        fbs = torch.empty((k, self.frame_buffer_bytes), dtype=torch.uint8, device=self.device)
        self.batch.export_state(ids.data_ptr(), k, consoles.data_ptr(), fbs.data_ptr(), self.stream)
        return consoles, fbs

    def import_state(self, ids: torch.Tensor, consoles: torch.Tensor, fbs: torch.Tensor) -> None:
        """Overwrite consoles ``ids`` (distinct, in range) with rows of uint8 tensors
        [k, console_state_bytes] and [k, frame_buffer_bytes] (any device)."""
        ids = ids.to(device=self.device, dtype=torch.int64).contiguous()
        consoles = consoles.to(device=self.device).contiguous()
        fbs = fbs.to(device=self.device).contiguous()
        self.batch.import_state(ids.data_ptr(), int(ids.numel()), consoles.data_ptr(), fbs.data_ptr(),
                                self.stream)
