// The parts of the model that every sample of a run shares.
#pragma once

#include "rbmc/dynamics/constraints.hpp"
#include "rbmc/dynamics/load_set.hpp"
#include "rbmc/dynamics/model_values.hpp"
#include "rbmc/integrate/events.hpp"
#include "rbmc/integrate/output_times.hpp"

namespace rbmc {

template <class Scalar>
struct SharedModel {
  LoadSet<Scalar> loads;
  Constraint<Scalar> constraint;
  EventSet<Scalar> events;
  OutputTimes<Scalar> output_times;
  ModelParameters<Scalar> parameters;  // the load and constraint fields each sample sets itself

  template <class Other>
  SharedModel<Other> cast() const {
    return {loads.template cast<Other>(), constraint.template cast<Other>(), events.template cast<Other>(),
            output_times.template cast<Other>(), parameters.template cast<Other>()};
  }
};

}  // namespace rbmc
