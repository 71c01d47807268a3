// Command-line inputs read in turn (include/zerolab/stat_reader.hpp), as
// benchfmt.Files reads them, with the reader chosen by each file's content.
//
// Example:
//   zerolab::stat::InputFiles files(zerolab::stat::parse_inputs(std::vector<std::string>{"old.txt",
//   "new.txt"})); while (files.next()) { /* files.kind(), files.result() */ } if
//   (!files.error().empty()) { /* "open old.txt: no such file or directory" */ }
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zerolab/stat_reader.hpp"

namespace zerolab::stat {
namespace {

// Replays a peeked first chunk (and its read error), then reads on.
class PeekSource final : public ByteSource {
 public:
  explicit PeekSource(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)) {
    // Not value-initialized: read() fills it (`zerolab waste` found 60 KiB
    // of fresh pages zeroed here, then overwritten, per input).
    prefix_ = std::make_unique_for_overwrite<char[]>(kPeekBytes);
    const std::ptrdiff_t n = inner_->read(prefix_.get(), kPeekBytes, error_);
    if (n < 0) {
      failed_ = true;
    } else {
      prefix_size_ = static_cast<std::size_t>(n);
    }
  }

  // The first non-blank byte of the input after a UTF-8 byte-order mark
  // (which some Windows tools write before JSON), or -1.
  int first_byte() const {
    const bool bom = std::string_view(prefix_.get(), prefix_size_).substr(0, 3) == "\xEF\xBB\xBF";
    for (char c : std::string_view(prefix_.get(), prefix_size_).substr(bom ? 3 : 0)) {
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\v' && c != '\f') {
        return static_cast<unsigned char>(c);
      }
    }
    return -1;
  }

  std::ptrdiff_t read(char* buf, std::size_t n, std::string& error) override {
    if (pos_ < prefix_size_) {
      const std::size_t k = std::min(n, prefix_size_ - pos_);
      std::memcpy(buf, prefix_.get() + pos_, k);
      pos_ += k;
      return static_cast<std::ptrdiff_t>(k);
    }
    if (failed_) {
      error = error_;
      return -1;
    }
    return inner_->read(buf, n, error);
  }

 private:
  std::unique_ptr<ByteSource> inner_;
  static constexpr std::size_t kPeekBytes = 64 * 1024;
  std::unique_ptr<char[]> prefix_;
  std::size_t prefix_size_ = 0;
  std::size_t pos_ = 0;
  bool failed_ = false;
  std::string error_;
};

}  // namespace

std::vector<InputSpec> parse_inputs(std::span<const std::string> args, bool allow_labels,
                                    bool allow_stdin) {
  std::vector<InputSpec> inputs;
  std::map<std::string, int> path_count;
  if (allow_stdin && args.empty()) inputs.push_back(InputSpec{"-", "-", true, false});
  for (const std::string& arg : args) {
    InputSpec in;
    in.path = arg;
    in.label = arg;
    const std::size_t eq = arg.find('=');
    if (allow_labels && eq != std::string::npos) {
      in.label = arg.substr(0, eq);
      in.path = arg.substr(eq + 1);
      in.labeled = true;
    } else {
      ++path_count[in.path];
    }
    in.is_stdin = allow_stdin && in.path == "-";
    inputs.push_back(std::move(in));
  }
  std::map<std::string, int> path_index;
  for (InputSpec& in : inputs) {
    if (in.labeled || path_count[in.path] == 1) continue;
    in.label = in.path + "#" + std::to_string(path_index[in.path]++);
  }
  return inputs;
}

InputFiles::InputFiles(std::vector<InputSpec> inputs) : inputs_(std::move(inputs)) {}

InputFiles::~InputFiles() {
  reader_.reset();
  source_.reset();
  if (file_ != nullptr && owns_file_) std::fclose(file_);
}

bool InputFiles::open_next() {
  const InputSpec& in = inputs_[index_++];
  if (in.is_stdin) {
    file_ = stdin;
    owns_file_ = false;
  } else {
    errno = 0;
    file_ = std::fopen(in.path.c_str(), "rb");
    if (file_ == nullptr) {
      error_ = "open " + in.path + ": " + go_errno_text(errno != 0 ? errno : ENOENT);
      return false;
    }
    owns_file_ = true;
  }
  auto peek = std::make_unique<PeekSource>(std::make_unique<FileSource>(file_, in.path));
  const int first = peek->first_byte();
  const bool json = first == '{' || first == '[';
  source_ = std::move(peek);
  json_ = json;
  ConfigList initial{ConfigEntry{".file", in.label, false}};
  if (json) {
    reader_ = std::make_unique<GbJsonReader>(*source_, in.path, std::move(initial));
  } else {
    reader_ = std::make_unique<GoReader>(*source_, in.path, std::move(initial), &units_);
  }
  return true;
}

bool InputFiles::next() {
  if (!error_.empty()) return false;
  for (;;) {
    if (!reader_) {
      if (index_ >= inputs_.size()) return false;
      if (!open_next()) return false;
    }
    if (reader_->next()) return true;
    if (!reader_->error().empty()) {
      error_ = reader_->error();
      return false;
    }
    reader_.reset();
    source_.reset();
    if (owns_file_ && file_ != nullptr) std::fclose(file_);
    file_ = nullptr;
  }
}

RecordKind InputFiles::kind() const {
  return reader_->kind();
}
const BenchRecord& InputFiles::result() const {
  return reader_->result();
}
BenchRecord& InputFiles::mutable_result() {
  return reader_->mutable_result();
}
const UnitMetadata& InputFiles::unit_metadata() const {
  return reader_->unit_metadata();
}
const SyntaxError& InputFiles::syntax_error() const {
  return reader_->syntax_error();
}
const std::string& InputFiles::error() const {
  return error_;
}

}  // namespace zerolab::stat
