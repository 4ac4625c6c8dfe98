// The one per-sample function: both the CPU backend and the CUDA kernel call it.
#pragma once

#include "rbmc/dynamics/load_set.hpp"
#include "rbmc/integrate/rk4.hpp"
#include "rbmc/sample/sample_inputs.hpp"

namespace rbmc {

template <class Scalar>
struct FreeBodyRate {
  FreeBodyModel<Scalar> model;
  const LoadSet<Scalar>* loads;
  RBMC_HD RigidBodyStateRate<Scalar> operator()(const RigidBodyState<Scalar>& x) const {
    return free_body_rate(model, x, evaluate_loads(*loads, model, x));
  }
};

// Integrates one body under uniform gravity and `loads` with fixed-step RK4. A body whose mass properties are not physical is not
// integrated (status invalid_body); a state that turns non-finite stops the sample at the last
// finite step (status non_finite_state).
template <class Scalar>
RBMC_HD inline SampleResult<Scalar> run_sample(const SampleInputs<Scalar>& in, const LoadSet<Scalar>& loads,
                                               const FixedStepSettings<Scalar>& how) {
  SampleResult<Scalar> out{in.initial, Scalar(0), SampleStatus::ok};
  if (check_mass_properties(in.body) != BodyValidity::valid) {
    out.status = SampleStatus::invalid_body;
    return out;
  }
  const FreeBodyRate<Scalar> rate{make_free_body_model(in.body, in.gravity_w), &loads};
  RigidBodyState<Scalar> x = in.initial;
  std::int64_t step = 0;
  for (; step < how.n_steps; ++step) {
    const RigidBodyState<Scalar> next = rk4_step(rate, x, how.step);
    if (!is_finite(next)) {
      out.status = SampleStatus::non_finite_state;
      break;
    }
    x = next;
  }
  out.final_state = x;
  out.time = Scalar(step) * how.step;  // a product, not a running sum: no accumulated rounding
  return out;
}

}  // namespace rbmc
