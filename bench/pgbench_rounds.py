"""The summary of `bench/pgbench_cli.sh`'s runs, from the rows it writes (one per run, CSV).

    python3 bench/pgbench_rounds.py [--build B]... [--machine M]... FILE.csv [FILE.csv...]

Given one run of the script's rows, it prints that run's tables; given rows kept from several
machines (the script's RECORD=), it pools them: the rounds of each command line (clients,
threads, length, scale, -M, wire, PGOPTIONS) from every batch together. A round pairs the
runs of one batch's round, so every ratio is of two runs taken one after the other on one
machine. `--build` and `--machine` keep only the rows of the builds (hakari's commit, as the
rows name it) or machines given, each repeatable. The interval is a bootstrap of the median
of those ratios (bench/median.py); it treats rounds as independent, which rounds of one
machine are not quite (a machine's speed wanders over minutes), so a pooled interval is
narrower than the truth by an unknown amount.
"""
import argparse
import csv
import math
import statistics as st
import sys

from median import bootstrap, interval

# What names a command line; runs with the same values are rounds of one measure.
SHAPE = ("clients", "threads", "seconds", "scale", "mode", "sslmode", "pgoptions")


def read(paths):
    rows = []
    for path in paths:
        try:
            with open(path, newline="") as f:
                rows += list(csv.DictReader(f))
        except OSError as e:
            sys.exit(f"pgbench_rounds: cannot read {path}: {e.strerror}")
    return rows


def number(x):
    return float(x) if x not in ("", "-") else None


def at_equal_steal(pairs):
    """The ratio of two tools' TPS where the hypervisor took as much from each run, and a bootstrap
    95% interval of it: `pairs` holds each round's (stolen share of its first tool's run minus
    its second's, log of the TPS ratio), and a least-squares line through them is read where the
    difference is nothing. A burst of stolen time in one run of a round costs that run a share
    of its TPS several times the share stolen; this takes out what such bursts add to the
    ratio's spread and, when they fall on one tool's runs more often, its bias."""
    def intercept(ps):
        xs, ys = [p[0] for p in ps], [p[1] for p in ps]
        mx, my = st.mean(xs), st.mean(ys)
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in ps) / sxx if sxx else 0.0
        return math.exp(my - slope * mx)
    return intercept(pairs), bootstrap(pairs, intercept)


def heading(shape, shapes):
    """Names the PGOPTIONS of the lines that follow, at the first shape of each value."""
    first = next(s for s in shapes if s[-1] == shape[-1])
    if first == shape:
        print(f"  PGOPTIONS='{shape[-1]}'" if shape[-1] else "  PGOPTIONS unset (the server's settings)")


def main(args):
    parser = argparse.ArgumentParser(
        prog="pgbench_rounds.py", description=__doc__.split("\n\n")[0],
        epilog="Rows come from bench/pgbench_cli.sh (RECORD=FILE keeps them).")
    parser.add_argument("--build", action="append", help="keep only this build's rows (repeatable)")
    parser.add_argument("--machine", action="append", help="keep only this machine's rows (repeatable)")
    parser.add_argument("files", nargs="+", metavar="FILE.csv")
    opts = parser.parse_args(args)
    paths = opts.files
    rows = [r for r in read(paths)
            if (not opts.build or r["build"] in opts.build) and (not opts.machine or r["machine"] in opts.machine)]
    if not rows:
        sys.exit("pgbench_rounds: no runs in " + " ".join(paths)
                 + (" of the builds or machines given" if opts.build or opts.machine else ""))
    # Grouped by PGOPTIONS (synchronous_commit=off and the server's own are two measures).
    shapes = sorted(dict.fromkeys(tuple(r[k] for k in SHAPE) for r in rows), key=lambda s: (s[-1], int(s[0])))
    batches = dict.fromkeys(r["batch"] for r in rows)
    one = len(batches) == 1
    tools = [t for t in ("hakari", "old") if any(r["tool"] == t for r in rows)]
    print("medians over rounds of each tool's TPS; for each tool but pgbench, the median of the rounds'"
          " ratios to pgbench's and a bootstrap 95% interval of it, and the ratio where the hypervisor took as"
          " much from both runs of a round (a line through the rounds' log ratios against the difference in"
          " their stolen shares, read at no difference)"
          + ("" if one else f"; {len(batches)} batches pooled ({', '.join(sorted(dict.fromkeys(r['machine'] for r in rows)))})"))
    print("clients  threads  secs  scale  -M         sslmode        n  pgbench  "
          + "  ".join(f"{t:>8}  {t + '/pgbench':>14}  interval     at equal steal  interval   " for t in tools)
          + ("  hakari/old  interval   " if "old" in tools else "") + ("  rounds" if one else ""))
    failed = []
    for shape in shapes:
        heading(shape, shapes)
        runs = {}
        for r in rows:
            if tuple(r[k] for k in SHAPE) == shape:
                runs.setdefault((r["batch"], r["round"]), {})[r["tool"]] = r
        # A round counts only if every tool's run in it gave its TPS.
        whole = {k: v for k, v in runs.items() if all(number(x["tps"]) is not None for x in v.values())}
        failed += [(shape, k) for k in runs if k not in whole]
        if not whole:
            continue
        c, j, secs, scale, mode, ssl, _ = shape
        line = f"{c:>7}  {j:>7}  {secs:>4}  {scale:>5}  {mode:<9}  {ssl:<8}  {len(whole):>6}"
        line += f"  {st.median(float(v['pgbench']['tps']) for v in whole.values()):7.1f}"
        ratios = {}
        for t in tools:
            pairs = [v for v in whole.values() if t in v and "pgbench" in v]
            if not pairs:
                line += " " * 72
                continue
            ratios[t] = [float(v[t]["tps"]) / float(v["pgbench"]["tps"]) for v in pairs]
            line += f"  {st.median(float(v[t]['tps']) for v in pairs):8.1f}  {st.median(ratios[t]):14.3f}  {interval(ratios[t])}"
            steal = [(float(v[t]["stolen"]) - float(v["pgbench"]["stolen"]), math.log(x))
                     for v, x in zip(pairs, ratios[t]) if number(v[t]["stolen"]) is not None and number(v["pgbench"]["stolen"]) is not None]
            if len(steal) >= 3:
                ratio, spread = at_equal_steal(steal)
                line += f"  {ratio:14.3f}  {spread}"
            else:
                line += " " * 29
        if "old" in tools:
            # The build against the earlier one (OLD=), round by round.
            against = [float(v["hakari"]["tps"]) / float(v["old"]["tps"]) for v in whole.values() if "hakari" in v and "old" in v]
            line += f"  {st.median(against):10.3f}  {interval(against)}" if against else " " * 24
        if one and "hakari" in ratios:
            line += "  " + " ".join(f"{x:.3f}" for x in ratios["hakari"])
        print(line)
    for shape, (batch, rnd) in failed:
        print(f"left out: round {rnd} of batch {batch} at {shape[0]} clients: a run gave no TPS")

    print("\nEach run's steady state, read from /proc: CPU a transaction (µs, the client's and the server's), the"
          " client's share of the two (a measure the machine's wandering speed, which moves both, moves far"
          " less), the share of the cores left idle and the share the hypervisor took; medians over rounds,"
          " and for each tool but pgbench the median of the rounds' ratios to pgbench's with its bootstrap"
          " 95% interval")
    print("clients  tool      client  server  client share  idle   stolen  client/pgbench  interval"
          "     server/pgbench  interval     share/pgbench  interval")
    for shape in shapes:
        heading(shape, shapes)
        runs = {}
        for r in rows:
            if tuple(r[k] for k in SHAPE) == shape and number(r["client_us"]) is not None:
                v = [float(r[k]) for k in ("client_us", "server_us", "idle", "stolen")]
                v.insert(2, v[0] / (v[0] + v[1]))  # client, server, share, idle, stolen
                runs.setdefault((r["batch"], r["round"]), {})[r["tool"]] = v
        for tool in ["pgbench"] + tools:
            own = [v[tool] for v in runs.values() if tool in v]
            if not own:
                continue
            med = [st.median(x[i] for x in own) for i in range(5)]
            line = f"{shape[0]:>7}  {tool:<8} {med[0]:7.1f} {med[1]:7.1f}  {med[2]:12.3f}  {med[3]:.3f}  {med[4]:.3f}"
            pairs = [(v[tool], v["pgbench"]) for v in runs.values() if tool in v and "pgbench" in v]
            if tool != "pgbench" and pairs:
                for i in (0, 1, 2):
                    x = [a[i] / b[i] for a, b in pairs]
                    line += f"  {st.median(x):14.3f}  {interval(x)}"
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
