// The seeds by title, author and venue (sources.hpp). Each entry is what
// the seed's own text says; where it says nothing, the entry says so.
#include "lab/framework/sources.hpp"

namespace zerolab::lab {

const std::vector<Source>& sources() {
  static const std::vector<Source> all = {
      {"000_46e1f39ca2df3ed5.txt", "MergeSlice benchmarks", "",
       "a README.md with main_test.go, the runtime patch and pprof graphs attached, answering "
       "the post \"Go is not C, so there is not an extreme fast way to merge slices\""},
      {"001_4eae026f8a0067a6.txt",
       "untitled in the text: the third article of a series on the fundamentals of systems "
       "programming, the first about performance",
       "Efron Amber Licht", "the author's website (its code under gitlab.com/efronlicht/blog)"},
      {"002_2d2092de3303290a.txt",
       "go-arena: Testing and benchmarking the new experimental Go memory arenas",
       "Endre Simo (esimov)",
       "the README of github.com/esimov/go-arena, as an index of awesome lists shows it"},
      {"003_8cb2aa8b072200dd.txt", "perf: improve copyZeroAlloc for os.File and net.TCPConn #1893",
       "ksw2000", "a pull request to github.com/valyala/fasthttp, merged on Nov 8, 2024"},
      {"004_9bd089f53a065852.txt", "Zero value в Go: кто и когда обнуляет вашу память",
       "Александр Бруяко", "an article page with tags (the site is not named in the text)"},
  };
  return all;
}

const Source* source_of(const std::string& file) {
  for (const Source& s : sources()) {
    if (s.file == file) return &s;
  }
  return nullptr;
}

std::string source_name(const std::string& file) {
  const Source* s = source_of(file);
  if (s == nullptr) return file;
  return "“" + s->title + "” by " +
         (s->author.empty() ? "an author the text does not name" : s->author);
}

}  // namespace zerolab::lab
