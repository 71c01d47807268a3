// `zerolab waste`: finding and vetting the program before anything runs —
// PATH lookup as execvp does it, and a refusal (with the reason) for what
// the preload library cannot be loaded into: a missing or non-executable
// file, a statically linked program (no dynamic loader, so no LD_PRELOAD),
// a program built with ASan or TSan (their runtime must come first), or a
// file that is neither ELF nor a #! script. A #! script is vetted through
// its interpreter (`#!/usr/bin/env NAME` through NAME on PATH).
//
// Example:
//   std::string path, error;
//   if (!find_program("python3", path, error) || !check_program(path, error)) {
//     print "zerolab waste: " + error; exit 2;
//   }
#ifndef ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_PROGRAM_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_PROGRAM_HPP_

#include <string>

namespace zerolab::waste {

// `name` with a '/' is taken as is; otherwise the first executable match on
// $PATH. False with a one-line `error` if there is none.
bool find_program(const std::string& name, std::string& path, std::string& error);

// False with a one-line `error` if the preload cannot reach `path`.
bool check_program(const std::string& path, std::string& error);

// The preload library: $ZEROLAB_WASTE_PRELOAD, else libzerolab_waste.so
// beside this executable, else in the install's library directory. An
// absolute, canonical path; false with `error` if none exists.
bool find_preload(std::string& path, std::string& error);

}  // namespace zerolab::waste

#endif  // ZEROLAB_TOOLS_ZEROLAB_CMD_WASTE_PROGRAM_HPP_
