// The one bounded whole-file reader: what zerolab reads whole (a baseline's
// manifest and results) must be a regular file and is read with a size cap,
// so a FIFO (which would block forever), a device (/dev/zero) or a huge file
// is a clear error naming the file instead of a hang or an allocation failure.
//
// Thread-safety: safe from any thread.
//
// Example:
//   std::string text, error;
//   if (!zerolab::internal::read_whole_file("b/manifest", 1 << 20, text, error)) fail(error);
//   // error: "cannot read b/manifest: larger than 1048576 bytes"
#ifndef ZEROLAB_SRC_FORMAT_WHOLE_FILE_HPP_
#define ZEROLAB_SRC_FORMAT_WHOLE_FILE_HPP_

#include <cstddef>
#include <string>

namespace zerolab::internal {

// Reads path into text, at most max_bytes. False with `error` ("cannot
// read <path>: <cause>") and *error_number (errno, EFBIG past the cap,
// EINVAL for a path that is not a regular file).
bool read_whole_file(const std::string& path, std::size_t max_bytes, std::string& text,
                     std::string& error, int* error_number = nullptr);

}  // namespace zerolab::internal

#endif  // ZEROLAB_SRC_FORMAT_WHOLE_FILE_HPP_
