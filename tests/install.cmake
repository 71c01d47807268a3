# Installs the build tree into a temporary prefix and builds an outside
# project against it (find_package and pkg-config).
add_test(NAME install_consumer
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install_consumer/check.sh
          ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/install_consumer
          ${CMAKE_CXX_COMPILER} "${CMAKE_CXX_FLAGS}")
set_tests_properties(install_consumer PROPERTIES LABELS install)
