# The Go peers' own correctness tests: `go test -run . -count=1` in every
# peers/go/<experiment> directory that has a go.mod (picked up by the glob;
# a new peer needs no line here). Each peer is the seed's own Go code that
# `zerolab lab` runs beside the C++ port (lab/framework/go_peer.hpp); its tests check
# what its functions produce (and, where the seed shows it, the binary's
# instructions). Where no Go toolchain is installed (Debian's golang-go,
# scripts/install-deps.sh) each test is still listed and reports itself
# skipped with the reason.
find_program(ZEROLAB_GO_EXECUTABLE go)
file(GLOB zerolab_go_peer_mods CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/peers/go/*/go.mod)
foreach(mod ${zerolab_go_peer_mods})
  get_filename_component(peer_dir ${mod} DIRECTORY)
  get_filename_component(peer ${peer_dir} NAME)
  if(ZEROLAB_GO_EXECUTABLE)
    add_test(NAME go_${peer}_peer
      COMMAND ${CMAKE_COMMAND} -E env
        GOCACHE=${CMAKE_CURRENT_BINARY_DIR}/go-cache GOPATH=${CMAKE_CURRENT_BINARY_DIR}/go-path
        GOFLAGS= GOTOOLCHAIN=local GOPROXY=off
        ${ZEROLAB_GO_EXECUTABLE} test -run . -count=1 .
      WORKING_DIRECTORY ${peer_dir})
  else()
    add_test(NAME go_${peer}_peer
      COMMAND sh -c "echo 'skipped: no go on PATH (install golang-go: scripts/install-deps.sh)'; exit 77")
    set_tests_properties(go_${peer}_peer PROPERTIES SKIP_RETURN_CODE 77)
  endif()
  set_tests_properties(go_${peer}_peer PROPERTIES LABELS peers TIMEOUT 300)
endforeach()
