# zerolab waste: the fixture programs (never sanitized, in any preset: the
# preload library goes into them, and an ASan program refuses a preload
# that comes before its runtime) and the end-to-end tests of the CLI.
enable_language(C)
foreach(fixture waste_fixture waste_fixture_static)
  add_executable(${fixture} waste/waste_fixture.c)
  target_compile_options(${fixture} PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
  target_link_options(${fixture} PRIVATE -fno-sanitize=all)
  target_link_libraries(${fixture} PRIVATE Threads::Threads)
endforeach()
target_link_options(waste_fixture_static PRIVATE -static)
add_executable(waste_fixture_cpp waste/waste_fixture_cpp.cpp)
target_compile_options(waste_fixture_cpp PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(waste_fixture_cpp PRIVATE -fno-sanitize=all)

find_package(nlohmann_json 3 REQUIRED)
zerolab_add_test(waste_test SOURCES waste_test.cpp LIBS nlohmann_json::nlohmann_json LABELS waste)
add_dependencies(waste_test zerolab zerolab_waste waste_fixture waste_fixture_static waste_fixture_cpp)
target_compile_definitions(waste_test PRIVATE
  ZEROLAB_CLI="$<TARGET_FILE:zerolab>"
  WASTE_FIXTURE="$<TARGET_FILE:waste_fixture>"
  WASTE_FIXTURE_STATIC="$<TARGET_FILE:waste_fixture_static>"
  WASTE_FIXTURE_CPP="$<TARGET_FILE:waste_fixture_cpp>"
  WASTE_FIXTURE_SOURCE="${CMAKE_CURRENT_SOURCE_DIR}/waste/waste_fixture.c"
  WASTE_FIXTURE_CPP_SOURCE="${CMAKE_CURRENT_SOURCE_DIR}/waste/waste_fixture_cpp.cpp")
