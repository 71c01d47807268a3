// libFuzzer target for the store's command-line languages
// (src/store/store_args.hpp): the input is read as a store URL, a label
// and a --since value. Each must parse or fail with a one-line message;
// a parsed URL's display never shows the password of "user:pw@"; a parsed
// label's key is non-empty; a parsed absolute time prints back and parses
// to the same instant; never crash.
//
// Example:
//   ./store_args_fuzz -max_total_time=600 -dict=fuzz/store_args.dict fuzz/corpus/store_args_fuzz
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "store/store_args.hpp"

namespace {

void check_message(const std::string& error) {
  if (error.empty() || error.find('\n') != std::string::npos) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  using namespace zerolab::store;

  StoreUrl url;
  std::string error;
  if (parse_store_url(text, url, error)) {
    if (url.target.empty() || url.display.empty()) __builtin_trap();
    if (url.engine == Engine::kPostgres) {
      // "scheme://user:secret@host/...": the display keeps "scheme://user:"
      // and shows "***" where the secret was (the userinfo ends at the last
      // '@' before the first '/', as redact_url documents).
      const std::size_t auth = text.find("://") + 3;
      std::size_t end = text.find('/', auth);
      if (end == std::string_view::npos) end = text.size();
      const std::size_t at = text.rfind('@', end);
      const std::size_t colon = text.find(':', auth);
      if (at != std::string_view::npos && at >= auth && colon < at) {
        const std::string expected = std::string(text.substr(0, colon + 1)) + "***@";
        if (url.display.compare(0, expected.size(), expected) != 0) __builtin_trap();
      }
    }
  } else {
    check_message(error);
  }

  std::string key, value;
  error.clear();
  if (parse_label(text, key, value, error)) {
    if (key.empty() || key.size() + 1 + value.size() != text.size()) __builtin_trap();
  } else {
    check_message(error);
  }

  std::int64_t since = 0;
  error.clear();
  const std::int64_t now = 1'764'700'000'000;
  if (parse_since(text, now, since, error)) {
    const char last = text.back();
    const bool age = last == 'm' || last == 'h' || last == 'd' || last == 'w';
    if (age && since > now) __builtin_trap();
    if (!age) {
      std::int64_t again = 0;
      std::string e2;
      if (!parse_since(format_time_ms(since), now, again, e2) || again != since) __builtin_trap();
    }
  } else {
    check_message(error);
  }
  return 0;
}
