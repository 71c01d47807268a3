// The hand-over to zerolab-dynamic (dynamic_twin.hpp).
#include "dynamic_twin.hpp"

#include "files/executable_directory.hpp"

#include <sys/auxv.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#ifndef ZEROLAB_DYNAMIC_TWIN_FROM_BINDIR
#define ZEROLAB_DYNAMIC_TWIN_FROM_BINDIR "../libexec/zerolab"
#endif

namespace zerolab::cli {
namespace {

// No program interpreter: the kernel started this program itself.
bool statically_linked() {
  return getauxval(AT_BASE) == 0;
}

bool names_a_postgres_store(int argc, char** argv) {
  if (argc < 2 || std::string_view(argv[1]) == "waste") return false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.find("postgres://") != std::string_view::npos ||
        arg.find("postgresql://") != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

void hand_postgres_commands_to_dynamic_twin(int argc, char** argv) {
  if (!statically_linked() || !names_a_postgres_store(argc, argv)) return;
  const std::string found = internal::executable_directory();
  const std::string dir = found.empty() ? std::string(".") : found;
  const std::string beside = dir + "/zerolab-dynamic";
  const std::string installed = dir + "/" ZEROLAB_DYNAMIC_TWIN_FROM_BINDIR "/zerolab-dynamic";
  int first_error = 0;
  for (const std::string& twin : {beside, installed}) {
    execv(twin.c_str(), argv);
    if (first_error == 0 || errno != ENOENT) first_error = errno;
  }
  std::fprintf(stderr,
               "zerolab: a PostgreSQL store needs zerolab-dynamic (this zerolab is statically "
               "linked and cannot load libpq): cannot run %s or %s: %s\n",
               beside.c_str(), installed.c_str(), std::strerror(first_error));
  std::exit(1);
}

}  // namespace zerolab::cli
