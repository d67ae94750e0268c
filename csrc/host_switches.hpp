// cule: switches read from the environment on the host when a batch is made.
#pragma once
#include <stdlib.h>

#include <stdexcept>
#include <string>

namespace cule {

// CULE_RESET_MEMO (the reset_game memo, ale_env.hpp): unset, empty, 1 / true / on / yes: on;
// 0 / false / off / no: off (any case); anything else is an error.
inline bool reset_memo_enabled() {
  const char* v = getenv("CULE_RESET_MEMO");
  if (!v || !*v) return true;   // unset or empty: the default
  std::string s(v);
  for (char& ch : s) ch = (char)((ch >= 'A' && ch <= 'Z') ? ch - 'A' + 'a' : ch);
  if (s == "1" || s == "true" || s == "on" || s == "yes") return true;
  if (s == "0" || s == "false" || s == "off" || s == "no") return false;
  throw std::invalid_argument("CULE_RESET_MEMO must be 1 / true / on / yes or 0 / false / off / no, got '" +
                              std::string(v) + "'");
}

}  // namespace cule
