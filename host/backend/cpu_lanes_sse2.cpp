// The lane groups compiled for SSE2 (every x86-64): vectors of 2 doubles or 4 floats (cpu_lanes_unit.inc).
#define RBMC_LANES_ATTRIBUTES flatten
#define RBMC_LANES_DOUBLES 2
#define RBMC_LANES_FUNCTION sse2_lanes
#include "host/backend/cpu_lanes_unit.inc"
