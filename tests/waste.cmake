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
target_compile_definitions(waste_fixture_static PRIVATE WASTE_FIXTURE_STATIC_BUILD)
target_link_libraries(waste_fixture PRIVATE ${CMAKE_DL_LIBS})
# The two libraries of `waste_fixture dlopen`: one source, two names.
foreach(lib a b)
  add_library(waste_fixture_lib_${lib} SHARED waste/waste_fixture_lib.c)
  target_compile_definitions(waste_fixture_lib_${lib} PRIVATE LIB_FUNCTION=waste_lib_${lib})
  target_compile_options(waste_fixture_lib_${lib} PRIVATE -O0 -g -fno-sanitize=all)
  target_link_options(waste_fixture_lib_${lib} PRIVATE -fno-sanitize=all)
endforeach()
add_executable(waste_fixture_cpp waste/waste_fixture_cpp.cpp)
target_compile_options(waste_fixture_cpp PRIVATE -O0 -g -fno-omit-frame-pointer -fno-sanitize=all)
target_link_options(waste_fixture_cpp PRIVATE -fno-sanitize=all)
# zerolab::PageHeap under the preload: linked with zerolab_mem, so only
# where that library is not sanitized (the test skips itself elsewhere).
if(NOT CMAKE_CXX_FLAGS MATCHES "sanitize")
  add_executable(waste_page_heap_fixture waste/waste_page_heap_fixture.cpp)
  target_compile_options(waste_page_heap_fixture PRIVATE -O0 -g -fno-omit-frame-pointer)
  target_link_libraries(waste_page_heap_fixture PRIVATE zerolab_mem)
  set(waste_page_heap_fixture "$<TARGET_FILE:waste_page_heap_fixture>")
else()
  set(waste_page_heap_fixture "")
endif()

find_package(nlohmann_json 3 REQUIRED)
zerolab_add_test(waste_test SOURCES waste_test.cpp LIBS nlohmann_json::nlohmann_json LABELS waste)
add_dependencies(waste_test zerolab zerolab_waste waste_fixture waste_fixture_static waste_fixture_cpp
  waste_fixture_lib_a waste_fixture_lib_b)
if(TARGET waste_page_heap_fixture)
  add_dependencies(waste_test waste_page_heap_fixture)
endif()
target_compile_definitions(waste_test PRIVATE
  ZEROLAB_CLI="$<TARGET_FILE:zerolab>"
  WASTE_FIXTURE="$<TARGET_FILE:waste_fixture>"
  WASTE_FIXTURE_STATIC="$<TARGET_FILE:waste_fixture_static>"
  WASTE_FIXTURE_LIB_A="$<TARGET_FILE:waste_fixture_lib_a>"
  WASTE_FIXTURE_LIB_B="$<TARGET_FILE:waste_fixture_lib_b>"
  WASTE_FIXTURE_LIB_SOURCE="${CMAKE_CURRENT_SOURCE_DIR}/waste/waste_fixture_lib.c"
  WASTE_FIXTURE_CPP="$<TARGET_FILE:waste_fixture_cpp>"
  WASTE_PAGE_HEAP_FIXTURE="${waste_page_heap_fixture}"
  WASTE_PAGE_HEAP_FIXTURE_SOURCE="${CMAKE_CURRENT_SOURCE_DIR}/waste/waste_page_heap_fixture.cpp"
  WASTE_FIXTURE_SOURCE="${CMAKE_CURRENT_SOURCE_DIR}/waste/waste_fixture.c"
  WASTE_FIXTURE_CPP_SOURCE="${CMAKE_CURRENT_SOURCE_DIR}/waste/waste_fixture_cpp.cpp")

# The preload's own math (no libm in the preload) against libm.
zerolab_add_test(waste_math_test SOURCES waste_math_test.cpp LABELS waste)
