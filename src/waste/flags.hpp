// The flags of `zerolab waste [flags] [--] PROGRAM [ARG...]`, parsed and
// checked: -flag, --flag, -flag value and -flag=value, as `zerolab lab`
// takes them. Flags end at "--" or at the first argument that is not a flag
// (Go's flag package); everything after is the program and its arguments,
// passed on untouched.
//
// Thread-safety: pure functions.
//
// Example:
//   WasteFlags f;
//   std::string error;
//   if (!parse_waste_flags(args, f, error)) { print "zerolab waste: " + error; exit 2; }
//   // "--format json --fail-on temporary-allocations=1M -- ./prog -x":
//   //   f.format == WasteFormat::kJson, f.fail_on[0] == {kTemporaryAllocations, 1048576},
//   //   f.program == {"./prog", "-x"}
#ifndef ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_FLAGS_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_FLAGS_HPP_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zerolab::waste {

// The six kinds, in the report's and the JSON's spelling.
enum class WasteKind {
  kZeroedFreshPages,
  kZeroedZeros,
  kTemporaryAllocations,
  kOversizedBuffers,
  kUserSpaceCopies,
  kTemporaryInFrame,  // the second definition of a temporary (record_format.hpp)
};
inline constexpr int kWasteKinds = 6;

// "zeroed-fresh-pages", "zeroed-zeros", "temporary-allocations",
// "oversized-buffers", "user-space-copies", "temporary-allocations-in-frame".
std::string_view kind_name(WasteKind kind);
std::optional<WasteKind> kind_from_name(std::string_view name);

enum class WasteFormat { kText, kJson, kMarkdown, kHtml };  // kHtml: runs only, not diffs

// --fail-on KIND=BYTES: exit 3 when KIND's bytes reach BYTES. KIND may be
// "any" (kind == nullopt): the sum of all kinds.
struct FailOn {
  std::optional<WasteKind> kind;
  std::uint64_t bytes = 0;
};

struct WasteFlags {
  bool help = false;
  WasteFormat format = WasteFormat::kText;
  std::string output;       // -o FILE; "" = stderr
  std::string profile_dir;  // --profile DIR; "" = none
  std::vector<FailOn> fail_on;
  std::uint64_t check_rate = 256 * 1024;   // --check-rate BYTES (zeroed zeros)
  std::uint64_t sample_rate = 512 * 1024;  // --sample-rate BYTES (temporary allocation sites)
  bool follow = true;                      // false with --no-follow
  bool recalibrate = false;  // --recalibrate: measure the machine's costs again (calibrate.hpp)
  std::vector<std::string> skip_frames;  // --skip-frame REGEX, repeatable (frame_filter.hpp)
  std::string baseline;  // --baseline FILE: a --format json report to diff against ("" = none)
  std::vector<std::string> program;  // PROGRAM ARG...
};

// "KIND=BYTES", BYTES as digits with an optional K, M, G (binary) suffix or
// KiB/MiB/GiB. Returns false with `error` (one line, no prefix).
bool parse_fail_on(std::string_view text, FailOn& out, std::string& error);

// Returns false with `error` (one line, no prefix) on an unknown flag, a
// missing or bad value, or no program. A missing program is not an error
// when --help is given.
bool parse_waste_flags(std::span<char* const> args, WasteFlags& flags, std::string& error);

// `text` in double quotes with '"', '\\' and every byte outside printable
// ASCII escaped (\n, \t, \xNN), so an error quoting user input stays on one line.
std::string quote_arg(std::string_view text);
// `text` as is when it is printable ASCII without spaces or quotes, else quote_arg(text).
std::string shown_arg(std::string_view text);

extern const char* const kWasteUsage;

// `zerolab waste diff [flags] OLD.json NEW.json` (diff.hpp).
struct WasteDiffFlags {
  bool help = false;
  WasteFormat format = WasteFormat::kText;
  std::string output;  // -o FILE; "" = stdout
  std::vector<FailOn> fail_on;
  std::string old_path;
  std::string new_path;
};

// As parse_waste_flags; exactly two operands unless --help.
bool parse_waste_diff_flags(std::span<char* const> args, WasteDiffFlags& flags, std::string& error);

extern const char* const kWasteDiffUsage;

}  // namespace zerolab::waste

#endif  // ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_FLAGS_HPP_
