// A program with known waste of every kind, for `zerolab waste` tests
// (tests/waste_test.cpp). Built at -O0 so every memset and malloc below is a
// real call. `SITE:<name>` comments mark the lines the report must name.
//
//   waste_fixture all        each kind once (counts below, checked exactly)
//   waste_fixture threads    4 threads x 1000 temporary 60-byte blocks
//   waste_fixture fork       10 temporaries, fork; the child makes 20 and execs "all"
//   waste_fixture vfork      vfork + exec of "all"
//   waste_fixture exit       "all", then _exit(7)
//   waste_fixture kill       "all", then SIGKILL to itself
//   waste_fixture closefds   closes fds 1 and 2, then "all"
//   waste_fixture clean      allocates and fills, wastes nothing
//   waste_fixture stdout     writes one line to stdout, then "all"
//   waste_fixture frames     temporaries of one definition or both (see frames())
//   waste_fixture longlived  no waste: a chained hash table that lives through the
//                            whole computation (1000 nodes, freed at the end) and
//                            one work buffer, allocated once, used, freed: no
//                            temporary of either definition
//   waste_fixture filter DIR writes DIR/in (1 MiB), then reads it 64 KiB at a
//                            time and writes each chunk to DIR/out with one
//                            byte changed: no copy (copy_fd would corrupt it)
//   waste_fixture cat DIR    the same without the change: 16 copies of 64 KiB,
//                            file -> file                         SITE:cat
//   waste_fixture stdiocat DIR  the "cat" copy through stdio: fread and fwrite
//                            of 64 KiB, 16 times                SITE:stdiocat
//   waste_fixture calloczero calloc(1000) then memset of it (safe to drop:
//                            SITE:after_calloc); a malloc'd block zeroed, freed, and
//                            a new block, zero by coincidence, zeroed (keep it:
//                            SITE:coincidence)
//   waste_fixture dropenv    forks; the child execs "clean" with an environment
//                            of its own (no LD_PRELOAD): a child without the preload
//   waste_fixture callocholes zero fills that look safe and are not: a calloc
//                            block freed and its address handed out again by
//                            malloc, zeroed (SITE:calloc_reused); a calloc block
//                            written, then zeroed (SITE:calloc_written); and one
//                            memset call that zeroes calloc blocks twice and a
//                            dirty malloc block once (SITE:mixed_clear): each
//                            is "keep the memset"
//   waste_fixture manylive   100000 blocks live throughout, and 1000 temporary
//                            60-byte blocks freed in their frame      SITE:manylive
//   waste_fixture touch PATH creates PATH (tests check the program was not started)
//   waste_fixture remap PATH a zeroed fresh anonymous mapping, then a private
//                            mapping of file PATH at its address, zeroed too
//                            (not fresh pages: the file's)       SITE:remap_fresh
//   waste_fixture wide       memset with 0x100 over a fresh mapping: a zero
//                            fill (memset stores its value as an unsigned char)  SITE:wide
//   waste_fixture failedrealloc  a 256 KiB block (100 bytes used) whose realloc
//                            fails (ENOMEM), then freed: oversized  SITE:failed_realloc
//   waste_fixture dlopen A B 10 temporaries; then library A (dlopen) makes 100
//                            in waste_lib_a, then library B 50 in waste_lib_b:
//                            each site is named by its own library (both stay
//                            loaded: see call_in_library)
//   waste_fixture errno      fills and frees after closing every descriptor
//                            above 2 (the preload's pagemap one among them);
//                            exit 3 if errno changed across a call that succeeded
//
// "all" (at --sample-rate 1 --check-rate 1):
//   zeroed-fresh-pages     1 call, 1048576 bytes, 256 pages     SITE:fresh
//   zeroed-zeros           1 call, 1000 bytes                   SITE:zeros
//   temporary-allocations  1000 calls x 60 bytes                SITE:temp
//                          (not the 262144-byte block below: alone in its size class)
//   temporary-allocations-in-frame: the same 1000 (not the 1000-byte block
//                          SITE:zeros_block: it lives through 2000 allocations and frees)
//   oversized-buffers      1 call, 262144 bytes requested, 4080 touched  SITE:oversized
//   user-space-copies      1 call, 4096 bytes, file -> pipe     SITE:copy
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const char* self_path;

static void waste_all(void) {
  // Zeroed fresh pages: a fresh anonymous mapping, zeroed by hand.
  char* fresh = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  memset(fresh, 0, 1 << 20);  // SITE:fresh
  munmap(fresh, 1 << 20);

  // Zeroed zeros: a block filled, zeroed (not waste), zeroed again (waste).
  char* block = malloc(1000);  // SITE:zeros_block
  memset(block, 0xab, 1000);
  memset(block, 0, 1000);
  memset(block, 0, 1000);  // SITE:zeros

  // Temporary allocations.
  for (int i = 0; i < 1000; ++i) {
    char* t = malloc(60);  // SITE:temp
    t[0] = 1;
    free(t);
  }

  // Oversized buffer: 256 KiB (glibc maps it), 100 bytes used.
  char* big = malloc(256 * 1024);  // SITE:oversized
  memset(big, 'x', 100);
  free(big);

  // A copy through user space: the program's own file into a pipe.
  int in = open(self_path, O_RDONLY | O_CLOEXEC);
  int fds[2];
  if (in < 0 || pipe(fds) != 0) _exit(90);
  char buf[4096];
  if (read(in, buf, sizeof buf) != (ssize_t)sizeof buf) _exit(91);
  if (write(fds[1], buf, sizeof buf) != (ssize_t)sizeof buf) _exit(92);  // SITE:copy
  close(in);
  close(fds[0]);
  close(fds[1]);
  free(block);
}

static void* thread_main(void* arg) {
  (void)arg;
  for (int i = 0; i < 1000; ++i) {
    char* t = malloc(60);  // SITE:thread-temp
    t[0] = 1;
    free(t);
  }
  return NULL;
}

// Loads `path` and calls its function `name` with n; exit 3 if either
// cannot be found. The library stays loaded: a record keeps one snapshot of
// the mappings, the latest, so a library unloaded and another loaded at its
// addresses would name the first one's sites by the second.
#ifndef WASTE_FIXTURE_STATIC_BUILD
static void call_in_library(const char* path, const char* name, int n) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "waste_fixture: %s\n", dlerror());
    exit(3);
  }
  void (*fn)(int) = NULL;
  *(void**)&fn = dlsym(lib, name);
  if (fn == NULL) {
    fprintf(stderr, "waste_fixture: no %s in %s\n", name, path);
    exit(3);
  }
  fn(n);
}
#endif

static void some_temporaries(int n) {
  for (int i = 0; i < n; ++i) {
    char* t = malloc(32);  // SITE:fork-temp
    t[0] = 1;
    free(t);
  }
}

static int wait_child(pid_t pid) {
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return 93;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 94;
}

// The two definitions of a temporary apart: p is freed after q was
// allocated (in the frame, not heaptrack's), q is both, make_block's block
// outlives make_block (heaptrack's only).
static __attribute__((noinline)) char* make_block(void) {
  return malloc(70);  // SITE:made
}

static void frames(void) {
  for (int i = 0; i < 100; ++i) {
    char* p = malloc(40);  // SITE:frame_p
    char* q = malloc(50);  // SITE:frame_q
    p[0] = q[0] = 1;
    free(p);
    free(q);
  }
  for (int i = 0; i < 10; ++i) {
    char* m = make_block();
    m[0] = 1;
    free(m);
  }
}

struct node {
  struct node* next;
  unsigned key;
  unsigned value;
};

static int long_lived(void) {
  enum { kBuckets = 512, kKeys = 1000 };
  struct node** table = calloc(kBuckets, sizeof *table);
  if (table == NULL) return 1;
  for (unsigned k = 0; k < kKeys; ++k) {
    struct node* n = malloc(sizeof *n);
    if (n == NULL) return 1;
    n->key = k;
    n->value = k * 2654435761u;
    n->next = table[k % kBuckets];
    table[k % kBuckets] = n;
  }
  unsigned sum = 0;
  for (int round = 0; round < 100; ++round) {
    for (unsigned k = 0; k < kKeys; ++k) {
      for (struct node* n = table[(k * 7) % kBuckets]; n != NULL; n = n->next) sum += n->value;
    }
  }
  for (unsigned b = 0; b < kBuckets; ++b) {
    for (struct node* n = table[b]; n != NULL;) {
      struct node* next = n->next;
      free(n);
      n = next;
    }
  }
  free(table);
  unsigned char* work = malloc(100000);
  if (work == NULL) return 1;
  for (int i = 0; i < 100000; ++i) work[i] = (unsigned char)(sum + (unsigned)i);
  for (int i = 0; i < 100000; ++i) sum += work[i];
  free(work);
  return sum == 1 ? 2 : 0;
}

static int remap(const char* path) {
  char* anon = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (anon == MAP_FAILED) return 1;
  memset(anon, 0, 1 << 20);  // SITE:remap_fresh
  munmap(anon, 1 << 20);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ftruncate(fd, 1 << 20) != 0) return 1;
  char* file = mmap(anon, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0);
  if (file != anon) return 1;
  memset(file, 0, 1 << 20);
  munmap(file, 1 << 20);
  close(fd);
  return 0;
}

static int wide_zero(void) {
  volatile int value = 0x100;
  char* p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  memset(p, value, 1 << 20);  // SITE:wide
  munmap(p, 1 << 20);
  return 0;
}

static int errno_kept(void) {
  for (int fd = 3; fd < 1024; ++fd) close(fd);
  char* p = malloc(1 << 20);
  if (p == NULL) return 1;
  memset(p, 1, 1 << 20);
  errno = ERANGE;
  memset(p, 0, 1 << 20);  // pagemap: read again after EBADF
  if (errno != ERANGE) return 3;
  free(p);  // a large block: judged with pagemap at free
  if (errno != ERANGE) return 3;
  return 0;
}

// A 256 KiB block whose realloc to an impossible size fails: the block
// stays the program's, 100 bytes used, and is judged at its free.
static int failed_realloc(void) {
  char* big = malloc(256 * 1024);  // SITE:failed_realloc
  if (big == NULL) return 1;
  memset(big, 'x', 100);
  volatile size_t impossible = (size_t)-1 / 2;  // over PTRDIFF_MAX: ENOMEM
  errno = 0;
  char* bigger = realloc(big, impossible);
  if (bigger != NULL || errno != ENOMEM) return 3;
  free(big);
  return 0;
}

// DIR/in: 1 MiB of a pattern, then DIR/in to DIR/out in 64 KiB chunks;
// `change`: one byte of each chunk changed on the way (a filter).
static int pass_through(const char* dir, int change) {
  char in_path[4096];
  char out_path[4096];
  snprintf(in_path, sizeof in_path, "%s/in", dir);
  snprintf(out_path, sizeof out_path, "%s/out", dir);
  static char buf[64 * 1024];
  for (size_t i = 0; i < sizeof buf; ++i) buf[i] = (char)(i * 7 + 3);
  int in = open(in_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (in < 0 || out < 0) return 1;
  for (int i = 0; i < 16; ++i) {
    if (write(in, buf, sizeof buf) != (ssize_t)sizeof buf) return 1;
  }
  if (lseek(in, 0, SEEK_SET) != 0) return 1;
  for (;;) {
    ssize_t got = read(in, buf, sizeof buf);
    if (got < 0) return 1;
    if (got == 0) break;
    if (change) buf[12345] ^= 1;
    if (write(out, buf, (size_t)got) != got) return 1;  // SITE:cat
  }
  close(in);
  close(out);
  return 0;
}

// DIR/in (pass_through's, 1 MiB) to DIR/out through stdio.
static int stdio_cat(const char* dir) {
  if (pass_through(dir, 0) != 0) return 1;
  char in_path[4096];
  char out_path[4096];
  snprintf(in_path, sizeof in_path, "%s/in", dir);
  snprintf(out_path, sizeof out_path, "%s/out", dir);
  FILE* in = fopen(in_path, "rb");
  FILE* out = fopen(out_path, "wb");
  if (in == NULL || out == NULL) return 1;
  static char buf[64 * 1024];
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, in)) > 0) {
    if (fwrite(buf, 1, got, out) != got) return 1;  // SITE:stdiocat
  }
  fclose(in);
  return fclose(out) == 0 ? 0 : 1;
}

static int calloc_zero(void) {
  char* fresh = calloc(1000, 1);
  if (fresh == NULL) return 1;
  memset(fresh, 0, 1000);  // SITE:after_calloc
  free(fresh);
  char* used = malloc(4000);
  if (used == NULL) return 1;
  memset(used, 0, 4000);
  free(used);
  char* again = malloc(4000);  // most likely the same block: zero but for glibc's free list words
  if (again == NULL) return 1;
  memset(again, 0, 4000);  // SITE:coincidence
  free(again);
  return 0;
}

static __attribute__((noinline)) void clear(char* p, size_t n) {
  memset(p, 0, n);  // SITE:mixed_clear
}

static int calloc_holes(void) {
  char* c = calloc(1000, 1);
  if (c == NULL) return 1;
  free(c);
  char* m = malloc(1000);  // glibc's cache hands back the same block
  if (m == NULL) return 1;
  memset(m, 0, 1000);  // SITE:calloc_reused
  free(m);
  char* w = calloc(2000, 1);
  if (w == NULL) return 1;
  w[1500] = 1;
  memset(w, 0, 2000);  // SITE:calloc_written
  free(w);
  for (int i = 0; i < 2; ++i) {
    char* z = calloc(3000, 1);
    if (z == NULL) return 1;
    clear(z, 3000);
    free(z);
  }
  char* d = malloc(3000);
  if (d == NULL) return 1;
  memset(d, 'x', 3000);
  clear(d, 3000);
  free(d);
  return m == c ? 0 : 4;  // 4: the test's premise (the same block) did not hold
}

// Temporaries in their frame while many blocks are live: each is counted,
// however many live blocks came before it.
static __attribute__((noinline)) void frame_temporaries(int n) {
  for (int i = 0; i < n; ++i) {
    char* t = malloc(60);  // SITE:manylive
    t[0] = 1;
    free(t);
  }
}

static int many_live(void) {
  enum { kLive = 100000 };
  char** live = malloc(kLive * sizeof *live);
  if (live == NULL) return 1;
  for (int i = 0; i < kLive; ++i) {
    live[i] = malloc(24);
    if (live[i] == NULL) return 1;
    live[i][0] = (char)i;
  }
  frame_temporaries(1000);
  for (int i = 0; i < kLive; ++i) free(live[i]);
  free(live);
  return 0;
}

int main(int argc, char** argv) {
  self_path = argv[0];
  const char* mode = argc > 1 ? argv[1] : "all";
  if (strcmp(mode, "all") == 0) {
    waste_all();
  } else if (strcmp(mode, "threads") == 0) {
    pthread_t th[4];
    for (int i = 0; i < 4; ++i) pthread_create(&th[i], NULL, thread_main, NULL);
    for (int i = 0; i < 4; ++i) pthread_join(th[i], NULL);
  } else if (strcmp(mode, "fork") == 0) {
    some_temporaries(10);
    pid_t pid = fork();
    if (pid == 0) {
      some_temporaries(20);
      execl(argv[0], argv[0], "all", (char*)NULL);
      _exit(95);
    }
    return wait_child(pid);
  } else if (strcmp(mode, "vfork") == 0) {
    pid_t pid = vfork();
    if (pid == 0) {
      execl(argv[0], argv[0], "all", (char*)NULL);
      _exit(95);
    }
    return wait_child(pid);
  } else if (strcmp(mode, "exit") == 0) {
    waste_all();
    _exit(7);
  } else if (strcmp(mode, "kill") == 0) {
    waste_all();
    kill(getpid(), SIGKILL);
  } else if (strcmp(mode, "closefds") == 0) {
    close(1);
    close(2);
    waste_all();
  } else if (strcmp(mode, "clean") == 0) {
    // Blocks that live on (freed at exit by the system), fills of other
    // values, a copy between memory blocks: nothing here is waste.
    char* keep = malloc(100);
    memset(keep, 'x', 100);
    char* more = malloc(100);
    memcpy(more, keep, 100);
    if (more[0] != 'x') return 1;
  } else if (strcmp(mode, "stdout") == 0) {
    static const char line[] = "the program's own output\n";
    if (write(1, line, sizeof line - 1) != (ssize_t)(sizeof line - 1)) return 1;
    waste_all();
  } else if (strcmp(mode, "frames") == 0) {
    frames();
  } else if (strcmp(mode, "longlived") == 0) {
    return long_lived();
  } else if (strcmp(mode, "remap") == 0 && argc > 2) {
    return remap(argv[2]);
  } else if (strcmp(mode, "wide") == 0) {
    return wide_zero();
#ifndef WASTE_FIXTURE_STATIC_BUILD
  } else if (strcmp(mode, "dlopen") == 0 && argc > 3) {
    some_temporaries(10);  // a site, and the maps read, before either library is mapped
    call_in_library(argv[2], "waste_lib_a", 100);
    call_in_library(argv[3], "waste_lib_b", 50);
#endif
  } else if (strcmp(mode, "errno") == 0) {
    return errno_kept();
  } else if (strcmp(mode, "failedrealloc") == 0) {
    return failed_realloc();
  } else if (strcmp(mode, "filter") == 0 && argc > 2) {
    return pass_through(argv[2], 1);
  } else if (strcmp(mode, "cat") == 0 && argc > 2) {
    return pass_through(argv[2], 0);
  } else if (strcmp(mode, "dropenv") == 0) {
    pid_t pid = fork();
    if (pid == 0) {
      char* const child_argv[] = {argv[0], "clean", NULL};
      char* const child_env[] = {"PATH=/usr/bin:/bin", NULL};
      execve(argv[0], child_argv, child_env);
      _exit(95);
    }
    return wait_child(pid);
  } else if (strcmp(mode, "stdiocat") == 0 && argc > 2) {
    return stdio_cat(argv[2]);
  } else if (strcmp(mode, "calloczero") == 0) {
    return calloc_zero();
  } else if (strcmp(mode, "callocholes") == 0) {
    return calloc_holes();
  } else if (strcmp(mode, "manylive") == 0) {
    return many_live();
  } else if (strcmp(mode, "touch") == 0 && argc > 2) {
    int fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return 1;
    close(fd);
  } else {
    return 2;
  }
  return 0;
}
