// A program for the tests of `zerolab waste`'s views (call stacks,
// allocation wrappers, processes, HTML; tests/waste_views_test.cpp). Built
// at -O0 so every call below is a real call. `SITE:<name>` marks the lines
// the report must name.
//
//   waste_views_fixture wrappers   temporaries through allocation wrappers:
//       parse_a: 10 x xmalloc(100), freed at once              SITE:parse_a
//       parse_b:  5 x my_alloc(200) (my_alloc calls xmalloc)    SITE:my_alloc, SITE:parse_b
//       both called from outer(), called from main
//   waste_views_fixture children   3 temporaries of 64 bytes, then a fork
//       whose child execs "leaf 7" (7 temporaries of 64 bytes); waits
//   waste_views_fixture leaf N     N temporaries of 64 bytes
//   waste_views_fixture threads    two named threads, one after the other:
//       "parser" (names itself): 20 temporaries of 64 bytes
//       "zeroer" (named by main): a zeroed fresh 256 KiB and 5 temporaries of 128 bytes
//   waste_views_fixture all        wrappers, a zeroed fresh MiB, children
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const char* self_path;

__attribute__((noinline)) void* xmalloc(size_t n) {
  void* p = malloc(n);
  if (p == NULL) abort();
  return p;
}

__attribute__((noinline)) void* my_alloc(size_t n) {
  return xmalloc(n);  // SITE:my_alloc
}

__attribute__((noinline)) static void parse_a(void) {
  for (int i = 0; i < 10; ++i) {
    free(xmalloc(100));  // SITE:parse_a
  }
}

__attribute__((noinline)) static void parse_b(void) {
  for (int i = 0; i < 5; ++i) {
    free(my_alloc(200));  // SITE:parse_b
  }
}

__attribute__((noinline)) static void outer(void) {
  parse_a();
  parse_b();
}

__attribute__((noinline)) static void temporaries(int n) {
  for (int i = 0; i < n; ++i) {
    free(malloc(64));  // SITE:leaf
  }
}

static int children(void) {
  temporaries(3);
  const pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    execl(self_path, self_path, "leaf", "7", (char*)NULL);
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static void fresh_megabyte(void) {
  char* fresh = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (fresh == MAP_FAILED) abort();
  memset(fresh, 0, 1 << 20);  // SITE:fresh
  munmap(fresh, 1 << 20);
}

static void* parser(void* arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "parser");
  temporaries(20);
  return NULL;
}

static pthread_barrier_t named;

static void* zeroer(void* arg) {
  (void)arg;
  pthread_barrier_wait(&named);  // main has named this thread
  char* fresh = mmap(NULL, 256 << 10, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (fresh == MAP_FAILED) abort();
  memset(fresh, 0, 256 << 10);
  munmap(fresh, 256 << 10);
  for (int i = 0; i < 5; ++i) free(malloc(128));
  return NULL;
}

static int threads(void) {
  pthread_t t;
  if (pthread_create(&t, NULL, parser, NULL) != 0 || pthread_join(t, NULL) != 0) return 1;
  pthread_barrier_init(&named, NULL, 2);
  if (pthread_create(&t, NULL, zeroer, NULL) != 0) return 1;
  pthread_setname_np(t, "zeroer");
  pthread_barrier_wait(&named);
  return pthread_join(t, NULL) != 0;
}

int main(int argc, char** argv) {
  self_path = argv[0];
  const char* mode = argc > 1 ? argv[1] : "all";
  if (strcmp(mode, "wrappers") == 0) {
    outer();
    return 0;
  }
  if (strcmp(mode, "children") == 0) return children();
  if (strcmp(mode, "threads") == 0) return threads();
  if (strcmp(mode, "leaf") == 0 && argc > 2) {
    temporaries(atoi(argv[2]));
    return 0;
  }
  if (strcmp(mode, "all") == 0) {
    outer();
    fresh_megabyte();
    return children();
  }
  return 2;
}
