"""V-trace off-policy targets and policy-gradient advantages (IMPALA).

Source: L. Espeholt et al., "IMPALA: Scalable Distributed Deep-RL with
Importance Weighted Actor-Learner Architectures", ICML 2018,
https://arxiv.org/abs/1802.01561 -- equation (1) for the targets ``v_s`` and
section 4.2 for the policy-gradient advantage.

The n-step V-trace target of ``V(x_s)`` (paper eq. 1, with the constant
discount ``gamma`` replaced by a per-step discount ``gamma_t`` so that episode
ends inside the window cut the sums) is::

    v_s = V(x_s) + sum_{t=s}^{s+n-1} (prod_{i=s}^{t-1} gamma_i c_i) delta_t V
    delta_t V = rho_t (r_t + gamma_t V(x_{t+1}) - V(x_t))
    rho_t = min(rho_bar, pi(a_t|x_t) / mu(a_t|x_t))
    c_i   = min(c_bar,   pi(a_i|x_i) / mu(a_i|x_i))

where ``mu`` is the behaviour policy that generated the actions and ``pi`` the
target (current) policy.  It is computed here with the equivalent backward
recursion (paper, remark 1 of section 4.1)::

    v_s - V(x_s) = delta_s V + gamma_s c_s (v_{s+1} - V(x_{s+1})),
    v_n - V(x_n) = 0   (x_n is the bootstrap state)

The actor-critic policy gradient (section 4.2) uses the advantage::

    A_s = rho_s (r_s + gamma_s v_{s+1} - V(x_s)),  with v_n = V(x_n).
"""

from __future__ import annotations

import torch

__all__ = ["vtrace"]


@torch.no_grad()
def vtrace(
    behaviour_log_probs: torch.Tensor,
    target_log_probs: torch.Tensor,
    rewards: torch.Tensor,
    values: torch.Tensor,
    bootstrap_value: torch.Tensor,
    discounts: torch.Tensor,
    rho_bar: float = 1.0,
    c_bar: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Compute V-trace value targets and policy-gradient advantages.

    Time is the leading dimension, the batch (environments) the second.  The
    computation is vectorised over the batch; there is one backward loop over
    the ``T`` time steps.  It runs on the device of the inputs and never
    produces a graph (inputs that require grad are detached).

    Args:
        behaviour_log_probs: ``[T, B]`` float, ``log mu(a_t | x_t)`` of the
            actions actually taken, under the policy that took them.
        target_log_probs: ``[T, B]`` float, ``log pi(a_t | x_t)`` of the same
            actions under the policy being learned.
        rewards: ``[T, B]`` float, ``r_t`` received after taking ``a_t``
            (already clipped/scaled as the learner wants).
        values: ``[T, B]`` float, ``V(x_t)`` for ``t = 0 .. T-1``.
        bootstrap_value: ``[B]`` float, ``V(x_T)``, the value of the state
            following the last transition of the window.
        discounts: ``[T, B]`` float, ``gamma_t = gamma * (1 - done_t)``: the
            discount applied to everything after transition ``t``; 0 where the
            episode ended with transition ``t``.
        rho_bar: truncation level ``rho_bar`` of the importance weights in
            ``delta_t V`` and in the policy-gradient advantage.
        c_bar: truncation level ``c_bar`` of the trace coefficients ``c_i``.

    Returns:
        ``(vs, pg_advantages)``, both ``[T, B]`` with the dtype of ``values``:
        ``vs[s]`` is the V-trace target ``v_s`` for ``V(x_s)`` and
        ``pg_advantages[s] = min(rho_bar, rho_s) * (r_s + gamma_s v_{s+1} - V(x_s))``.
    """
    if values.dim() != 2:
        raise ValueError(f"expected [T, B] tensors, got values of shape {tuple(values.shape)}")
    shape = values.shape
    for name, t in (("behaviour_log_probs", behaviour_log_probs),
                    ("target_log_probs", target_log_probs),
                    ("rewards", rewards), ("discounts", discounts)):
        if t.shape != shape:
            raise ValueError(f"{name} has shape {tuple(t.shape)}, expected {tuple(shape)}")
    if bootstrap_value.shape != shape[1:]:
        raise ValueError(f"bootstrap_value has shape {tuple(bootstrap_value.shape)}, "
                         f"expected {tuple(shape[1:])}")

    dtype = values.dtype
    values = values.detach()
    bootstrap_value = bootstrap_value.detach().to(dtype)
    rewards = rewards.detach().to(dtype)
    discounts = discounts.detach().to(dtype)
    log_rhos = (target_log_probs.detach() - behaviour_log_probs.detach()).to(dtype)
    rhos = torch.exp(log_rhos)
    clipped_rhos = torch.clamp(rhos, max=rho_bar)
    cs = torch.clamp(rhos, max=c_bar)

    # V(x_{t+1}) for t = 0 .. T-1.
    values_tp1 = torch.cat([values[1:], bootstrap_value.unsqueeze(0)], dim=0)
    deltas = clipped_rhos * (rewards + discounts * values_tp1 - values)

    # Backward recursion over time: acc_s = v_s - V(x_s).
    vs_minus_v = torch.empty_like(values)
    acc = torch.zeros_like(bootstrap_value)
    decay = discounts * cs
    for t in range(shape[0] - 1, -1, -1):
        acc = deltas[t] + decay[t] * acc
        vs_minus_v[t] = acc
    vs = vs_minus_v + values

    vs_tp1 = torch.cat([vs[1:], bootstrap_value.unsqueeze(0)], dim=0)
    pg_advantages = clipped_rhos * (rewards + discounts * vs_tp1 - values)
    return vs, pg_advantages
