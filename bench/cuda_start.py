#!/usr/bin/env python3
"""The CUDA driver's start on its own, without rbmc: what every GPU run's `setup` stage
(rbmc run --timings) holds at least. Loads libcuda through ctypes and times cuInit and the primary
context's creation; prints one line. Run by bench/run_gpu_benchmarks.sh; without a driver it says so.
"""
import ctypes
import time

try:
    t0 = time.perf_counter()
    cuda = ctypes.CDLL("libcuda.so.1")
    t1 = time.perf_counter()
except OSError as e:
    print(f"no CUDA driver: {e}")
    raise SystemExit(0)
status_init = cuda.cuInit(0)
t2 = time.perf_counter()
device = ctypes.c_int()
cuda.cuDeviceGet(ctypes.byref(device), 0)
context = ctypes.c_void_p()
status_context = cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)
t3 = time.perf_counter()
print(f"CUDA driver's start: dlopen {t1 - t0:.3f} s, cuInit {t2 - t1:.3f} s, primary context {t3 - t2:.3f} s "
      f"(status {status_init}, {status_context})")
