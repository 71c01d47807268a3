// See store_cli.hpp.
#include "store_cli.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "bench/atomic_file.hpp"

namespace zerolab::cli {

bool parse_store_flags(std::span<char* const> args, const StoreFlagSpec& spec, ParsedFlags& out,
                       std::string& error) {
  bool flags_done = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (flags_done || a.size() < 2 || a[0] != '-') {
      out.operands.emplace_back(a);
      continue;
    }
    if (a == "--") {
      flags_done = true;
      continue;
    }
    std::string_view name = a.substr(a[1] == '-' ? 2 : 1);
    std::string_view value;
    bool has_value = false;
    if (const std::size_t eq = name.find('='); eq != std::string_view::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    const StoreFlag* flag = nullptr;
    for (const StoreFlag& f : spec) {
      if (f.name == name) flag = &f;
    }
    if (flag == nullptr) {
      error = "unknown flag " + std::string(a.substr(0, a.find('=')));
      return false;
    }
    if (flag->takes_value && !has_value) {
      if (i + 1 >= args.size()) {
        error = "flag --" + flag->name + " needs a value";
        return false;
      }
      value = args[++i];
    }
    auto& slot = out.values[flag->name];
    if (!slot.empty() && !flag->repeatable) {
      error = "flag --" + flag->name + " given twice";
      return false;
    }
    slot.emplace_back(value);
  }
  return true;
}

bool write_output(const std::string& text, const std::string& path, std::string& error) {
  if (!path.empty()) return internal::write_file_atomically(path, text, error);
  errno = 0;
  const bool ok = std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0;
  if (!ok) error = std::string("write stdout: ") + (errno != 0 ? std::strerror(errno) : "short write");
  return ok;
}

int fail(const char* command, const std::string& message, int code) {
  std::fprintf(stderr, "zerolab %s: %s\n", command, message.c_str());
  return code;
}

}  // namespace zerolab::cli
