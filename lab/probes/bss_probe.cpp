// lab/bss_probe/bss_probe.cpp — seed 004's bin_empty, bin_zeroed and
// bin_static ("Глобальные переменные: секция .bss") in C++, built three
// times by lab/CMakeLists.txt for zero-cost's .bss facts:
//   ZEROLAB_BSS_PROBE_EMPTY   no array
//   ZEROLAB_BSS_PROBE_ZEROED  a 64 MiB zero-initialized array (.bss: no file bytes)
//   ZEROLAB_BSS_PROBE_STATIC  a 4 MiB array initialized {1, 2, 3} (.data: 4 MiB of file)
// Each array has external linkage and is read, so it stays in the program.
//
// Example:
//   build/release/lab/probes/bin_static; echo $?   # 1
#if defined(ZEROLAB_BSS_PROBE_ZEROED)
unsigned char zerolab_probe_buf[64 << 20];
#elif defined(ZEROLAB_BSS_PROBE_STATIC)
unsigned char zerolab_probe_buf[4 << 20] = {1, 2, 3};
#endif

int main() {
#if defined(ZEROLAB_BSS_PROBE_ZEROED) || defined(ZEROLAB_BSS_PROBE_STATIC)
  return *static_cast<volatile unsigned char*>(&zerolab_probe_buf[0]);
#else
  return 0;
#endif
}
