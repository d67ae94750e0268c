"""Tests of agents/vtrace.py against a literal transcription of IMPALA eq. (1)."""

import importlib.util
import os

import numpy as np
import pytest
import torch

torch.set_num_threads(1)

_PATH = os.path.join(os.path.dirname(__file__), os.pardir, "agents", "vtrace.py")
_spec = importlib.util.spec_from_file_location("vtrace", _PATH)
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
vtrace = _mod.vtrace


def reference_vtrace(mu_logp, pi_logp, rewards, values, bootstrap, discounts, rho_bar, c_bar):
    """Espeholt et al. (2018), eq. (1) and section 4.2, written out with loops.

    v_s = V(x_s) + sum_{t=s}^{T-1} (prod_{i=s}^{t-1} gamma_i c_i) delta_t V,
    delta_t V = rho_t (r_t + gamma_t V(x_{t+1}) - V(x_t)),
    A_s = rho_s (r_s + gamma_s v_{s+1} - V(x_s)),   v_T = V(x_T) = bootstrap.
    Plain float64 numpy, no recursion: a double loop over s and t per batch entry.
    """
    T, B = values.shape
    vs = np.zeros((T, B))
    adv = np.zeros((T, B))
    for b in range(B):
        V = list(values[:, b]) + [bootstrap[b]]
        ratio = [np.exp(pi_logp[t, b] - mu_logp[t, b]) for t in range(T)]
        rho = [min(rho_bar, x) for x in ratio]
        c = [min(c_bar, x) for x in ratio]
        for s in range(T):
            total = V[s]
            for t in range(s, T):
                coef = 1.0
                for i in range(s, t):
                    coef *= discounts[i, b] * c[i]
                delta = rho[t] * (rewards[t, b] + discounts[t, b] * V[t + 1] - V[t])
                total += coef * delta
            vs[s, b] = total
        for s in range(T):
            v_next = vs[s + 1, b] if s + 1 < T else bootstrap[b]
            adv[s, b] = rho[s] * (rewards[s, b] + discounts[s, b] * v_next - V[s])
    return vs, adv


def random_inputs(seed, T=9, B=6, gamma=0.95, done_prob=0.2):
    rng = np.random.default_rng(seed)
    mu_logp = np.log(rng.uniform(0.05, 1.0, size=(T, B)))
    pi_logp = mu_logp + rng.normal(0.0, 1.0, size=(T, B))  # ratios well above and below 1
    rewards = rng.normal(size=(T, B))
    values = rng.normal(size=(T, B))
    bootstrap = rng.normal(size=B)
    dones = rng.uniform(size=(T, B)) < done_prob
    dones[T // 2, 0] = True  # an episode end inside the window for sure
    dones[-1, 1] = True      # and one on the last step (bootstrap must be ignored)
    discounts = gamma * (1.0 - dones)
    return mu_logp, pi_logp, rewards, values, bootstrap, discounts


@pytest.mark.parametrize("rho_bar,c_bar", [(1.0, 1.0), (0.5, 0.5), (1.0, 0.5), (0.5, 1.0), (2.0, 1.5)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_paper_definition(rho_bar, c_bar, seed):
    inputs = random_inputs(seed)
    ratios = np.exp(inputs[1] - inputs[0])
    # the truncation is actually exercised on both sides
    assert (ratios > max(rho_bar, c_bar)).any() and (ratios < min(rho_bar, c_bar)).any()
    ref_vs, ref_adv = reference_vtrace(*inputs, rho_bar, c_bar)
    t = [torch.tensor(x, dtype=torch.float64) for x in inputs]
    vs, adv = vtrace(*t, rho_bar=rho_bar, c_bar=c_bar)
    np.testing.assert_allclose(vs.numpy(), ref_vs, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(adv.numpy(), ref_adv, rtol=1e-10, atol=1e-10)


def test_float32_and_no_grad():
    inputs = [torch.tensor(x, dtype=torch.float32) for x in random_inputs(3)]
    for x in inputs:
        x.requires_grad_(True)
    vs, adv = vtrace(*inputs)
    assert vs.dtype == adv.dtype == torch.float32
    assert vs.shape == adv.shape == inputs[3].shape
    assert not vs.requires_grad and not adv.requires_grad
    ref_vs, ref_adv = reference_vtrace(*[x.detach().double().numpy() for x in inputs], 1.0, 1.0)
    np.testing.assert_allclose(vs.numpy(), ref_vs, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(adv.numpy(), ref_adv, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("c_bar", [1.0, 3.0])
def test_on_policy_equals_n_step_returns(c_bar):
    """pi = mu, c_bar >= 1 (and rho_bar >= 1): v_s is the n-step bootstrapped return."""
    mu_logp, _, rewards, values, bootstrap, discounts = random_inputs(4, T=12, B=5)
    T, B = rewards.shape
    returns = np.zeros((T, B))  # G_s = r_s + gamma_s G_{s+1}, G_T = V(x_T)
    for b in range(B):
        g = bootstrap[b]
        for s in reversed(range(T)):
            g = rewards[s, b] + discounts[s, b] * g
            returns[s, b] = g
    t = [torch.tensor(x, dtype=torch.float64)
         for x in (mu_logp, mu_logp, rewards, values, bootstrap, discounts)]
    vs, adv = vtrace(*t, rho_bar=1.0, c_bar=c_bar)
    np.testing.assert_allclose(vs.numpy(), returns, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(adv.numpy(), returns - values, rtol=1e-10, atol=1e-10)


def test_shape_checks():
    t = [torch.tensor(x) for x in random_inputs(5)]
    with pytest.raises(ValueError):
        vtrace(t[0], t[1], t[2], t[3], t[4][:-1], t[5])
    with pytest.raises(ValueError):
        vtrace(t[0][:-1], t[1], t[2], t[3], t[4], t[5])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_runs_on_cuda():
    inputs = random_inputs(6)
    t = [torch.tensor(x, dtype=torch.float64, device="cuda") for x in inputs]
    vs, adv = vtrace(*t, rho_bar=0.5, c_bar=0.5)
    assert vs.device.type == "cuda"
    ref_vs, ref_adv = reference_vtrace(*inputs, 0.5, 0.5)
    np.testing.assert_allclose(vs.cpu().numpy(), ref_vs, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(adv.cpu().numpy(), ref_adv, rtol=1e-10, atol=1e-10)
