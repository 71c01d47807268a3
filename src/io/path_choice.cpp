// copy_fd's choice between the paths a pair allows (path_choice.hpp).
#include "io/path_choice.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "machine/machine_profile.hpp"

namespace zerolab::io {
namespace {

// The environment's settings, read by the copies once per process and by
// copy_environment_errors() at each call. A value other than those named
// is ignored.
constexpr const char* kProfileVariable = "ZEROLAB_COPY_PROFILE";  // 0 or 1
constexpr const char* kSmallFileVariable = "ZEROLAB_COPY_SMALL_FILE";

bool known_switch(const char* value) noexcept {
  return value == nullptr || std::strcmp(value, "0") == 0 || std::strcmp(value, "1") == 0;
}

// The path a ZEROLAB_COPY_SMALL_FILE value names, kNone for none or another value.
CopyPath small_file_path_named(const char* value) noexcept {
  if (value == nullptr) return CopyPath::kNone;
  if (std::strcmp(value, "copy_file_range") == 0) return CopyPath::kCopyFileRange;
  if (std::strcmp(value, "read_write") == 0) return CopyPath::kReadWrite;
  return CopyPath::kNone;
}

const machine::LoadedProfile* profile() noexcept {
  if (!profile_enabled()) return nullptr;
  const machine::LoadedProfile& p = machine::machine_profile();
  return p.usable ? &p : nullptr;
}

struct SmallFileChoice {
  CopyPath path = CopyPath::kCopyFileRange;
  const char* source = "table";
};

const SmallFileChoice& small_file_choice() noexcept {
  static const SmallFileChoice choice = [] {
    SmallFileChoice c;
    if (const CopyPath named = small_file_path_named(std::getenv(kSmallFileVariable));
        named != CopyPath::kNone) {
      c.path = named;
      c.source = "ZEROLAB_COPY_SMALL_FILE";
    } else if (const machine::LoadedProfile* p = profile(); p && p->profile.copy_small_file) {
      c.path = *p->profile.copy_small_file;
      c.source = "profile";
    }
    return c;
  }();
  return choice;
}

}  // namespace

bool profile_enabled() noexcept {
  static const bool enabled = [] {
    const char* v = std::getenv(kProfileVariable);
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return enabled;
}

CopyPath profile_path_for(CopyEnd src, CopyEnd dst, unsigned allowed) noexcept {
  const machine::LoadedProfile* p = profile();
  if (p == nullptr) return CopyPath::kNone;
  for (const machine::CopyChoice& c : p->profile.copy) {
    if (c.src == src && c.dst == dst) {
      return ((allowed >> static_cast<unsigned>(c.path)) & 1u) != 0 ? c.path : CopyPath::kNone;
    }
  }
  return CopyPath::kNone;
}

CopyPath path_for(const CopyPlan& plan, std::uint64_t expected) noexcept {
  if (expected < kProfileFrom) return plan.path;
  const CopyPath chosen = profile_path_for(plan.src, plan.dst, plan.allowed);
  return chosen != CopyPath::kNone ? chosen : plan.path;
}

CopyPath small_file_path() noexcept {
  return small_file_choice().path;
}

const char* small_file_source() noexcept {
  return small_file_choice().source;
}

}  // namespace zerolab::io

namespace zerolab {

std::string copy_environment_errors() {
  std::string errors;
  const auto add = [&errors](const char* name, const char* value, const char* why) {
    if (!errors.empty()) errors += "; ";
    errors += std::string(name) + "=" + value + ": " + why;
  };
  if (const char* v = std::getenv(io::kProfileVariable); !io::known_switch(v)) {
    add(io::kProfileVariable, v, "not 0 or 1");
  }
  if (const char* v = std::getenv(io::kSmallFileVariable);
      v != nullptr && io::small_file_path_named(v) == CopyPath::kNone) {
    add(io::kSmallFileVariable, v, "not copy_file_range or read_write");
  }
  return errors;
}

}  // namespace zerolab
