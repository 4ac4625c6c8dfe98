// The lane groups compiled for AVX2: vectors of 4 doubles or 8 floats (cpu_lanes_unit.inc).
#define RBMC_LANES_ATTRIBUTES target("avx2"), flatten
#define RBMC_LANES_DOUBLES 4
#define RBMC_LANES_FUNCTION avx2_lanes
#include "host/backend/cpu_lanes_unit.inc"
