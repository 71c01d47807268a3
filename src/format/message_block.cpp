// The "--- FAIL: name" blocks of Go's testing output: the one writer and the
// one reader (include/zerolab/benchfmt.hpp).
#include <array>
#include <string>
#include <utility>

#include "zerolab/benchfmt.hpp"

namespace zerolab::benchfmt {
namespace {

constexpr std::array<BlockKind, 4> kKinds = {BlockKind::kPass, BlockKind::kFail, BlockKind::kSkip,
                                             BlockKind::kBench};
constexpr std::string_view kIndent = "    ";

// The kind of a "--- KIND: " line, and where its name starts.
bool block_start(std::string_view line, BlockKind& kind, std::size_t& name_at) {
  if (line.substr(0, 4) != "--- ") return false;
  for (const BlockKind k : kKinds) {
    const std::string_view word = block_kind_name(k);
    if (line.substr(4, word.size()) == word && line.substr(4 + word.size(), 2) == ": ") {
      kind = k;
      name_at = 4 + word.size() + 2;
      return true;
    }
  }
  return false;
}

// A benchmark that fails while measured: Go (and bench_main) have already
// printed its padded name and a tab, so the block starts after them:
// "BenchmarkX-2   \t--- FAIL: BenchmarkX-2".
bool block_start_after_name(std::string_view line, BlockKind& kind, std::size_t& name_at) {
  if (line.substr(0, 9) != "Benchmark") return false;
  const std::size_t tab = line.find('\t');
  if (tab == std::string_view::npos || !block_start(line.substr(tab + 1), kind, name_at))
    return false;
  name_at += tab + 1;
  return true;
}

}  // namespace

std::string_view block_kind_name(BlockKind kind) {
  switch (kind) {
    case BlockKind::kPass:
      return "PASS";
    case BlockKind::kFail:
      return "FAIL";
    case BlockKind::kSkip:
      return "SKIP";
    case BlockKind::kBench:
      return "BENCH";
  }
  return "FAIL";
}

std::string format_message_block(const MessageBlock& block) {
  std::string text = "--- ";
  text += block_kind_name(block.kind);
  text += ": " + block.name + "\n";
  for (const auto& line : block.lines) {
    text += kIndent;
    text += line + "\n";
  }
  return text;
}

std::vector<MessageBlock> read_message_blocks(std::string_view text) {
  std::vector<MessageBlock> blocks;
  bool in_block = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    BlockKind kind{};
    std::size_t name_at = 0;
    if (block_start(line, kind, name_at) || block_start_after_name(line, kind, name_at)) {
      const std::string_view rest = line.substr(name_at);
      blocks.push_back({kind, std::string(rest.substr(0, rest.find(' '))), {}});
      in_block = true;
    } else if (in_block && line.substr(0, kIndent.size()) == kIndent) {
      blocks.back().lines.emplace_back(line.substr(kIndent.size()));
    } else {
      in_block = false;
    }
  }
  return blocks;
}

}  // namespace zerolab::benchfmt
