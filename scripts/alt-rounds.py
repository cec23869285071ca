#!/usr/bin/env python3
"""Side-by-side whole-process timing in alternating rounds.

hyperfine runs one command's runs back to back, so on a shared machine the load drifts
between commands; here every round runs each command once, in A B C order on even
rounds and C B A on odd ones, after one warm-up run each. Output goes to /dev/null.

    scripts/alt-rounds.py ROUNDS 'name=command ...' 'name=command ...' ...

Prints per command: median and minimum wall time, median CPU (user + system, from
wait4), and the load average at the start and end; then each command's median and
minimum against the last command's (the baseline) as ratios.
"""
import os
import shlex
import statistics
import subprocess
import sys
import time


def run(argv):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    cmds = []
    for spec in sys.argv[2:]:
        name, _, cmd = spec.partition("=")
        cmds.append((name, shlex.split(cmd)))
    load_start = os.getloadavg()
    for _, argv in cmds:
        run(argv)
    walls = {name: [] for name, _ in cmds}
    cpus = {name: [] for name, _ in cmds}
    for r in range(rounds):
        order = cmds if r % 2 == 0 else list(reversed(cmds))
        for name, argv in order:
            wall, cpu = run(argv)
            walls[name].append(wall)
            cpus[name].append(cpu)
    load_end = os.getloadavg()
    print(f"rounds {rounds}, load {load_start[0]:.2f} -> {load_end[0]:.2f}")
    for name, _ in cmds:
        w = walls[name]
        print(
            f"{name:>16}: median {statistics.median(w) * 1000:8.1f} ms"
            f"  min {min(w) * 1000:8.1f} ms  cpu {statistics.median(cpus[name]) * 1000:8.1f} ms"
        )
    base = cmds[-1][0]
    bw = walls[base]
    for name, _ in cmds[:-1]:
        w = walls[name]
        print(
            f"{base}/{name}: median {statistics.median(bw) / statistics.median(w):.2f}x"
            f"  min/min {min(bw) / min(w):.2f}x"
        )


if __name__ == "__main__":
    main()
