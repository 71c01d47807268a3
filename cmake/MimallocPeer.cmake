# mimalloc as an optional peer of zerolab::Arena: the `arena` lab
# experiment and bench/rigs/mem_bench get mimalloc rows when Debian's
# libmimalloc-dev (or any mimalloc with a CMake package or mimalloc.h +
# libmimalloc.so) is installed; without it they build and run without them.
#
# The peer is NOT linked. Debian's libmimalloc.so is built with MI_OVERRIDE:
# it exports malloc, free, operator new/delete and even __libc_malloc and
# friends, so a DT_NEEDED on it would swap glibc's allocator out of the whole
# process — the malloc/new rows would measure mimalloc, and zerolab's
# allocation hooks (src/alloc_hooks), which forward to __libc_malloc, would
# forward to mimalloc while asking glibc for malloc_usable_size. Instead
# lab/experiments/mimalloc_peer.hpp dlopen()s the library with RTLD_LOCAL at first use:
# its symbols stay out of the global scope, nothing is interposed, and only
# the mi_* functions reached through dlsym run on mimalloc
# (tests/mimalloc_peer_test.cpp checks this).
#
# Defines the INTERFACE target zerolab_mimalloc_peer, always: with
# ZEROLAB_HAVE_MIMALLOC=1, ZEROLAB_MIMALLOC_LIBRARY="<path of the .so>" and
# mimalloc.h's directory when found; empty otherwise. The core libraries
# (zerolab_mem, ...) never link it. -DZEROLAB_WITH_MIMALLOC=OFF turns it off.
option(ZEROLAB_WITH_MIMALLOC "Use mimalloc, when installed, as a peer in the lab and examples" ON)
add_library(zerolab_mimalloc_peer INTERFACE)
set(ZEROLAB_MIMALLOC_FOUND OFF)
if(ZEROLAB_WITH_MIMALLOC)
  find_package(mimalloc CONFIG QUIET)
  if(TARGET mimalloc)
    get_target_property(zerolab_mi_include mimalloc INTERFACE_INCLUDE_DIRECTORIES)
    # The loaded name: the soname file (libmimalloc.so.2), which the runtime
    # package provides without the -dev package.
    set(zerolab_mi_library "$<TARGET_SONAME_FILE:mimalloc>")
    set(zerolab_mi_where "CMake package ${mimalloc_DIR}")
  else()
    find_path(zerolab_mi_include_dir mimalloc.h)
    find_library(zerolab_mi_lib NAMES mimalloc)
    if(zerolab_mi_include_dir AND zerolab_mi_lib)
      set(zerolab_mi_include "${zerolab_mi_include_dir}")
      get_filename_component(zerolab_mi_library "${zerolab_mi_lib}" REALPATH)
      set(zerolab_mi_where "${zerolab_mi_library}")
    endif()
  endif()
  if(zerolab_mi_include AND zerolab_mi_library)
    set(ZEROLAB_MIMALLOC_FOUND ON)
    target_include_directories(zerolab_mimalloc_peer SYSTEM INTERFACE ${zerolab_mi_include})
    target_compile_definitions(zerolab_mimalloc_peer INTERFACE
      ZEROLAB_HAVE_MIMALLOC=1 "ZEROLAB_MIMALLOC_LIBRARY=\"${zerolab_mi_library}\"")
    target_link_libraries(zerolab_mimalloc_peer INTERFACE ${CMAKE_DL_LIBS})
  endif()
endif()
if(ZEROLAB_MIMALLOC_FOUND)
  message(STATUS "mimalloc peer: ${zerolab_mi_where} (dlopen'ed by the lab and mem_bench, not linked)")
elseif(NOT ZEROLAB_WITH_MIMALLOC)
  message(STATUS "mimalloc peer: off (ZEROLAB_WITH_MIMALLOC=OFF)")
else()
  message(STATUS "mimalloc peer: not found (the lab and mem_bench run without mimalloc rows)")
endif()
