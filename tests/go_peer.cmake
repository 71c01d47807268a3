# The Go OID peer (peers/go/oid, scripts/oid-go-peer.sh) builds and its own
# tests pass: every Go variant round-trips, and Go draws the same 1000 OIDs
# as lab/experiments/oid.cpp. Only where a Go toolchain is installed (the
# peer is optional; Debian's golang-go).
find_program(ZEROLAB_GO_EXECUTABLE go)
if(ZEROLAB_GO_EXECUTABLE)
  add_test(NAME go_oid_peer
    COMMAND ${CMAKE_COMMAND} -E env
      GOCACHE=${CMAKE_CURRENT_BINARY_DIR}/go-cache GOPATH=${CMAKE_CURRENT_BINARY_DIR}/go-path
      GOFLAGS= GOTOOLCHAIN=local
      ${ZEROLAB_GO_EXECUTABLE} test -count=1 .
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/peers/go/oid)
  set_tests_properties(go_oid_peer PROPERTIES LABELS peers TIMEOUT 300)
endif()
