// A seed claim states the seed's own words. Every claim
// of the catalog that is not the project's own quotes its seed verbatim
// (cut only with "…"), from the section it names, and states the seed's
// figure; a project claim quotes nothing. The seeds are not part of the repository: they are read
// from $ZEROLAB_SEEDS_DIR, else ../shared/seeds beside the source tree, and the test is skipped
// (with the path it looked at) where they are absent.
//
// Example:
//   ZEROLAB_SEEDS_DIR=/work/shared/seeds ctest --preset release -R LabSeedQuotes
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lab/experiments/catalog.hpp"
#include "lab/framework/experiment.hpp"

namespace zerolab::lab {
namespace {

std::string seeds_dir() {
  if (const char* env = std::getenv("ZEROLAB_SEEDS_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  return ZEROLAB_SEEDS_DIR;
}

// The text with every run of white space made one space, trimmed.
std::string squeeze(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// The pieces of a quote between its "…" cuts, squeezed, empty ones dropped.
std::vector<std::string> fragments(const std::string& quote) {
  static const std::string kEllipsis = "…";
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from <= quote.size()) {
    std::size_t cut = quote.find(kEllipsis, from);
    if (cut == std::string::npos) cut = quote.size();
    std::string piece = squeeze(quote.substr(from, cut - from));
    if (!piece.empty()) out.push_back(piece);
    from = cut + kEllipsis.size();
  }
  return out;
}

// A section names the seed's heading, then optionally what in it:
// "Linux (old_linux.txt vs new_linux.txt)" is the heading "Linux".
std::string heading(const std::string& section) {
  return squeeze(section.substr(0, section.find(" (")));
}

bool read_seed(const std::string& path, std::string& text) {
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = squeeze(s.str());
  return true;
}

TEST(LabSeedQuotes, FragmentsSplitOnTheEllipsisAndSqueezeSpaces) {
  EXPECT_EQ(fragments("a  b … c\n d…"), (std::vector<std::string>{"a b", "c d"}));
  EXPECT_EQ(fragments("… x …"), (std::vector<std::string>{"x"}));
  EXPECT_TRUE(fragments("").empty());
  EXPECT_EQ(heading("Linux (old_linux.txt vs new_linux.txt)"), "Linux");
  EXPECT_EQ(heading("Results"), "Results");
}

// Without the seeds: a seed claim states the seed's figure (or why there is
// none); a project claim quotes no seed at all.
TEST(LabSeedQuotes, SeedClaimsStateTheirFigureAndProjectClaimsNone) {
  for (const Experiment& e : catalog()) {
    for (const Claim& c : e.claims) {
      if (c.origin == ClaimOrigin::kProject) {
        EXPECT_TRUE(c.seed_figure.empty() && c.seed_section.empty())
            << e.id << ": a project claim quotes no seed: " << c.statement;
      } else {
        EXPECT_FALSE(c.seed_figure.empty()) << e.id << ": no seed figure for: " << c.statement;
      }
    }
  }
}

TEST(LabSeedQuotes, EverySeedClaimQuotesItsSeedVerbatim) {
  const std::string dir = seeds_dir();
  std::size_t checked = 0;
  for (const Experiment& e : catalog()) {
    std::string seed;
    if (!read_seed(dir + "/" + e.seed_file, seed)) {
      GTEST_SKIP() << "the seeds are not on this machine: no " << dir << "/" << e.seed_file
                   << " (set ZEROLAB_SEEDS_DIR)";
    }
    for (const Claim& c : e.claims) {
      if (c.origin == ClaimOrigin::kProject) continue;
      EXPECT_FALSE(c.seed_section.empty()) << e.id << ": no section for: " << c.statement;
      EXPECT_NE(seed.find(heading(c.seed_section)), std::string::npos)
          << e.id << ": the section \"" << heading(c.seed_section) << "\" is not in "
          << e.seed_file;
      const std::vector<std::string> pieces = fragments(c.statement);
      EXPECT_FALSE(pieces.empty()) << e.id << ": an empty quote";
      for (const std::string& piece : pieces) {
        EXPECT_NE(seed.find(piece), std::string::npos)
            << e.id << ": not the seed's words (" << e.seed_file << "): \"" << piece << "\"";
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 80u);
}

}  // namespace
}  // namespace zerolab::lab
