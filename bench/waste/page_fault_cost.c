// What a page fault costs on this machine, beside populating the same
// pages in one call: the price behind zerolab waste's fixed part (every
// page its CLI and its preload touch first is a fault). Prints nanoseconds
// per page for: a write to fresh anonymous memory, a read of a file mapping
// (the kernel maps up to 16 neighbouring cached pages per fault, so one
// fault per 16 pages is timed), a write to a private file mapping (copy on
// write), and MADV_POPULATE_WRITE / MADV_POPULATE_READ over the same kinds
// of pages. A benchmark, not a test: run it a few times.
//
// Example:
//   cc -O2 -o /tmp/page_fault_cost bench/waste/page_fault_cost.c
//   /tmp/page_fault_cost /usr/lib/x86_64-linux-gnu/libc.so.6
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "/usr/lib/x86_64-linux-gnu/libc.so.6";
  const long page = sysconf(_SC_PAGESIZE);
  const long anon_pages = 4096;
  volatile char sink = 0;

  char* a = mmap(NULL, (size_t)(anon_pages * page), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  double t0 = now_ns();
  for (long i = 0; i < anon_pages; ++i) a[i * page] = 1;
  printf("anonymous write fault:          %8.0f ns/page\n", (now_ns() - t0) / (double)anon_pages);
  char* b = mmap(NULL, (size_t)(anon_pages * page), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  t0 = now_ns();
  madvise(b, (size_t)(anon_pages * page), MADV_POPULATE_WRITE);
  printf("anonymous MADV_POPULATE_WRITE:  %8.0f ns/page\n", (now_ns() - t0) / (double)anon_pages);

  const int fd = open(path, O_RDONLY);
  if (fd < 0) {
    perror(path);
    return 1;
  }
  const off_t bytes = lseek(fd, 0, SEEK_END);
  const long pages = (long)(bytes / page);
  for (long i = 0; i < pages; ++i) {  // into the page cache first
    char c;
    if (pread(fd, &c, 1, (off_t)(i * page)) < 0) break;
  }
  char* f = mmap(NULL, (size_t)bytes, PROT_READ, MAP_PRIVATE, fd, 0);
  t0 = now_ns();
  for (long i = 0; i < pages; i += 16) sink = (char)(sink + f[i * page]);
  printf("file read fault (16 pages each): %7.0f ns/fault\n",
         (now_ns() - t0) / (double)((pages + 15) / 16));
  char* g = mmap(NULL, (size_t)bytes, PROT_READ, MAP_PRIVATE, fd, 0);
  t0 = now_ns();
  madvise(g, (size_t)bytes, MADV_POPULATE_READ);
  printf("file MADV_POPULATE_READ:        %8.0f ns/page\n", (now_ns() - t0) / (double)pages);
  char* w = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  t0 = now_ns();
  for (long i = 0; i < pages; ++i) w[i * page] = 1;
  printf("file copy-on-write fault:       %8.0f ns/page\n", (now_ns() - t0) / (double)pages);
  return sink == 42;
}
