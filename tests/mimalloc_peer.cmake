# mimalloc as the lab's optional peer (lab/experiments/mimalloc_peer.hpp): loading it
# must not take malloc/new over from glibc, nor stop the allocation hooks
# counting. Only when cmake/MimallocPeer.cmake found mimalloc.
if(ZEROLAB_MIMALLOC_FOUND)
  zerolab_add_test(mimalloc_peer_test
    SOURCES mimalloc_peer_test.cpp
    LIBS zerolab_bench zerolab_alloc_hooks zerolab_mimalloc_peer
    LABELS lab mem)
  target_include_directories(mimalloc_peer_test PRIVATE ${PROJECT_SOURCE_DIR})
endif()
