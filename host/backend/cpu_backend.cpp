// The CPU backend: every core runs the core's per-sample function over a share of the batch.
#include <fstream>

#include "host/backend/backend.hpp"
#include "host/util/parallel_for.hpp"
#include "rbmc/sample/run_sample.hpp"
#include "rbmc/sample/sample_layout.hpp"

namespace rbmc {

namespace {

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown CPU";
}

template <class Scalar>
class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(unsigned threads) : threads_(threads == 0 ? default_thread_count() : threads) {}

  std::string name() const override { return "cpu"; }
  std::string device() const override { return cpu_model_name() + " (" + std::to_string(threads_) + " threads)"; }
  std::size_t max_batch_size() const override { return std::size_t(threads_) * 4096; }

  void run_batch(const double* inputs, double* outputs, double* trajectory, std::uint8_t* status, std::size_t n,
                 const BatchIntegration& how) override {
    const IntegrationSettings<Scalar> settings = how.settings.cast<Scalar>();
    const SharedModel<Scalar> shared = how.shared.cast<Scalar>();
    parallel_for(n, threads_, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i)
        run_sample_in_batch<Scalar>(inputs, outputs, trajectory, status, n, i, shared, settings);
    });
  }

 private:
  unsigned threads_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(Precision precision, unsigned threads) {
  if (precision == Precision::float32) return std::make_unique<CpuBackend<float>>(threads);
  return std::make_unique<CpuBackend<double>>(threads);
}

std::unique_ptr<Backend> make_backend(BackendChoice choice, Precision precision, unsigned threads) {
  if (choice == BackendChoice::cuda || (choice == BackendChoice::automatic && cuda_device_available()))
    return make_cuda_backend(precision);
  return make_cpu_backend(precision, threads);
}

}  // namespace rbmc
