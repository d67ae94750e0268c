import sys, ale_py, cule, numpy as np
from ale_py import roms
game, idx, val = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
a1, a2 = int(sys.argv[4]), int(sys.argv[5])
fs = int(sys.argv[6]) if len(sys.argv) > 6 else 1
sticky = float(sys.argv[7]) if len(sys.argv) > 7 else 0.0
seed = int(sys.argv[8]) if len(sys.argv) > 8 else 0
out = {}
for kind in ("ale", "cule"):
    a = ale_py.ALEInterface() if kind == "ale" else cule.ALEInterface()
    if kind == "ale": a.setLoggerMode(ale_py.LoggerMode.Error)
    a.setInt("random_seed", seed); a.setInt("frame_skip", fs); a.setFloat("repeat_action_probability", sticky)
    a.loadROM(roms.get_rom_path(game)); A = (lambda x: ale_py.Action(x)) if kind == "ale" else (lambda x: x)
    s = a.cloneState(include_rng=True)
    a.setRAM(idx, val); r1 = a.act(A(a1))
    ram1 = a.getRAM().copy()
    a.restoreState(s)
    r2 = a.act(A(a2))
    out[kind] = (r1, ram1, r2, a.getRAM().copy(), a.getScreenRGB().copy(), a.game_over(), a.lives())
x, y = out["ale"], out["cule"]
print("after poke+act ram equal:", (x[1] == y[1]).all())
d = np.nonzero(x[3] != y[3])[0]
print("after restore+act: ram diffs (index, ale, cule):", [(int(j), int(x[3][j]), int(y[3][j])) for j in d], "screen px differ:", int((x[4] != y[4]).any(2).sum()), "rew", x[2], y[2], "go", x[5], y[5], "lives", x[6], y[6])
