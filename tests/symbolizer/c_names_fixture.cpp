// The symbolizer tests' program without DWARF (tests/symbolizer_test.cpp):
// functions whose C names are also type codes of the C++ mangling ("f" is
// float, "i" is int), and one C++ function, named from the symbol table.
#include <cstdio>

extern "C" __attribute__((noinline, used)) int f(int x) {
  return x * 3 + 1;
}

extern "C" __attribute__((noinline, used)) int i(int x) {
  return x * 5 + 2;
}

__attribute__((noinline, used)) int twice_m(int x) {
  return x * 2 + f(x) + i(x);
}

int main(int argc, char**) {
  std::printf("%d\n", twice_m(argc));
  return 0;
}
