#!/usr/bin/env python3
"""The CUDA kernels' compiler report against their budget: registers, stack frame and spills.

The CUDA build keeps ptxas's report (-Xptxas=-v) of each object in BUILD/ptxas/*.log
(tools/ptxas_log.sh). This reads every kernel's entry there and fails when one spills more, or
has a larger stack frame, than kernels/ptxas_budget.txt allows. A kernel's spills include those of
the functions it calls (ptxas lists them after the entry, before the next one): a rare path or a
trial step kept out of line spills in its own name. A kernel the budget does not name
may not spill at all, and its frame may hold at most DEFAULT_FRAME bytes. It also prints each
kernel's registers and the occupancy they allow on an H100 (65,536 registers and 64 warps per SM).

    ptxas_report.py LOG_DIR BUDGET      check the build's report
    ptxas_report.py --self-test         check that a spill or a frame over budget fails
"""
import os
import re
import subprocess
import sys

DEFAULT_SPILL = 0
DEFAULT_FRAME = 512  # bytes: "a few hundred"
STEPPERS = ["rk4", "rk4_euler_zxz", "splitting", "dopri5"]
# CompiledConstraint (include/rbmc/dynamics/constraints.hpp): any is the general kernel, unnamed.
CONSTRAINTS = ["", "unconstrained", "pivot", "planar"]


def short_name(mangled):
    """A readable name: run_batch_kernel<double, rk4, events> or the demangled function's name."""
    m = re.search(r"run_batch_kernelI([df])NS_11SampleKindsILNS_11StepperKindE(\d)ELb([01])ELb([01])E"
                  r"(?:LNS_18CompiledConstraintE(\d)E)?", mangled)
    if m:
        scalar = "double" if m.group(1) == "d" else "float"
        parts = [scalar, STEPPERS[int(m.group(2))]]
        if m.group(3) == "1":
            parts.append("events")
        if m.group(4) == "1":
            parts.append("free_body")
        constraint = CONSTRAINTS[int(m.group(5) or 0)]
        if constraint:
            parts.append(constraint)
        return "run_batch_kernel<%s>" % ", ".join(parts)
    m = re.search(r"([a-z][a-z_]*_kernel)I([df])E", mangled)
    if m and "rbmc" in mangled:
        return "%s<%s>" % (m.group(1), "double" if m.group(2) == "d" else "float")
    m = re.search(r"\d([a-z][a-z_]*_kernel)EP", mangled)  # a kernel that is no template
    if m and "rbmc" in mangled:
        return m.group(1)
    try:
        name = subprocess.run(["c++filt", mangled], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        name = mangled
    return name if len(name) < 100 else name[:97] + "..."


def parse(text):
    """{mangled entry: (registers, frame bytes, spill store bytes, spill load bytes, spill stores in calls)}.

    The spills of the functions listed after an entry, up to the next entry (those it calls), are
    added to the entry's.
    """
    lines = text.splitlines()
    kernels, entry, current = {}, None, None
    for i, line in enumerate(lines):
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            entry, current = m.group(1), None
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if not (m and i + 1 < len(lines)):
            continue
        frame = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", lines[i + 1])
        if not frame:
            continue
        if entry and m.group(1) == entry and i + 2 < len(lines):
            registers = re.search(r"Used (\d+) registers", lines[i + 2])
            if registers:
                kernels[entry] = (int(registers.group(1)), int(frame.group(1)), int(frame.group(2)),
                                  int(frame.group(3)), 0)
                current = entry
            entry = None
        elif current:
            registers, own_frame, stores, loads, in_calls = kernels[current]
            kernels[current] = (registers, own_frame, stores + int(frame.group(2)), loads + int(frame.group(3)),
                                in_calls + int(frame.group(2)))
    return kernels


def read_budget(path):
    """{short name: (spill store bytes, frame bytes)} from lines 'NAME  SPILL  FRAME' (# comments)."""
    budget = {}
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, spill, frame = line.rsplit(None, 2)
        budget[name.strip()] = (int(spill), int(frame))
    return budget


def occupancy(registers):
    """The fraction of an H100 SM's 64 warps that a kernel's registers allow (allocation per warp in 256s)."""
    per_warp = -(-registers * 32 // 256) * 256
    return min(64, 65536 // per_warp) / 64


def is_library_kernel(mangled):
    """A kernel of CUB's (its device sorts and scans), whose code and register policy are CUB's."""
    return mangled.startswith("_ZN3cub") or mangled.startswith("_ZN6thrust")


def check(kernels, budget):
    """The lines of the report, and the list of failures.

    Kernels are told apart by their mangled names: the short names of CUB's kernels are cut to
    100 characters, and several share one. A library kernel is held to the default frame, and a
    spill in it is reported, not failed: rbmc can choose which of CUB's algorithms it calls, not
    how CUB's kernels allocate registers.
    """
    rows, failures, seen = [], [], set()
    for mangled, (registers, frame, spill_stores, spill_loads, in_calls) in sorted(kernels.items(),
                                                                                key=lambda k: (short_name(k[0]), k[0])):
        name = short_name(mangled)
        if mangled in seen:
            continue  # the same kernel from two architectures' or objects' reports
        seen.add(mangled)
        library = is_library_kernel(mangled)
        max_spill, max_frame = budget.get(name, (DEFAULT_SPILL, DEFAULT_FRAME))
        rows.append("%-58s %4d registers (%3.0f %% occupancy)  %5d B frame  %5d B spill stores  %5d B spill loads%s"
                    % (name, registers, 100 * occupancy(registers), frame, spill_stores, spill_loads,
                       "  (%d B of the stores in calls)" % in_calls if in_calls else ""))
        if spill_stores > max_spill:
            if library:
                rows.append("    note: CUB's kernel above spills %d bytes (not failed: its code is CUB's)" % spill_stores)
            else:
                failures.append("%s spills %d bytes (budget %d)" % (name, spill_stores, max_spill))
        if frame > max_frame:
            failures.append("%s has a %d-byte stack frame (budget %d)" % (name, frame, max_frame))
    return rows, failures


SAMPLE = """ptxas info    : Compiling entry function '_ZN4rbmc7kernels16run_batch_kernelIdNS_11SampleKindsILNS_11StepperKindE0ELb0ELb1EEEEEvPKT_' for 'sm_90'
ptxas info    : Function properties for _ZN4rbmc7kernels16run_batch_kernelIdNS_11SampleKindsILNS_11StepperKindE0ELb0ELb1EEEEEvPKT_
    %d bytes stack frame, %d bytes spill stores, %d bytes spill loads
ptxas info    : Used 200 registers, used 0 barriers, 40 bytes cumulative stack size
"""


CALLEE = """ptxas info    : Compile time = 10.0 ms
ptxas info    : Function properties for _ZN4rbmc17dopri5_trial_callIdEEvv
    0 bytes stack frame, %d bytes spill stores, %d bytes spill loads
"""


def self_test():
    name = "run_batch_kernel<double, rk4, free_body>"
    clean = parse(SAMPLE % (40, 0, 0))
    assert short_name(next(iter(clean))) == name, short_name(next(iter(clean)))
    assert check(clean, {})[1] == [], "a clean kernel passes"
    assert len(check(parse(SAMPLE % (40, 8, 8)), {})[1]) == 1, "a spill fails"
    assert len(check(parse(SAMPLE % (4096, 0, 0)), {})[1]) == 1, "a large frame fails"
    assert check(parse(SAMPLE % (600, 8, 8)), {name: (8, 600)})[1] == [], "within a budget passes"
    assert len(check(parse(SAMPLE % (600, 16, 16)), {name: (8, 600)})[1]) == 1, "beyond a budget fails"
    with_call = parse(SAMPLE % (40, 0, 0) + CALLEE % (8, 8))
    assert next(iter(with_call.values()))[2:] == (8, 8, 8), "a called function's spill is the kernel's"
    assert len(check(with_call, {})[1]) == 1, "a spill in a called function fails"
    assert check(parse(SAMPLE % (40, 0, 0) + CALLEE % (0, 0)), {})[1] == [], "a called function without a spill passes"
    cub = SAMPLE.replace("_ZN4rbmc7kernels16run_batch_kernelIdNS_11SampleKindsILNS_11StepperKindE0ELb0ELb1EEEEEvPKT_",
                         "_ZN3cub17CUB_300001_SM_9006detail10radix_sort30DeviceSegmentedRadixSortKernelI" + "x" * 120 + "%s")
    cubs = parse((cub % ("A", "A", 8, 0, 0)) + (cub % ("B", "B", 8, 4, 4)))
    assert len(cubs) == 2 and len({short_name(m) for m in cubs}) == 1, "two CUB kernels shortened alike"
    rows, failures = check(cubs, {})
    assert failures == [] and sum("note" in r for r in rows) == 1, "both checked; a CUB kernel's spill is noted"
    assert len(check(parse(cub % ("A", "A", 4096, 0, 0)), {})[1]) == 1, "a CUB kernel's large frame fails"
    two = parse(SAMPLE % (40, 0, 0) + CALLEE % (8, 8) + SAMPLE.replace("E0ELb0ELb1E", "E0ELb1ELb0E") % (40, 0, 0))
    assert sorted(v[2] for v in two.values()) == [0, 8], "a called function counts for the kernel above it only"
    unconstrained = ("_ZN4rbmc7kernels16run_batch_kernelIdNS_11SampleKindsILNS_11StepperKindE0ELb1ELb0E"
                     "LNS_18CompiledConstraintE1EEEEEvPKT_")
    assert short_name(unconstrained) == "run_batch_kernel<double, rk4, events, unconstrained>", short_name(unconstrained)
    planar = ("_ZN4rbmc7kernels16run_batch_kernelIfNS_11SampleKindsILNS_11StepperKindE0ELb0ELb0E"
              "LNS_18CompiledConstraintE3EEEEEvPKT_")
    assert short_name(planar) == "run_batch_kernel<float, rk4, planar>", short_name(planar)
    general = ("_ZN4rbmc7kernels16run_batch_kernelIdNS_11SampleKindsILNS_11StepperKindE3ELb1ELb0E"
               "LNS_18CompiledConstraintE0EEEEEvPKT_")
    assert short_name(general) == "run_batch_kernel<double, dopri5, events>", short_name(general)
    assert occupancy(128) == 0.25 and occupancy(255) == 0.125 and occupancy(64) == 0.5
    # Kernels that are no template are named as the budget names them, templated ones with their scalar.
    plain = "_ZN4rbmc7kernels47_GLOBAL__N__c4cf9627_14_draw_inputs_cu_2b1eebf418draw_inputs_kernelEPKNS_13SamplingModelEPKmmiPdS7_Py"
    assert short_name(plain) == "draw_inputs_kernel", short_name(plain)
    templated = "_ZN4rbmc7kernels47_GLOBAL__N__c4cf9627_14_draw_inputs_cu_2b1eebf420round_columns_kernelIfEEvPKdmPT_"
    assert short_name(templated) == "round_columns_kernel<float>", short_name(templated)
    print("self-test passed")


def main(argv):
    if argv[1:] == ["--self-test"]:
        self_test()
        return 0
    log_dir, budget_path = argv[1], argv[2]
    logs = sorted(f for f in os.listdir(log_dir) if f.endswith(".log")) if os.path.isdir(log_dir) else []
    if not logs:
        print("no compiler report in %s: build the CUDA kernels first" % log_dir)
        return 1
    kernels = {}
    for f in logs:
        kernels.update(parse(open(os.path.join(log_dir, f)).read()))
    if not any("run_batch_kernel" in k for k in kernels):
        print("the report names no batch kernel: was -Xptxas=-v passed?")
        return 1
    budget = read_budget(budget_path)
    rows, failures = check(kernels, budget)
    print("\n".join(rows))
    unknown = sorted(set(budget) - {short_name(k) for k in kernels})
    for name in unknown:
        failures.append("the budget names %s, which the report does not have" % name)
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
