# Save-to-file latency of `watch` on hex, from the repository root:
#   python3 docs/bench/watch_latency.py BINARY [INTERVAL_MS]
import subprocess, time, os, sys, threading, queue, statistics
B = sys.argv[1]; interval = sys.argv[2] if len(sys.argv) > 2 else "200"
os.makedirs("/tmp/w", exist_ok=True)
game = "/tmp/w/hex.kif"; out = "/tmp/w/hex.ground.kif"
orig = open("../shared/games/base/hex.kif").read()
open(game, "w").write(orig)
if os.path.exists(out): os.remove(out)
p = subprocess.Popen([B, "watch", game, "--interval", interval], stderr=subprocess.PIPE, text=True)
q = queue.Queue()
threading.Thread(target=lambda: [q.put(l) for l in p.stderr], daemon=True).start()
while "watching" not in q.get(): pass
lat, work = [], []
for i in range(20):
    v = 10 + i
    text = orig.replace("(goal red 0)", f"(goal red {v})")
    before = os.stat(out).st_mtime_ns
    time.sleep(0.3)
    t0 = time.monotonic()
    with open(game, "w") as f: f.write(text)
    while os.stat(out).st_mtime_ns == before: time.sleep(0.0002)
    t1 = time.monotonic()
    line = q.get(timeout=30)
    lat.append((t1 - t0) * 1e3)
    work.append(line.strip())
p.kill()
print("save-to-file ms: median %.1f, min %.1f, max %.1f" % (statistics.median(lat), min(lat), max(lat)))
print(work[0]); print(work[-1])
