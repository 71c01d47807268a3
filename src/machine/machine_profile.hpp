// src/machine/machine_profile.hpp — the machine profile: what `zerolab
// calibrate` measured on this machine for zero_fill and copy_fd, as a small
// versioned text file, and the key (CPU model, microcode, kernel, glibc)
// that says whether it still describes the machine it is read on.
//
// The file lives at $XDG_CACHE_HOME/zerolab/machine-profile (an absolute
// XDG_CACHE_HOME only), else $HOME/.cache/zerolab/machine-profile:
//
//   zerolab-machine-profile 1
//   cpu AMD EPYC
//   microcode 0x1000065
//   kernel 6.1.0-28-cloud-amd64
//   glibc 2.36
//   written 2026-12-07T04:10:00Z
//   zero-isa avx2
//   zero-band 8192 rep-stosb
//   zero-band 16777216 nt
//   copy file unix read_write
//   copy-small-file read_write
//   end
//
// Staleness: the profile is used only when its four key lines equal this
// machine's; any difference (a new kernel, a microcode update, another
// CPU, another glibc) makes it stale, and the primitives use their CPUID
// rule and table until `zerolab calibrate` runs again. A file that is not
// this format (another magic, another version), cut short (no final
// "end"), larger than kMaxProfileBytes, not a regular file owned by this
// user and writable only by them, or with any line out of place is refused
// as a whole, with a one-line reason.
//
// Thread-safety: parse/format are pure; machine_profile() loads once
// (a function-local static) and is read-only afterwards.
//
// Example:
//   const LoadedProfile& p = machine_profile();
//   if (p.usable) use(p.profile.zero_bands); else log(p.why);  // "stale: kernel ..."
#ifndef ZEROLAB_SRC_MACHINE_MACHINE_PROFILE_HPP_
#define ZEROLAB_SRC_MACHINE_MACHINE_PROFILE_HPP_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zerolab/copy.hpp"
#include "zerolab/zero.hpp"

namespace zerolab::machine {

inline constexpr int kProfileVersion = 1;
inline constexpr std::size_t kMaxProfileBytes = 16 << 10;
inline constexpr std::size_t kMaxLine = 256;
inline constexpr std::size_t kMaxZeroBands = ZeroConfig::kMaxBands;

// What the profile is valid for.
struct MachineKey {
  std::string cpu;        // /proc/cpuinfo "model name"
  std::string microcode;  // /proc/cpuinfo "microcode" ("" where the kernel does not say)
  std::string kernel;     // uname -r
  std::string glibc;      // gnu_get_libc_version()
  bool operator==(const MachineKey&) const = default;
};

// One pair kind's path for copies of at least kProfileCopyFrom bytes.
struct CopyChoice {
  CopyEnd src = CopyEnd::kOther;
  CopyEnd dst = CopyEnd::kOther;
  CopyPath path = CopyPath::kNone;
  bool operator==(const CopyChoice&) const = default;
};

struct MachineProfile {
  MachineKey key;
  std::string written;              // UTC, ISO 8601: when calibrate wrote it
  std::optional<ZeroIsa> zero_isa;  // the ISA the bands were measured with
  std::vector<ZeroBand> zero_bands;
  std::vector<CopyChoice> copy;
  std::optional<CopyPath> copy_small_file;  // copy_file_range or read_write
  bool operator==(const MachineProfile&) const = default;
};

// The machine this process runs on (reads /proc/cpuinfo once per call).
MachineKey this_machine_key();

// The profile's path ("" with `why` set when neither XDG_CACHE_HOME nor
// HOME gives a directory).
std::string profile_path(std::string* why = nullptr);

// The file's text; nullopt with `error` ("line 3: ...", "truncated: no
// final end line", ...) for anything not exactly this format.
std::optional<MachineProfile> parse_profile(std::string_view text, std::string& error);
std::string format_profile(const MachineProfile& profile);

// "" when `profile` was written for `here`; else "stale: kernel is X here,
// Y in the profile" (the first key that differs).
std::string staleness(const MachineProfile& profile, const MachineKey& here);

struct LoadedProfile {
  bool usable = false;  // found, well-formed and written for this machine
  MachineProfile profile;
  std::string path;
  std::string why;  // when not usable: "none at PATH", "PATH: stale: ...", ...
};

// Reads the profile at `path` and checks it against `here`.
LoadedProfile load_profile(const std::string& path, const MachineKey& here);

// The profile of this process: read once, at first call, from
// profile_path() (only when the file exists is this machine's key read).
const LoadedProfile& machine_profile();

// Writes `profile` to `path` atomically: a temporary file in the same
// directory, fsync, rename over `path`. Creates the directory (0700) when
// missing; refuses a directory or a final name that is a symlink. Returns
// "" or the reason it failed (nothing is left half-written).
std::string write_profile(const std::string& path, const MachineProfile& profile);

// The same cache directory and the same care for other files zerolab keeps
// per machine (`zerolab waste`'s cost figures):
// $XDG_CACHE_HOME/zerolab/FILE, else $HOME/.cache/zerolab/FILE ("" with
// `why` set when neither gives a directory).
std::string cache_file_path(std::string_view file, std::string* why = nullptr);
// Reads the file at `path` (up to `limit` + 1 bytes, so a caller sees that
// it is too long): returns 0, or the errno of its open (ENOENT: none; ELOOP:
// a symlink). With 0, `refused` is "" or why the file is not to be trusted
// ("refused: not a regular file", "refused: owned by uid N, not this user",
// "refused: writable by group or others", "read: ...").
int read_cache_file(const std::string& path, std::size_t limit, std::string& text,
                    std::string& refused);
// Writes `text` to `path` as write_profile does ("" or the reason).
std::string write_cache_file(const std::string& path, const std::string& text);

// Names used in the file (and by the CLI).
std::string_view end_name(CopyEnd end) noexcept;  // "file", "pipe", "unix", "loopback", ...

}  // namespace zerolab::machine

#endif  // ZEROLAB_SRC_MACHINE_MACHINE_PROFILE_HPP_
