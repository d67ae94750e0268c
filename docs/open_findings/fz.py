"""Own fuzz: cule.ALEInterface vs ale_py.ALEInterface with identical call lists."""
import sys, os, time, zlib, json, argparse
import numpy as np
import ale_py
from ale_py import roms
import cule

def make(kind, game, seed, fs, sticky, maxf):
    a = ale_py.ALEInterface() if kind == "ale" else cule.ALEInterface()
    if kind == "ale":
        a.setLoggerMode(ale_py.LoggerMode.Error)
    a.setInt("random_seed", seed)
    a.setInt("frame_skip", fs)
    a.setFloat("repeat_action_probability", sticky)
    a.setInt("max_num_frames_per_episode", maxf)
    a.loadROM(roms.get_rom_path(game))
    return a

def gen_calls(game, seed, n, cfg, modes, diffs):
    """Generate a call list."""
    rng = np.random.default_rng(seed * 7919 + 13)
    calls = []
    pe = cfg["poke_every"]
    region = cfg["region"]
    nsnap = 0
    for t in range(n):
        if pe and t % pe == 0:
            if region == "stack":
                idx = int(rng.integers(0x70, 0x80))
            elif region == "low":
                idx = int(rng.integers(0, 0x11))
            elif region == "mix":
                r = rng.random()
                idx = int(rng.integers(0x70, 0x80)) if r < 0.3 else int(rng.integers(0, 0x11)) if r < 0.5 else int(rng.integers(128))
            else:
                idx = int(rng.integers(128))
            calls.append(("poke", idx, int(rng.integers(256))))
        r = rng.random()
        if r < cfg["p_clone"]:
            calls.append(("clone", bool(rng.integers(2))))
            nsnap += 1
        elif r < cfg["p_clone"] + cfg["p_restore"] and nsnap:
            calls.append(("restore", int(rng.integers(nsnap))))
        elif r < cfg["p_clone"] + cfg["p_restore"] + cfg["p_reset"]:
            calls.append(("reset",))
        elif r < cfg["p_clone"] + cfg["p_restore"] + cfg["p_reset"] + cfg["p_mode"]:
            if len(modes) > 1 or len(diffs) > 1:
                calls.append(("mode", int(rng.choice(modes)), int(rng.choice(diffs))))
                calls.append(("reset",))
        strength = 1.0
        if cfg.get("paddle") and rng.random() < 0.5:
            strength = float(np.round(rng.uniform(-1, 1), 3))
        calls.append(("act", int(rng.integers(18)), strength))
    return calls

def state(a, reward):
    return dict(ram=a.getRAM().tobytes(), rgb=a.getScreenRGB().tobytes(), reward=reward,
                go=a.game_over(), got=a.game_over(with_truncation=False), lives=a.lives(),
                fn=a.getFrameNumber(), efn=a.getEpisodeFrameNumber())

def apply(a, kind, call, snaps):
    op = call[0]
    if op == "poke":
        a.setRAM(call[1], call[2]); return None
    if op == "clone":
        snaps.append(a.cloneState(include_rng=call[1])); return None
    if op == "restore":
        a.restoreState(snaps[call[1]]); return None
    if op == "reset":
        a.reset_game(); return None
    if op == "mode":
        a.setMode(call[1]); a.setDifficulty(call[2]); return None
    if op == "act":
        act = ale_py.Action(call[1]) if kind == "ale" else call[1]
        return a.act(act, call[2])
    raise ValueError(op)

def run(game, seed, calls, fs, sticky, maxf, stop_first=True, verbose=False):
    A = make("ale", game, seed, fs, sticky, maxf)
    C = make("cule", game, seed, fs, sticky, maxf)
    sa, sc = [], []
    nact = 0
    for i, call in enumerate(calls):
        ra = apply(A, "ale", call, sa)
        rc = apply(C, "cule", call, sc)
        if call[0] in ("restore", "reset"):
            b = C.cloneState()["consoles"][0].numpy()
            i32 = lambda o: int(np.frombuffer(b[o:o+4].tobytes(), np.int32)[0])
            left = max(0, i32(172) - max(i32(176), i32(168))) * 160 // 228
            if b[295] == 1 and i32(212) + left > 48000:
                return i, {"OVERFLOW_RISK": i32(212) + left}
        if call[0] == "act" or call[0] in ("reset", "restore", "mode"):
            x, y = state(A, ra), state(C, rc)
            bad = [k for k in x if x[k] != y[k]]
            if bad:
                info = {k: (x[k], y[k]) for k in bad if k not in ("ram", "rgb")}
                if "ram" in bad:
                    ra_, rc_ = np.frombuffer(x["ram"], np.uint8), np.frombuffer(y["ram"], np.uint8)
                    d = np.nonzero(ra_ != rc_)[0]
                    info["ram"] = [(int(j), int(ra_[j]), int(rc_[j])) for j in d[:8]]
                if "rgb" in bad:
                    ga = np.frombuffer(x["rgb"], np.uint8).reshape(210, 160, 3)
                    gc = np.frombuffer(y["rgb"], np.uint8).reshape(210, 160, 3)
                    ys, xs = np.nonzero((ga != gc).any(2))
                    info["rgb"] = f"{len(ys)} px rows {ys.min()}-{ys.max()} cols {xs.min()}-{xs.max()}"
                return i, info
        if call[0] == "act":
            nact += 1
            if A.game_over():
                # auto-reset like an agent loop
                A.reset_game(); C.reset_game()
    return None, nact

CONFIGS = [
    dict(poke_every=1, region="any", p_clone=0.03, p_restore=0.02, p_reset=0.01, p_mode=0.01),
    dict(poke_every=2, region="stack", p_clone=0.03, p_restore=0.02, p_reset=0.01, p_mode=0.01),
    dict(poke_every=3, region="low", p_clone=0.03, p_restore=0.02, p_reset=0.01, p_mode=0.01),
    dict(poke_every=2, region="mix", p_clone=0.05, p_restore=0.05, p_reset=0.02, p_mode=0.02),
    dict(poke_every=1, region="stack", p_clone=0.0, p_restore=0.0, p_reset=0.0, p_mode=0.0),
    dict(poke_every=3, region="any", p_clone=0.05, p_restore=0.05, p_reset=0.01, p_mode=0.02, paddle=True),
]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", nargs="*")
    ap.add_argument("--acts", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget", type=float, default=270)
    ap.add_argument("--start", type=int, default=0)
    args = ap.parse_args()
    games = args.games or cule.list_games()[args.start:]
    t0 = time.time()
    for gi, game in enumerate(games):
        if time.time() - t0 > args.budget:
            print("BUDGET stop before", game, flush=True); break
        h = zlib.crc32(game.encode()) + args.seed
        ci = h % len(CONFIGS)
        cfg = CONFIGS[ci]
        fs = [1, 4][(h >> 3) & 1]
        sticky = [0.0, 0.25][(h >> 4) & 1]
        seed = h % 100000
        maxf = [0, 2000][(h >> 5) & 1]
        A = make("ale", game, seed, fs, sticky, maxf)
        modes = list(A.getAvailableModes()); diffs = list(A.getAvailableDifficulties())
        del A
        calls = gen_calls(game, seed, args.acts, cfg, modes, diffs)
        idx, info = run(game, seed, calls, fs, sticky, maxf)
        tag = f"{game} cfg{ci} fs{fs} st{sticky} seed{seed} maxf{maxf}"
        if idx is None:
            print(f"OK {tag} acts={info}", flush=True)
        else:
            print(f"DIFF {tag} call#{idx} {calls[idx]} {info}", flush=True)
            with open(f"/tmp/fresh_s25c/fz/diff_{game}_{args.seed}.json", "w") as f:
                json.dump(dict(game=game, seed=seed, fs=fs, sticky=sticky, maxf=maxf, calls=calls[:idx + 1]), f)
    print("elapsed", time.time() - t0)

if __name__ == "__main__":
    main()
