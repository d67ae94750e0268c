import sys, json, numpy as np
from fz import make, apply
d = json.load(open(sys.argv[1]))
calls = [tuple(c) for c in d["calls"]]
# convert restore k -> restore of clone position
pos = [i for i, c in enumerate(calls) if c[0] == "clone"]
calls = [("restoreP", pos[c[1]]) if c[0] == "restore" else c for c in calls]
def tia(X):
    b = X.cloneState()["consoles"][0].numpy()
    i32 = lambda o: int(np.frombuffer(b[o:o+4].tobytes(), np.int32)[0])
    return dict(fb=i32(212), part=int(b[295]), last=i32(176), dstart=i32(168), dstop=i32(172))
def danger(t):
    left = max(0, t["dstop"] - max(t["last"], t["dstart"])) * 160 // 228
    return t["part"] == 1 and t["fb"] + left > 48000 + 8
def test(idx):
    X = make("cule", d["game"], d["seed"], d["fs"], d["sticky"], d["maxf"])
    snaps = {}
    for i in idx:
        c = calls[i]
        if c[0] == "clone": snaps[i] = X.cloneState(include_rng=c[1]); continue
        if c[0] == "restoreP":
            if c[1] not in snaps: continue
            X.restoreState(snaps[c[1]])
            if danger(tia(X)): return True
            continue
        if c[0] == "act":
            if danger(tia(X)): return True
        apply(X, "cule", c, [])
        if c[0] == "act" and X.game_over(): X.reset_game()
    return danger(tia(X))
idx = list(range(len(calls)))
assert test(idx), "not reproduced"
n = 2
while len(idx) >= 2:
    chunk = (len(idx) + n - 1) // n
    subsets = [idx[i:i + chunk] for i in range(0, len(idx), chunk)]
    done = False
    for s in subsets:
        comp = [i for i in idx if i not in set(s)]
        if comp and test(comp):
            idx = comp; n = max(n - 1, 2); done = True; break
    if not done:
        if n >= len(idx): break
        n = min(len(idx), n * 2)
    print(len(idx), n, flush=True)
print(json.dumps([calls[i] for i in idx]))
json.dump(dict(d, calls=[calls[i] for i in idx]), open(sys.argv[2], "w"))
