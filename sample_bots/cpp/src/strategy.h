// The cpp sample bot's strategy: one answer per decision request, always taken from
// the request's legal choices, so every answer is legal.
#pragma once

#include "arena/v1/arena.pb.h"

namespace cppbot {

// The answer to `request` (request_id set, and the choice of the request's kind).
arena::v1::Answer Decide(const arena::v1::DecisionRequest& request);

}  // namespace cppbot
