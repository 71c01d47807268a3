// Byte counts in the environment (size_text.hpp).
#include "mem/size_text.hpp"

#include <cerrno>
#include <cstdlib>

namespace zerolab::internal {

bool parse_size_text(const char* text, std::size_t& out) {
  if (text == nullptr || *text < '0' || *text > '9') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0) return false;
  unsigned shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10;
  if (*end == 'M' || *end == 'm') shift = 20;
  if (*end == 'G' || *end == 'g') shift = 30;
  if (shift != 0) ++end;
  if (*end != '\0') return false;
  if (shift != 0 && v > (~0ULL >> shift)) return false;
  if ((v << shift) > static_cast<unsigned long long>(static_cast<std::size_t>(-1))) return false;
  out = static_cast<std::size_t>(v << shift);
  return true;
}

}  // namespace zerolab::internal
