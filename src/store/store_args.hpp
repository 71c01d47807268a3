// store/store_args.hpp — the small languages of the store's command line:
// the store URL (sqlite:PATH or postgres://...), run labels (key=value) and
// --since (a date, a time or an age). Each parser returns false with a
// one-line message naming what was wrong; none of them touches a database.
//
// Thread-safety: pure functions.
//
// Example:
//   StoreUrl url;
//   std::string error;
//   parse_store_url("postgres://ci:secret@db/bench", url, error);
//   // url.engine == Engine::kPostgres, url.display == "postgres://ci:***@db/bench"
//   std::int64_t since_ms = 0;
//   parse_since("2026-12-01", now_ms, since_ms, error);  // midnight UTC that day
//   parse_since("7d", now_ms, since_ms, error);          // now minus a week
#ifndef ZEROLAB_SRC_STORE_STORE_ARGS_HPP_
#define ZEROLAB_SRC_STORE_STORE_ARGS_HPP_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zerolab::store {

enum class Engine { kSqlite, kPostgres };

// The store every command uses unless --store says otherwise.
inline constexpr std::string_view kDefaultStoreUrl = "sqlite:zerolab-results/zerolab.db";

struct StoreUrl {
  Engine engine = Engine::kSqlite;
  std::string target;   // kSqlite: the file path; kPostgres: the URL as given (for libpq)
  std::string display;  // the URL for messages, with any password replaced by ***
};

// "sqlite:PATH" (PATH non-empty) or "postgres://..." / "postgresql://...".
// Errors: no scheme, an unknown scheme, an empty path, control characters.
bool parse_store_url(std::string_view text, StoreUrl& url, std::string& error);

// The URL with the password of "user:password@" and of a "password=..."
// query parameter replaced by "***". The userinfo ends at the last '@'
// before the first '/' (libpq's authority); the query begins at the first
// '?' after it. Example:
//   redact_url("postgres://u:p@h/db?password=x") == "postgres://u:***@h/db?password=***"
std::string redact_url(std::string_view url);

// "key=value": key non-empty, of letters, digits and "_.-", at most
// kMaxLabelKey bytes; value without control characters (may be empty), at
// most kMaxLabelValue bytes.
inline constexpr std::size_t kMaxLabelKey = 64;
inline constexpr std::size_t kMaxLabelValue = 1024;
bool parse_label(std::string_view text, std::string& key, std::string& value, std::string& error);

// --since: "YYYY-MM-DD" (midnight UTC), "YYYY-MM-DDTHH:MM[:SS]" with "Z" or
// "±HH:MM" (UTC when omitted), or an age before now_ms: "90m", "36h", "7d",
// "2w". Result in milliseconds since the epoch.
bool parse_since(std::string_view text, std::int64_t now_ms, std::int64_t& since_ms,
                 std::string& error);

// Milliseconds since the epoch as RFC 3339 UTC: "2026-12-03T09:37:09.123Z".
std::string format_time_ms(std::int64_t unix_ms);

}  // namespace zerolab::store

#endif  // ZEROLAB_SRC_STORE_STORE_ARGS_HPP_
