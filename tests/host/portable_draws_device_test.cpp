// The draws' transforms on the CUDA device, bit for bit against the host: nvcc fuses
// multiply-adds and has its own math library, and neither may change a draw
// (rbmc/math/portable_math.hpp). Skipped where no device is present, including CPU-only builds.
#include <gtest/gtest.h>

#include "../core/portable_draws.hpp"
#include "host/backend/backend.hpp"
#if defined(RBMC_HAVE_CUDA)
#include "portable_draws_device.hpp"
#endif

namespace rbmc {
namespace {

TEST(PortableDrawsOnTheDevice, AreTheHostsBitForBit) {
  if (!cuda_device_available()) GTEST_SKIP() << "no CUDA device (or a build without CUDA)";
#if defined(RBMC_HAVE_CUDA)
  const std::vector<double> u = test::portable_draw_uniforms();
  const int control_differs =
      test::compare_portable_draws(u, test::portable_draws_on_device(u), [](int value, double at, double ours, double theirs) {
        ADD_FAILURE() << "value " << value << " at u = " << at << ": " << ours << " on the host, " << theirs << " on the device";
      });
  // nvcc fuses by default: the control's plain products show that the device build did.
  if (control_differs >= 0) EXPECT_GT(control_differs, 0);
#endif
}

}  // namespace
}  // namespace rbmc
