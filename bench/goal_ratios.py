#!/usr/bin/env python3
"""Issue 13's one-core CPU goals, read from rbmc_bench's JSON (--benchmark_out).

Each double lane row's median body-steps/s is divided by the median of Boost.Odeint's
hand-written RK4 loop of the same body (odeint_rk4, bench/peers_bench.cpp), measured in the same
run by the same binary, so that the machine's speed and drift cancel. The issue sets two goals:
the free body (the default scenario's integration) at least 2 x the loop, and the general path
(the pivot, the plane, the loads) at least 1 x. A goal is judged on the widest lanes that ran,
the ones the CPU backend takes on this machine; narrower ones are listed beside them. Rows of an
instruction set the processor lacks are listed as not run.

    python3 bench/goal_ratios.py LOG_DIR/micro.json     # bench/run_cpu_benchmarks.sh calls it
    python3 bench/goal_ratios.py --self-test            # ctest Bench.GoalRatiosReadTheBenchmarkJson
"""
import json
import re
import sys

PEER = "odeint_rk4/1000"
WIDEST_FIRST = ["avx512", "avx2", "sse2"]  # the CPU backend takes the first the processor has

# (row, pattern of the benchmark's run name with the instruction set as its group, goal or None)
ROWS = [
    ("free body", r"rk4_lanes_run<double, LaneIsa::(\w+)>/1000", 2.0),
    ("free body in its principal axes", r"rk4_lanes_run<double, LaneIsa::(\w+), BenchModel::free_principal>/1000", None),
    ("pivot", r"rk4_lanes_run<double, LaneIsa::(\w+), BenchModel::pivot>/1000", 1.0),
    ("plane", r"rk4_lanes_run<double, LaneIsa::(\w+), BenchModel::planar>/1000", 1.0),
    ("loads", r"rk4_lanes_run<double, LaneIsa::(\w+), BenchModel::loads>/1000", 1.0),
    ("loads in principal axes", r"rk4_lanes_run<double, LaneIsa::(\w+), BenchModel::loads_principal>/1000", None),
    ("splitting under the loads", r"rk4_lanes_run<double, LaneIsa::(\w+), BenchModel::splitting>/1000", None),
    ("dopri5, per accepted step", r"dopri5_(\w+?)_lanes/1000", None),
]


def medians(benchmarks):
    """Run name -> median items per second; run name -> error message for rows that did not run."""
    rates, errors = {}, {}
    for b in benchmarks:
        name = b.get("run_name", b["name"])
        if b.get("error_occurred"):
            errors[name] = b.get("error_message", "error")
        elif b.get("aggregate_name") == "median":
            rates[name] = b["items_per_second"]
        elif b.get("run_type") == "iteration" and name not in rates:
            rates.setdefault(name, b["items_per_second"])  # a run without repetitions has no median
    return rates, errors


def goal_table(benchmarks):
    """The markdown table's lines; raises ValueError without the peer's row."""
    rates, errors = medians(benchmarks)
    if PEER not in rates:
        raise ValueError(f"no {PEER} row: run rbmc_bench with Boost.Odeint's peer (bench/peers_bench.cpp)")
    peer = rates[PEER]
    lines = [f"Boost.Odeint's loop ({PEER}): {peer / 1e6:.2f} M body-steps/s",
             "| row | lanes | M body-steps/s | x Odeint | goal |",
             "| --- | --- | --- | --- | --- |"]
    not_run = set()
    for row, pattern, goal in ROWS:
        ran = {}  # instruction set -> run name
        for name in set(rates) | set(errors):
            m = re.fullmatch(pattern, name)
            if m and name in errors:
                not_run.add(f"{m.group(1)} ({errors[name]})")
            elif m:
                ran[m.group(1)] = name
        isas = sorted(ran, key=lambda isa: WIDEST_FIRST.index(isa) if isa in WIDEST_FIRST else len(WIDEST_FIRST))
        for i, isa in enumerate(isas):
            ratio = rates[ran[isa]] / peer
            if goal is None:
                verdict = ""
            elif i > 0:
                verdict = "(narrower lanes than runs take here)"
            else:
                verdict = f">= {goal:g}: {'met' if ratio >= goal else 'NOT met'}"
            lines.append(f"| {row} | {isa} | {rates[ran[isa]] / 1e6:.2f} | {ratio:.2f} | {verdict} |")
    if not_run:
        lines.append("not run: " + ", ".join(sorted(not_run)))
    return lines


def self_test():
    def bench(name, rate=None, error=None, aggregate="median"):
        if error:
            return {"name": name, "run_name": name, "run_type": "iteration", "error_occurred": True,
                    "error_message": error}
        return {"name": f"{name}_{aggregate}", "run_name": name, "run_type": "aggregate",
                "aggregate_name": aggregate, "items_per_second": rate}
    lacks = "this processor lacks the instruction set"
    runs = [bench(PEER, 10e6), bench(PEER, 99e6, aggregate="mean"),
            bench("rk4_lanes_run<double, LaneIsa::avx2>/1000", 25e6),
            bench("rk4_lanes_run<double, LaneIsa::avx512>/1000", error=lacks),
            bench("rk4_lanes_run<double, LaneIsa::sse2>/1000", 12e6),
            bench("rk4_lanes_run<double, LaneIsa::avx2, BenchModel::loads>/1000", 9.5e6),
            bench("rk4_lanes_run<double, LaneIsa::avx2, BenchModel::pivot>/1000", 10e6),
            bench("dopri5_avx2_lanes/1000", 3e6)]
    lines = goal_table(runs)
    assert lines[0].startswith("Boost.Odeint's loop (odeint_rk4/1000): 10.00 M"), lines[0]  # the median, not the mean
    assert "| free body | avx2 | 25.00 | 2.50 | >= 2: met |" in lines, lines
    assert "| loads | avx2 | 9.50 | 0.95 | >= 1: NOT met |" in lines, lines
    assert "| pivot | avx2 | 10.00 | 1.00 | >= 1: met |" in lines, lines  # at the goal counts as met
    assert "| dopri5, per accepted step | avx2 | 3.00 | 0.30 |  |" in lines, lines
    # Narrower lanes than the widest that ran are listed, not judged, after it.
    assert lines.index("| free body | sse2 | 12.00 | 1.20 | (narrower lanes than runs take here) |") == \
        lines.index("| free body | avx2 | 25.00 | 2.50 | >= 2: met |") + 1, lines
    # The free body's pattern takes neither a BenchModel row nor another precision's.
    assert sum(line.startswith("| free body | ") for line in lines) == 2, lines
    assert lines[-1] == f"not run: avx512 ({lacks})", lines[-1]
    try:
        goal_table(runs[2:])
    except ValueError:
        pass
    else:
        raise AssertionError("a table without the peer's row")
    print("goal_ratios self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        benchmarks = json.load(f)["benchmarks"]
    try:
        print("\n".join(goal_table(benchmarks)))
    except ValueError as e:
        print(f"goal_ratios.py: {argv[1]}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
