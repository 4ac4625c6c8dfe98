// The lane groups compiled for AVX-512 (F and DQ): vectors of 8 doubles or 16 floats (cpu_lanes_unit.inc).
#define RBMC_LANES_ATTRIBUTES target("avx512f,avx512dq"), flatten
#define RBMC_LANES_DOUBLES 8
#define RBMC_LANES_FUNCTION avx512_lanes
#include "host/backend/cpu_lanes_unit.inc"
