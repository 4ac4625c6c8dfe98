# The GPU benchmarks, which bench/run_gpu_benchmarks.sh runs on a lent GPU: kernel-only throughput
# (rbmc_kernel_bench) and the statistics stage kernel by kernel (rbmc_statistics_kernel_bench).
# Neither needs Google Benchmark, and every CUDA build compiles them (CMakeLists.txt), benchmarks
# asked for or not: a build error found on the lent machine would cost its lease's minutes, and
# nothing else compiles these files. In bench/ of the build tree either way.
add_executable(rbmc_kernel_bench ${PROJECT_SOURCE_DIR}/bench/kernel_bench.cu
               ${PROJECT_SOURCE_DIR}/bench/kernel_bench_variants.cu)
add_executable(rbmc_statistics_kernel_bench ${PROJECT_SOURCE_DIR}/bench/statistics_kernel_bench.cu)
foreach(bench rbmc_kernel_bench rbmc_statistics_kernel_bench)
  target_include_directories(${bench} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${bench} PRIVATE rbmc_kernels rbmc_core)
  set_target_properties(${bench} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bench)
endforeach()
