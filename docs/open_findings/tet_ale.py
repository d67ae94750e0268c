import sys, ale_py
from ale_py import roms
k = int(sys.argv[1])
a = ale_py.ALEInterface(); a.setLoggerMode(ale_py.LoggerMode.Error)
a.setInt("random_seed", 1); a.setFloat("repeat_action_probability", 0.0)
a.loadROM(roms.get_rom_path("tetris"))
for _ in range(k): a.act(ale_py.Action.NOOP)
s = a.cloneState()
a.reset_game()
a.restoreState(s)
sys.stderr.write("ACT\n")
a.act(ale_py.Action.NOOP)
print("done")
