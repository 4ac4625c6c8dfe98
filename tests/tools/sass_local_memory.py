#!/usr/bin/env python3
"""Where each CUDA kernel touches local memory: in its loops, or once a sample.

The compiler's report (-Xptxas -v, tests/tools/ptxas_report.py) says how many bytes a kernel spills,
not where. A spill stored before the integration loop and loaded after it costs one store and one
load a sample; one inside the loop costs them every step. This reads the SASS of an object file
(cuobjdump -sass, which Debian 12 does not package: PyPI's nvidia-cuda-cuobjdump wheel carries
it, and it runs the nvidia-cuda-nvdisasm wheel's nvdisasm, which must be on PATH too; development
tools only: bench/RESULTS.md, forty-fourth session) and prints for each kernel its local
loads and stores (LDL, STL: the stack frame and the spills alike), split into

  loop    inside a loop of the kernel itself (per step, or per iteration of a setup loop),
  called  in a function called from such a loop, directly or not (per step, or on a rare path
          such as a step that interpolates: the SASS does not say which), and
  once    elsewhere (per sample: setup and finish),

with the bytes they move, and for each the accesses above a given frame offset (--spill-from:
give it the size of the PTX's own local arrays, above which ptxas put its spill slots in the
kernels read so far). Beside them, in the same places, the generic loads and stores (LD, ST): a
pointer whose space the compiler cannot tell, such as read_in_place's (include/rbmc/hd.hpp), by
which a rate reads the sample's model from its frame, so that those frame reads are not LDL; a
generic access may also reach global memory.

Static counts: an instruction is counted once wherever it sits, however often it runs.

Usage: tests/tools/sass_local_memory.py OBJECT_OR_SASS [--kernel SUBSTRING] [--routines] [--spill-from BYTES]
       tests/tools/sass_local_memory.py --self-test
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptxas_report import short_name  # noqa: E402  (the budget's names for the kernels)

INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
LOCAL = re.compile(r"\b(LDL|STL|LD|ST)(\.[0-9A-Z]+)*\s")  # LD, ST: generic (LDG, STG, LDS, LDC are not)
FRAME_OFFSET = re.compile(r"\[R1(?:\+(0x[0-9a-f]+))?\]")
WIDTH = {".64": 8, ".128": 16, ".U8": 1, ".S8": 1, ".U16": 2, ".S16": 2}


def sass_text(path):
    if path.endswith(".sass") or path.endswith(".txt"):
        with open(path) as f:
            return f.read()
    tool = shutil.which("cuobjdump")
    if tool is None:
        sys.exit("sass_local_memory.py: cuobjdump not on PATH (pip download nvidia-cuda-cuobjdump "
                 "nvidia-cuda-nvdisasm; their wheels' nvidia/cu13/bin/, both on PATH)")
    return subprocess.run([tool, "-sass", path], check=True, capture_output=True, text=True).stdout


def kernels(text):
    """(name, [(address, instruction)]) for each 'Function :' section."""
    name, body = None, []
    for line in text.splitlines():
        if "Function :" in line:
            if name is not None:
                yield name, body
            name, body = line.split("Function :", 1)[1].strip(), []
            continue
        m = INSTRUCTION.search(line)
        if m and name is not None:
            body.append((int(m.group(1), 16), m.group(2)))
    if name is not None:
        yield name, body


def local_access(instruction):
    """(kind, bytes, frame offset or None) of an LDL, STL or a generic LD, ST, else None."""
    m = LOCAL.search(instruction)
    if not m:
        return None
    width = 4
    for suffix in re.findall(r"\.[0-9A-Z]+", instruction.split()[0] if not instruction.startswith("@") else
                             instruction.split()[1]):
        width = WIDTH.get(suffix, width)
    offset = FRAME_OFFSET.search(instruction)
    return m.group(1), width, (int(offset.group(1) or "0", 16) if offset else None)


def target(instruction, opcode):
    m = re.search(opcode + r"[.A-Z]*\s+(0x[0-9a-f]+)", instruction)
    return int(m.group(1), 16) if m else None


KINDS = ("LDL", "STL", "LD", "ST")


def analyse(body):
    """Splits a kernel's section into its routines (the kernel, then each CALL target) and counts."""
    calls = sorted({t for _, ins in body for t in [target(ins, "CALL")] if t is not None})
    starts = [0] + calls
    routine_of = {}
    for address, _ in body:
        routine_of[address] = max(s for s in starts if s <= address)
    # Loops: the address ranges closed by a branch backwards within one routine.
    loops = defaultdict(list)
    for address, ins in body:
        t = target(ins, "BRA")
        if t is not None and t <= address and routine_of.get(t) == routine_of[address]:
            loops[routine_of[address]].append((t, address))

    def in_loop(routine, address):
        return any(a <= address <= b for a, b in loops[routine])

    # Routines reached from a loop of the kernel, directly or through other calls.
    hot = set()
    frontier = [t for address, ins in body for t in [target(ins, "CALL")]
                if t is not None and routine_of[address] == 0 and in_loop(0, address)]
    while frontier:
        r = frontier.pop()
        if r in hot:
            continue
        hot.add(r)
        frontier += [t for address, ins in body for t in [target(ins, "CALL")]
                     if t is not None and routine_of[address] == r]
    counts = defaultdict(lambda: [0, 0])  # (place, kind, frame offset) -> [instructions, bytes]
    routines = defaultdict(lambda: [0, 0, 0, 0, 0])  # routine -> [instructions, LDL, STL, LD, ST]
    for address, ins in body:
        routines[routine_of[address]][0] += 1
        access = local_access(ins)
        if access is None:
            continue
        kind, width, offset = access
        r = routine_of[address]
        routines[r][KINDS.index(kind) + 1] += 1
        if r == 0:
            place = "loop" if in_loop(0, address) else "once"
        elif r in hot:
            place = "called"
        else:
            place = "once"  # called only outside the kernel's loops
        counts[(place, kind, offset)][0] += 1
        counts[(place, kind, offset)][1] += width
    return counts, {r: (v, r == 0 or r in hot) for r, v in routines.items()}


# A kernel with a loop (0x20 to 0x50) that loads from its frame (twice, and once through a generic
# pointer) and calls 0x80 every step, a store before the loop and a load after it, and a routine at
# 0x80 that stores twice, once 16 bytes.
SAMPLE = """
		Function : _ZN4rbmc7kernels16run_batch_kernelIdNS_11SampleKindsILNS_11StepperKindE3ELb1ELb0ELNS_18CompiledConstraintE0EEEEEvPKT_
        /*0000*/                   LDC R1, c[0x0][0x28] ;          /* 0x0 */
        /*0010*/                   STL.64 [R1+0x40], R4 ;          /* 0x0 */
        /*0020*/                   LDL.64 R6, [R1+0x8] ;           /* 0x0 */
        /*0030*/                   CALL.REL.NOINC 0x80 ;           /* 0x0 */
        /*0040*/                   LDL R8, [R1] ;                  /* 0x0 */
        /*0048*/                   LD.E.64 R10, [R12.64+0x8] ;     /* 0x0 */
        /*0050*/               @P0 BRA 0x20 ;                      /* 0x0 */
        /*0060*/                   LDL.64 R4, [R1+0x40] ;          /* 0x0 */
        /*0070*/                   EXIT ;                          /* 0x0 */
        /*0080*/                   STL.128 [R1+0x10], R8 ;         /* 0x0 */
        /*0090*/                   STL.U8 [R1+0x20], R2 ;          /* 0x0 */
        /*00a0*/                   RET.REL.NODEC R2 0x0 ;          /* 0x0 */
"""


def self_test():
    (name, body), = kernels(SAMPLE)
    assert short_name(name) == "run_batch_kernel<double, dopri5, events>", short_name(name)
    counts, routines = analyse(body)
    total = lambda place, kind: tuple(map(sum, zip(*[v for (p, k, _), v in counts.items() if p == place and k == kind])))
    assert total("loop", "LDL") == (2, 12), "two loads in the loop, 8 and 4 bytes"
    assert total("loop", "LD") == (1, 8) and total("once", "LD") == (), "a generic load in the loop"
    assert total("called", "STL") == (2, 17) and total("loop", "STL") == (), "a routine called from the loop"
    assert total("once", "STL") == (1, 8) and total("once", "LDL") == (1, 8), "before and after the loop: once"
    assert counts[("once", "STL", 0x40)] == [1, 8] and counts[("loop", "LDL", 0)] == [1, 4], "frame offsets"
    assert sorted(routines) == [0, 0x80] and routines[0x80] == ([3, 0, 2, 0, 0], True), routines
    assert local_access("LDG.E.64 R2, [R4.64]") is None and local_access("LDS R2, [R4]") is None, "not generic"
    outside = SAMPLE.replace("CALL.REL.NOINC 0x80", "NOP").replace("/*0070*/                   EXIT",
                                                                     "/*0070*/                   CALL.REL.NOINC 0x80")
    counts, routines = analyse(next(kernels(outside))[1])
    assert counts[("once", "STL", 0x10)] == [1, 16] and not routines[0x80][1], "called after the loop: once"
    print("self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("object", help="an object file or cubin (cuobjdump -sass runs on it), or saved SASS text")
    parser.add_argument("--kernel", default="", help="only kernels whose mangled name contains this")
    parser.add_argument("--routines", action="store_true",
                        help="also each routine's size and local accesses: the kernel, then each CALL target "
                             "(its address)")
    parser.add_argument("--spill-from", type=lambda s: int(s, 0), default=None,
                        help="frame offset (bytes) from which accesses are listed one by one")
    args = parser.parse_args()
    for name, body in kernels(sass_text(args.object)):
        if args.kernel not in name:
            continue
        counts, routines = analyse(body)
        print(short_name(name))
        for place in ("loop", "called", "once"):
            row = []
            for kind in KINDS:
                n = sum(v[0] for (p, k, _), v in counts.items() if p == place and k == kind)
                b = sum(v[1] for (p, k, _), v in counts.items() if p == place and k == kind)
                row.append(f"{kind} {n:5d} ({b:6d} B)")
            print(f"  {place:6s} " + "   ".join(row[:2]) + "   generic: " + "   ".join(row[2:]))
        if args.routines:
            for r, ((size, loads, stores, generic_loads, generic_stores), hot) in sorted(routines.items()):
                what = "the kernel" if r == 0 else ("called from a loop" if hot else "called outside the loops")
                print(f"    routine {r:#8x}: {size:6d} instructions, LDL {loads:5d}, STL {stores:5d}, "
                      f"LD {generic_loads:5d}, ST {generic_stores:5d}  ({what})")
        if args.spill_from is not None:
            for (place, kind, offset), (n, b) in sorted(counts.items(), key=lambda kv: (kv[0][2] or 0, kv[0][0], kv[0][1])):
                if offset is not None and offset >= args.spill_from:
                    print(f"    [R1+{offset:#x}] {place:6s} {kind} x{n} ({b} B)")


if __name__ == "__main__":
    main()
