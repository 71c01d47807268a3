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

# Seeds 000 and 004's Go peers (peers/go/<experiment>): the seed's own code,
# run here with Go 1.19; each package's tests check its results (and, for
# stack-zero and copy-vs-append, the instructions and runtime calls the seed
# shows with objdump; for zero-cost, the .bss contrast).
if(ZEROLAB_GO_EXECUTABLE)
  foreach(peer merge zero-cost memclr-threshold chunked-zero make-reuse-clear stack-zero
               copy-vs-append needzero)
    add_test(NAME go_${peer}_peer
      COMMAND ${CMAKE_COMMAND} -E env
        GOCACHE=${CMAKE_CURRENT_BINARY_DIR}/go-cache GOPATH=${CMAKE_CURRENT_BINARY_DIR}/go-path
        GOFLAGS= GOTOOLCHAIN=local GOPROXY=off
        ${ZEROLAB_GO_EXECUTABLE} test -count=1 .
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/peers/go/${peer})
    set_tests_properties(go_${peer}_peer PROPERTIES LABELS peers TIMEOUT 300)
  endforeach()
endif()

# Seeds 001, 003 and 004's Go peers for append-int (seed 001's appendix),
# reset-cost (seed 004's resetStruct/clearPtrs/clearBytes), copy (fasthttp
# PR #1893's copyZeroAlloc, old and new) and udp-buffers (seed 001's SNMP
# buffers): each package's tests check what its functions produce.
if(ZEROLAB_GO_EXECUTABLE)
  foreach(peer append-int reset-cost copy udp-buffers)
    add_test(NAME go_${peer}_peer
      COMMAND ${CMAKE_COMMAND} -E env
        GOCACHE=${CMAKE_CURRENT_BINARY_DIR}/go-cache GOPATH=${CMAKE_CURRENT_BINARY_DIR}/go-path
        GOFLAGS= GOTOOLCHAIN=local GOPROXY=off
        ${ZEROLAB_GO_EXECUTABLE} test -count=1 .
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/peers/go/${peer})
    set_tests_properties(go_${peer}_peer PROPERTIES LABELS peers TIMEOUT 300)
  endforeach()
endif()
