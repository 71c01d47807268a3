// The machine profile's text format: parse_profile and format_profile
// (machine_profile.hpp). The parser takes nothing on trust: every line has
// one fixed shape, every number is checked for range, and anything else
// refuses the whole file with the line's number.
#include <charconv>
#include <string>

#include "machine/machine_profile.hpp"

namespace zerolab::machine {
namespace {

constexpr std::string_view kMagic = "zerolab-machine-profile";
constexpr const char* kIsaNames[] = {"sse2", "avx2", "avx512"};
constexpr const char* kMethodNames[] = {"vector", "rep-stosb", "nt", "memset"};
constexpr const char* kEndNames[] = {"file", "pipe", "unix", "loopback", "remote", "other"};
constexpr const char* kPathNames[] = {"none",     "clone",  "copy_file_range",
                                      "sendfile", "splice", "read_write"};

template <std::size_t N>
int index_of(const char* const (&names)[N], std::string_view word) {
  for (std::size_t i = 0; i < N; ++i) {
    if (word == names[i]) return static_cast<int>(i);
  }
  return -1;
}

// Splits off the first space-separated word of `rest`.
std::string_view next_word(std::string_view& rest) {
  const std::size_t space = rest.find(' ');
  const std::string_view word = rest.substr(0, space);
  rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  return word;
}

bool printable(std::string_view line) {
  for (const char ch : line) {
    if (ch < 0x20 || ch > 0x7e) return false;
  }
  return true;
}

struct Parser {
  MachineProfile out;
  std::string& error;
  int line_no = 0;

  bool fail(const std::string& why) {
    error = "line " + std::to_string(line_no) + ": " + why;
    return false;
  }

  // A header line "<name> <value>" (value may be empty and may hold spaces).
  bool header(std::string_view line, std::string_view name, std::string& value) {
    if (line.substr(0, name.size()) != name ||
        (line.size() > name.size() && line[name.size()] != ' ')) {
      return fail("expected the \"" + std::string(name) + "\" line");
    }
    value = std::string(line.size() > name.size() ? line.substr(name.size() + 1) : "");
    return true;
  }

  bool body(std::string_view line) {
    std::string_view rest = line;
    const std::string_view key = next_word(rest);
    if (key == "zero-isa") {
      if (out.zero_isa) return fail("a second zero-isa line");
      const int isa = index_of(kIsaNames, rest);
      if (isa < 0) return fail("zero-isa is not one of sse2, avx2, avx512");
      out.zero_isa = static_cast<ZeroIsa>(isa);
      return true;
    }
    if (key == "zero-band") {
      const std::string_view size = next_word(rest);
      std::uint64_t from = 0;
      const auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), from);
      if (ec != std::errc() || end != size.data() + size.size() || size.empty()) {
        return fail("zero-band size is not a number of bytes");
      }
      if (from < 64 || from > (std::uint64_t{1} << 40)) {
        return fail("zero-band size is outside 64 B .. 1 TiB");
      }
      if (!out.zero_bands.empty() && from <= out.zero_bands.back().from) {
        return fail("zero-band sizes are not ascending");
      }
      if (out.zero_bands.size() == kMaxZeroBands) return fail("more than 16 zero-band lines");
      const int method = index_of(kMethodNames, rest);
      if (method < 0) return fail("zero-band method is not one of vector, rep-stosb, nt, memset");
      out.zero_bands.push_back({static_cast<std::size_t>(from), static_cast<ZeroMethod>(method)});
      return true;
    }
    if (key == "copy") {
      const int src = index_of(kEndNames, next_word(rest));
      const int dst = index_of(kEndNames, next_word(rest));
      const int path = index_of(kPathNames, rest);
      if (src < 0 || dst < 0)
        return fail("copy needs two kinds of {file pipe unix loopback remote other}");
      if (path != static_cast<int>(CopyPath::kSendfile) &&
          path != static_cast<int>(CopyPath::kSplice) &&
          path != static_cast<int>(CopyPath::kReadWrite) &&
          path != static_cast<int>(CopyPath::kCopyFileRange)) {
        return fail("copy path is not one of copy_file_range, sendfile, splice, read_write");
      }
      const CopyChoice choice{static_cast<CopyEnd>(src), static_cast<CopyEnd>(dst),
                              static_cast<CopyPath>(path)};
      for (const CopyChoice& c : out.copy) {
        if (c.src == choice.src && c.dst == choice.dst)
          return fail("a second copy line for one pair");
      }
      out.copy.push_back(choice);
      return true;
    }
    if (key == "copy-small-file") {
      if (out.copy_small_file) return fail("a second copy-small-file line");
      if (rest == "copy_file_range") {
        out.copy_small_file = CopyPath::kCopyFileRange;
      } else if (rest == "read_write") {
        out.copy_small_file = CopyPath::kReadWrite;
      } else {
        return fail("copy-small-file is not copy_file_range or read_write");
      }
      return true;
    }
    return fail("unknown line \"" + std::string(key.substr(0, 32)) + "\"");
  }
};

}  // namespace

std::string_view end_name(CopyEnd end) noexcept {
  const auto i = static_cast<std::size_t>(end);
  return i < std::size(kEndNames) ? kEndNames[i] : "other";
}

std::optional<MachineProfile> parse_profile(std::string_view text, std::string& error) {
  error.clear();
  if (text.size() > kMaxProfileBytes) {
    error = "larger than " + std::to_string(kMaxProfileBytes) + " bytes";
    return std::nullopt;
  }
  Parser p{{}, error};
  bool ended = false;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) {
      ++p.line_no;
      error = "truncated: line " + std::to_string(p.line_no) + " has no newline";
      return std::nullopt;
    }
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    ++p.line_no;
    if (ended) {
      p.fail("text after the end line");
      return std::nullopt;
    }
    if (line.size() > kMaxLine) {
      p.fail("longer than " + std::to_string(kMaxLine) + " characters");
      return std::nullopt;
    }
    if (!printable(line)) {
      p.fail("a character that is not printable ASCII");
      return std::nullopt;
    }
    bool ok = true;
    std::string version;
    switch (p.line_no) {
      case 1:
        if (line.substr(0, kMagic.size()) != kMagic) {
          p.fail("not a zerolab machine profile");
          return std::nullopt;
        }
        ok = p.header(line, kMagic, version);
        if (ok && version != std::to_string(kProfileVersion)) {
          p.fail("version \"" + version.substr(0, 16) + "\", this build reads version " +
                 std::to_string(kProfileVersion));
          return std::nullopt;
        }
        break;
      case 2:
        ok = p.header(line, "cpu", p.out.key.cpu);
        break;
      case 3:
        ok = p.header(line, "microcode", p.out.key.microcode);
        break;
      case 4:
        ok = p.header(line, "kernel", p.out.key.kernel);
        break;
      case 5:
        ok = p.header(line, "glibc", p.out.key.glibc);
        break;
      case 6:
        ok = p.header(line, "written", p.out.written);
        break;
      default:
        if (line == "end") {
          ended = true;
        } else {
          ok = p.body(line);
        }
    }
    if (!ok) return std::nullopt;
  }
  if (p.line_no == 0) {
    error = "empty";
    return std::nullopt;
  }
  if (!ended) {
    error = "truncated: no final end line";
    return std::nullopt;
  }
  if (!p.out.zero_bands.empty() && !p.out.zero_isa) {
    error = "zero-band lines without a zero-isa line";
    return std::nullopt;
  }
  return std::move(p.out);
}

std::string format_profile(const MachineProfile& profile) {
  std::string s = std::string(kMagic) + " " + std::to_string(kProfileVersion) + "\n";
  s += "cpu " + profile.key.cpu + "\n";
  s += "microcode " + profile.key.microcode + "\n";
  s += "kernel " + profile.key.kernel + "\n";
  s += "glibc " + profile.key.glibc + "\n";
  s += "written " + profile.written + "\n";
  if (profile.zero_isa) {
    s += std::string("zero-isa ") + kIsaNames[static_cast<int>(*profile.zero_isa)] + "\n";
  }
  for (const ZeroBand& b : profile.zero_bands) {
    s += "zero-band " + std::to_string(b.from) + " " + kMethodNames[static_cast<int>(b.method)] +
         "\n";
  }
  for (const CopyChoice& c : profile.copy) {
    s += "copy " + std::string(end_name(c.src)) + " " + std::string(end_name(c.dst)) + " " +
         kPathNames[static_cast<int>(c.path)] + "\n";
  }
  if (profile.copy_small_file) {
    s += std::string("copy-small-file ") + kPathNames[static_cast<int>(*profile.copy_small_file)] +
         "\n";
  }
  s += "end\n";
  return s;
}

std::string staleness(const MachineProfile& profile, const MachineKey& here) {
  const struct {
    const char* name;
    const std::string& mine;
    const std::string& theirs;
  } keys[] = {{"cpu", here.cpu, profile.key.cpu},
              {"microcode", here.microcode, profile.key.microcode},
              {"kernel", here.kernel, profile.key.kernel},
              {"glibc", here.glibc, profile.key.glibc}};
  for (const auto& k : keys) {
    if (k.mine != k.theirs) {
      return std::string("stale: ") + k.name + " is \"" + k.mine + "\" here, \"" + k.theirs +
             "\" in the profile";
    }
  }
  return "";
}

}  // namespace zerolab::machine
