// The C++ side of `zerolab waste`'s fixtures (tests/waste_test.cpp): waste
// the way C++ code writes it. Built at -O0; `SITE:<name>` marks the lines
// the report must name.
//
//   waste_fixture_cpp vector   std::vector<char>(1 MiB): value-initialised on
//                              glibc's fresh mmap'ed block (zeroed fresh pages)
//   waste_fixture_cpp strings  500 std::string(60, 'x') built and dropped (temporaries)
//   waste_fixture_cpp fill     std::fill_n of 0 over 1000 bytes already zeroed (zeroed zeros)
#include <algorithm>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "vector") {
    std::vector<char> v(1 << 20);  // SITE:vector
    return v[12345];
  }
  if (mode == "strings") {
    std::size_t total = 0;
    for (int i = 0; i < 500; ++i) {
      const std::string s(60, 'x');  // SITE:strings
      total += s.size();
    }
    return total == 30000 ? 0 : 1;
  }
  if (mode == "fill") {
    char* a = new char[1000];
    std::fill_n(a, 1000, 'x');
    std::fill_n(a, 1000, '\0');
    std::fill_n(a, 1000, '\0');  // SITE:fill
    const int result = a[999];
    delete[] a;
    return result;
  }
  return 2;
}
