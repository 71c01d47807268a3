// Tests of the machine profile file (src/machine/machine_profile.hpp): a
// profile formats and parses back to itself; the reader refuses each kind
// of bad text with the line and the reason; the key check names the first
// key that differs; the writer replaces the file atomically and never
// writes through a symlink.
//
// Example:
//   ./machine_profile_test --gtest_filter='MachineProfile.*'
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "machine/machine_profile.hpp"

namespace zerolab::machine {
namespace {

MachineProfile sample() {
  MachineProfile p;
  p.key = {"AMD EPYC", "0x1000065", "6.1.0-28-cloud-amd64", "2.36"};
  p.written = "2026-12-07T04:10:00Z";
  p.zero_isa = ZeroIsa::kAvx2;
  p.zero_bands = {{8192, ZeroMethod::kRepStosb}, {16 << 20, ZeroMethod::kNonTemporal}};
  p.copy = {{CopyEnd::kFile, CopyEnd::kUnixStream, CopyPath::kReadWrite},
            {CopyEnd::kPipe, CopyEnd::kFile, CopyPath::kSplice}};
  p.copy_small_file = CopyPath::kReadWrite;
  return p;
}

std::string refusal(const std::string& text) {
  std::string error;
  EXPECT_FALSE(parse_profile(text, error).has_value()) << text;
  return error;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(MachineProfile, FormatsAndParsesBackToItself) {
  const std::string text = format_profile(sample());
  EXPECT_EQ(text,
            "zerolab-machine-profile 1\ncpu AMD EPYC\nmicrocode 0x1000065\n"
            "kernel 6.1.0-28-cloud-amd64\nglibc 2.36\nwritten 2026-12-07T04:10:00Z\n"
            "zero-isa avx2\nzero-band 8192 rep-stosb\nzero-band 16777216 nt\n"
            "copy file unix read_write\ncopy pipe file splice\ncopy-small-file read_write\nend\n");
  std::string error;
  const auto back = parse_profile(text, error);
  ASSERT_TRUE(back.has_value()) << error;
  EXPECT_EQ(*back, sample());
}

TEST(MachineProfile, RefusesBadTextWithTheLineAndReason) {
  const std::string good = format_profile(sample());
  const auto replace = [&good](const std::string& from, const std::string& to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  EXPECT_EQ(refusal(""), "empty");
  EXPECT_EQ(refusal("PK zip archive\n"), "line 1: not a zerolab machine profile");
  EXPECT_EQ(refusal("\x7f"
                    "ELF\n"),
            "line 1: a character that is not printable ASCII");
  EXPECT_EQ(refusal(replace("profile 1", "profile 7")),
            "line 1: version \"7\", this build reads version 1");
  EXPECT_EQ(refusal(good.substr(0, good.size() - 4)), "truncated: no final end line");
  EXPECT_EQ(refusal(good + "copy file pipe splice\n"), "line 14: text after the end line");
  EXPECT_EQ(refusal(replace("cpu AMD", "cpux AMD")), "line 2: expected the \"cpu\" line");
  EXPECT_EQ(refusal(replace("16777216", "4096")), "line 9: zero-band sizes are not ascending");
  EXPECT_EQ(refusal(replace("16777216", "1e6")), "line 9: zero-band size is not a number of bytes");
  EXPECT_EQ(refusal(replace("8192 rep", "16 rep")),
            "line 8: zero-band size is outside 64 B .. 1 TiB");
  EXPECT_EQ(refusal(replace(" nt\n", " fast\n")),
            "line 9: zero-band method is not one of vector, rep-stosb, nt, memset");
  EXPECT_EQ(refusal(replace("unix read_write", "unix clone")),
            "line 10: copy path is not one of copy_file_range, sendfile, splice, read_write");
  EXPECT_EQ(refusal(replace("pipe file splice", "file unix splice")),
            "line 11: a second copy line for one pair");
  EXPECT_EQ(refusal(replace("AMD EPYC", "AMD\tEPYC")),
            "line 2: a character that is not printable ASCII");
  EXPECT_EQ(refusal(replace("AMD EPYC", std::string(300, 'x'))),
            "line 2: longer than 256 characters");
  EXPECT_EQ(refusal(replace("zero-isa avx2\n", "")), "zero-band lines without a zero-isa line");
  std::string many = good.substr(0, good.find("zero-band"));
  for (int i = 1; i <= 17; ++i) many += "zero-band " + std::to_string(i * 4096) + " vector\n";
  EXPECT_EQ(refusal(many + "end\n"), "line 24: more than 16 zero-band lines");
  EXPECT_EQ(refusal(std::string(kMaxProfileBytes + 1, '\n')), "larger than 16384 bytes");
}

TEST(MachineProfile, StalenessNamesTheFirstKeyThatDiffers) {
  const MachineProfile p = sample();
  EXPECT_EQ(staleness(p, p.key), "");
  MachineKey here = p.key;
  here.microcode = "0x1000066";
  here.kernel = "6.2.0";
  EXPECT_EQ(staleness(p, here),
            "stale: microcode is \"0x1000066\" here, \"0x1000065\" in the profile");
  here = p.key;
  here.glibc = "2.40";
  EXPECT_EQ(staleness(p, here), "stale: glibc is \"2.40\" here, \"2.36\" in the profile");
}

class TempDir {
 public:
  TempDir() {
    char dir[] = "/tmp/machine_profile_test.XXXXXX";
    if (mkdtemp(dir) != nullptr) path = dir;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string path;
};

TEST(MachineProfile, WritesAtomicallyAndLoadsForThisMachineOnly) {
  const TempDir tmp;
  const std::string path = tmp.path + "/zerolab/machine-profile";  // the directory is created
  ASSERT_EQ(write_profile(path, sample()), "");
  EXPECT_EQ(read_file(path), format_profile(sample()));
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // No temporary file is left beside it.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path + "/zerolab")) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1);
  const LoadedProfile loaded = load_profile(path, sample().key);
  ASSERT_TRUE(loaded.usable) << loaded.why;
  EXPECT_EQ(loaded.profile, sample());
  MachineKey other = sample().key;
  other.cpu = "Intel Xeon";
  const LoadedProfile foreign = load_profile(path, other);
  EXPECT_FALSE(foreign.usable);
  EXPECT_EQ(foreign.why, path + ": stale: cpu is \"Intel Xeon\" here, \"AMD EPYC\" in the profile");
  EXPECT_EQ(load_profile(tmp.path + "/none", sample().key).why,
            "no profile at " + tmp.path + "/none");
}

TEST(MachineProfile, NeverWritesThroughASymlink) {
  const TempDir tmp;
  const std::string victim = tmp.path + "/victim";
  std::ofstream(victim) << "precious\n";
  ASSERT_EQ(::mkdir((tmp.path + "/zerolab").c_str(), 0700), 0);
  const std::string path = tmp.path + "/zerolab/machine-profile";
  ASSERT_EQ(::symlink(victim.c_str(), path.c_str()), 0);
  EXPECT_EQ(write_profile(path, sample()), path + ": refused: exists and is not a regular file");
  EXPECT_EQ(read_file(victim), "precious\n");
  // A symlinked directory is refused too.
  const std::string linked = tmp.path + "/linked";
  ASSERT_EQ(::symlink((tmp.path + "/zerolab").c_str(), linked.c_str()), 0);
  EXPECT_EQ(write_profile(linked + "/machine-profile", sample()), linked + ": refused: a symlink");
  EXPECT_EQ(load_profile(path, sample().key).why, path + ": refused: a symlink");
}

}  // namespace
}  // namespace zerolab::machine
