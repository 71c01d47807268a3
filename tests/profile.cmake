# -cpuprofile and -memprofile (src/profile/): profile_test runs
# profile_fixture as a subprocess and reads its profiles with `go tool
# pprof` (golang-go), the legacy ones with google-pprof (Debian's
# google-perftools; the tests that need either skip without it), and
# unit-tests the flags. Included by tests/CMakeLists.txt.
#
# Example: cmake --build build --target profile_test && build/tests/profile_test
add_executable(profile_fixture profile_fixture.cpp)
target_link_libraries(profile_fixture PRIVATE zerolab::bench_main zerolab_warnings)

zerolab_add_test(profile_test SOURCES profile_test.cpp LIBS zerolab_bench)
target_compile_definitions(profile_test PRIVATE
  ZEROLAB_PROFILE_FIXTURE="$<TARGET_FILE:profile_fixture>"
  ZEROLAB_PROFILE_FIXTURE_SOURCE="${CMAKE_CURRENT_SOURCE_DIR}/profile_fixture.cpp")
add_dependencies(profile_test profile_fixture)
