// lab/sources.hpp — the write-ups the lab replicates, by title, author and
// where they were published, as their texts give them. The seed's file
// name under ../shared/seeds/ is only the key: the lab's output names a
// source by its title and author.
//
// Thread-safety: immutable data.
//
// Example:
//   const Source* s = source_of("003_8cb2aa8b072200dd.txt");
//   // s->title == "perf: improve copyZeroAlloc for os.File and net.TCPConn #1893"
//   source_name("003_8cb2aa8b072200dd.txt");
//   // "“perf: improve copyZeroAlloc for os.File and net.TCPConn #1893” by ksw2000"
#ifndef ZEROLAB_LAB_SOURCES_HPP_
#define ZEROLAB_LAB_SOURCES_HPP_

#include <string>
#include <vector>

namespace zerolab::lab {

struct Source {
  std::string file;    // the key: "000_46e1f39ca2df3ed5.txt"
  std::string title;   // as the text gives it (or what it is, when it has none)
  std::string author;  // as the text names them; "" when it does not
  std::string where;   // where it was published, as far as the text says
};

// Every seed, in file order.
const std::vector<Source>& sources();

// The source with this key, or nullptr.
const Source* source_of(const std::string& file);

// "“title” by author" for a known key; the key itself otherwise.
std::string source_name(const std::string& file);

}  // namespace zerolab::lab

#endif  // ZEROLAB_LAB_SOURCES_HPP_
