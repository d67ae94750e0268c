import sys, cule
from ale_py import roms
a = cule.ALEInterface()
a.setInt("random_seed", 1); a.setFloat("repeat_action_probability", 0.0)
a.loadROM(roms.get_rom_path("tetris"))
for _ in range(2): a.act(0)
s = a.cloneState()
a.reset_game()
a.restoreState(s)
for i in range(int(sys.argv[1])):
    a.act(0); print("act", i, a.getFrameNumber(), flush=True)
print("done", flush=True)
