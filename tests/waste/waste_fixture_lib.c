// A library that waste_fixture loads with dlopen (its "dlopen" mode), built
// twice from this file (libwaste_fixture_lib_a.so, libwaste_fixture_lib_b.so:
// tests/waste.cmake) with LIB_FUNCTION naming its one function differently,
// so the second, loaded where the first was unloaded, runs at the same
// addresses under another name. Built at -O0 so every malloc is a call.
#include <stdlib.h>

__attribute__((visibility("default"))) void LIB_FUNCTION(int n) {
  for (int i = 0; i < n; ++i) {
    char* t = malloc(48);  // SITE:lib-temp
    t[0] = 1;
    free(t);
  }
}
