// zerolab::waste's read/write family: copies through user space.
//
// Each thread remembers its last successful read (read, pread, readv, recv,
// recvfrom and their _chk forms): the descriptor, the byte ranges filled
// (up to 4 iovecs) and a 64-bit hash of each chunk of them (chunks of 4 KiB,
// or the power of two that keeps a read within 64 chunks). A later write
// (write, pwrite, writev, send, sendto) by the same thread to a different
// descriptor is a copy through user space only if each of its buffers lies
// inside one segment, starts on a chunk boundary, ends on one (or at the
// segment's end), and every chunk it covers hashes as it did at the read:
// the written bytes are the read bytes. Those bytes count (exactly), per
// source and destination descriptor type and per call site. A program that
// changes even one byte per chunk (a filter, an encoder) writes no copy;
// a write of part of a chunk is not counted (it cannot be checked). The
// hash tells any change confined to one 8-byte lane of a chunk with
// certainty (each step is a bijection of the lane); other changes escape it
// with probability about 2^-64. stdio's fread and fwrite (and their
// _unlocked forms) count as a read and a write of their stream's descriptor:
// `fread(buf, 1, n, in); fwrite(buf, 1, n, out);` is a copy through user
// space too (through two stdio buffers). Calls glibc makes internally (the
// read and write system calls under stdio, sendmsg, fgets, getline, fputs)
// do not pass through here.
//
// Cost: a read hashes the bytes it returned (about 10 bytes per cycle); a
// write pays a few compares, a candidate copy a hash of its bytes, and a
// detected copy an fstat per descriptor and a stack.
//
// Example: under zerolab waste, `n = read(in, buf, 65536); write(out, buf, n);`
// with `in` a file and `out` a pipe counts one file→pipe copy of n bytes.
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "waste/preload/preload_state.hpp"

extern "C" [[noreturn]] void __chk_fail();  // glibc: "buffer overflow detected"

namespace zerolab::waste {
namespace {

using ReadFn = ssize_t (*)(int, void*, size_t);
using PreadFn = ssize_t (*)(int, void*, size_t, off_t);
using ReadvFn = ssize_t (*)(int, const iovec*, int);
using RecvFn = ssize_t (*)(int, void*, size_t, int);
using RecvfromFn = ssize_t (*)(int, void*, size_t, int, sockaddr*, socklen_t*);
using WriteFn = ssize_t (*)(int, const void*, size_t);
using PwriteFn = ssize_t (*)(int, const void*, size_t, off_t);
using WritevFn = ssize_t (*)(int, const iovec*, int);
using SendFn = ssize_t (*)(int, const void*, size_t, int);
using SendtoFn = ssize_t (*)(int, const void*, size_t, int, const sockaddr*, socklen_t);
using FreadFn = size_t (*)(void*, size_t, size_t, FILE*);
using FwriteFn = size_t (*)(const void*, size_t, size_t, FILE*);

struct Real {
  ReadFn read;
  PreadFn pread;
  ReadvFn readv;
  RecvFn recv;
  RecvfromFn recvfrom;
  WriteFn write;
  PwriteFn pwrite;
  WritevFn writev;
  SendFn send;
  SendtoFn sendto;
  FreadFn fread;
  FreadFn fread_unlocked;
  FwriteFn fwrite;
  FwriteFn fwrite_unlocked;
};
Real g_real{};

template <typename Fn>
void find(Fn& slot, const char* name) {
  slot = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

__attribute__((constructor(101))) void find_glibc_io() {
  find(g_real.read, "read");
  find(g_real.pread, "pread64");
  find(g_real.readv, "readv");
  find(g_real.recv, "recv");
  find(g_real.recvfrom, "recvfrom");
  find(g_real.write, "write");
  find(g_real.pwrite, "pwrite64");
  find(g_real.writev, "writev");
  find(g_real.send, "send");
  find(g_real.sendto, "sendto");
  find(g_real.fread, "fread");
  find(g_real.fread_unlocked, "fread_unlocked");
  find(g_real.fwrite, "fwrite");
  find(g_real.fwrite_unlocked, "fwrite_unlocked");
}

// As zerolab::io decides it (src/io/fd_info.cpp): the peer is a loopback
// address, or the socket's own address.
bool loopback_address(const sockaddr_storage& a) {
  if (a.ss_family == AF_INET) {
    return (ntohl(reinterpret_cast<const sockaddr_in&>(a).sin_addr.s_addr) >> 24) == 127;
  }
  if (a.ss_family == AF_INET6) {
    const in6_addr& in6 = reinterpret_cast<const sockaddr_in6&>(a).sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&in6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&in6) && in6.s6_addr[12] == 127;
  }
  return false;
}

bool tcp_peer_on_this_host(int fd) {
  sockaddr_storage peer{};
  sockaddr_storage self{};
  socklen_t peer_len = sizeof peer;
  socklen_t self_len = sizeof self;
  if (syscall(SYS_getpeername, fd, &peer, &peer_len) != 0) return false;
  if (loopback_address(peer)) return true;
  if (syscall(SYS_getsockname, fd, &self, &self_len) != 0 || self.ss_family != peer.ss_family)
    return false;
  if (peer.ss_family == AF_INET) {
    return reinterpret_cast<const sockaddr_in&>(peer).sin_addr.s_addr ==
           reinterpret_cast<const sockaddr_in&>(self).sin_addr.s_addr;
  }
  return std::memcmp(&reinterpret_cast<const sockaddr_in6&>(peer).sin6_addr,
                     &reinterpret_cast<const sockaddr_in6&>(self).sin6_addr, sizeof(in6_addr)) == 0;
}

FdType fd_type(int fd) {
  struct stat st {};
  if (syscall(SYS_fstat, fd, &st) != 0) return FdType::kOther;
  if (S_ISREG(st.st_mode)) return FdType::kFile;
  if (S_ISFIFO(st.st_mode)) return FdType::kPipe;
  if (S_ISCHR(st.st_mode)) {
    termios tio{};
    return syscall(SYS_ioctl, fd, TCGETS, &tio) == 0 ? FdType::kTty : FdType::kOther;
  }
  if (S_ISSOCK(st.st_mode)) {
    int domain = 0;
    int type = 0;
    socklen_t len = sizeof domain;
    if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0)
      return FdType::kOther;
    len = sizeof type;
    if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0) return FdType::kOther;
    if (domain == AF_UNIX) return type == SOCK_STREAM ? FdType::kUnix : FdType::kOther;
    if (domain == AF_INET || domain == AF_INET6) {
      if (type == SOCK_STREAM)
        return tcp_peer_on_this_host(fd) ? FdType::kTcpLoopback : FdType::kTcp;
      if (type == SOCK_DGRAM) return FdType::kUdp;
    }
  }
  return FdType::kOther;
}

// A 64-bit hash of [p, p + n): four multiply-xor lanes over 8-byte words
// (the tail bytes go into lane 0 one by one), then the lanes mixed.
std::uint64_t chunk_hash(const unsigned char* p, std::size_t n) {
  constexpr std::uint64_t kOdd = 0x9fb21c651e98df25ULL;
  std::uint64_t lane[4] = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL, 0xa4093822299f31d0ULL,
                           0x082efa98ec4e6c89ULL};
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 4; ++k) {
      std::uint64_t w = 0;
      std::memcpy(&w, p + i + 8 * k, 8);
      lane[k] = (lane[k] ^ w) * kOdd;
    }
  }
  for (; i < n; ++i) lane[0] = (lane[0] ^ p[i]) * kOdd;
  std::uint64_t h = n;
  for (int k = 0; k < 4; ++k) {
    std::uint64_t x = lane[k] + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(k + 1);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    h += x ^ (x >> 31);  // a sum: a change in one lane always changes it
  }
  return h;
}

// After a read of `got` bytes into `iov`.
void note_read(int fd, const iovec* iov, int count, ssize_t got) {
  ThreadState& t = t_state;
  if (got <= 0 || t.in_hook != 0 || !g_active.load(std::memory_order_relaxed)) return;
  ReadMemory& m = t.read;
  m.fd = fd;
  m.segments = 0;
  std::uint64_t left = static_cast<std::uint64_t>(got);
  for (int i = 0; i < count && left > 0 && m.segments < ReadMemory::kSegments; ++i) {
    const std::uint64_t n = iov[i].iov_len < left ? iov[i].iov_len : left;
    if (n == 0) continue;
    const auto b = reinterpret_cast<std::uintptr_t>(iov[i].iov_base);
    m.begin[m.segments] = b;
    m.end[m.segments] = b + n;
    ++m.segments;
    left -= n;
  }
  // Chunks: 4 KiB, doubled until every segment's chunks fit.
  m.chunk_bytes = kPageBytes;
  for (;;) {
    std::uint64_t chunks = 0;
    for (int i = 0; i < m.segments; ++i)
      chunks += (m.end[i] - m.begin[i] + m.chunk_bytes - 1) / m.chunk_bytes;
    if (chunks <= ReadMemory::kChunks) break;
    m.chunk_bytes *= 2;
  }
  int next = 0;
  for (int i = 0; i < m.segments; ++i) {
    m.first_chunk[i] = next;
    for (std::uintptr_t at = m.begin[i]; at < m.end[i]; at += m.chunk_bytes) {
      const std::uint64_t n = m.end[i] - at < m.chunk_bytes ? m.end[i] - at : m.chunk_bytes;
      m.chunk_hash[next++] = chunk_hash(reinterpret_cast<const unsigned char*>(at), n);
    }
  }
}

// True if [b, e) holds exactly bytes of the last read: inside one segment,
// on chunk boundaries (or the segment's end), each chunk as hashed then.
bool same_as_read(const ReadMemory& m, std::uintptr_t b, std::uintptr_t e) {
  for (int i = 0; i < m.segments; ++i) {
    if (b < m.begin[i] || e > m.end[i]) continue;
    const std::uint64_t from = b - m.begin[i];
    const std::uint64_t to = e - m.begin[i];
    if (from % m.chunk_bytes != 0 || (to % m.chunk_bytes != 0 && e != m.end[i])) return false;
    for (std::uint64_t at = from; at < to; at += m.chunk_bytes) {
      const std::uint64_t n = to - at < m.chunk_bytes ? to - at : m.chunk_bytes;
      const auto* p = reinterpret_cast<const unsigned char*>(m.begin[i] + at);
      const auto chunk = static_cast<std::uint64_t>(m.first_chunk[i]) + at / m.chunk_bytes;
      if (chunk_hash(p, n) != m.chunk_hash[chunk]) return false;
    }
    return true;
  }
  return false;
}

__attribute__((noinline)) void record_copy(ThreadState& t, int src, int dst, std::uint64_t bytes) {
  InHook guard(t);
  const FdType from = fd_type(src);
  const FdType to = fd_type(dst);
  Totals& totals = thread_totals(t);
  const auto f = static_cast<int>(from);
  const auto d = static_cast<int>(to);
  totals.copy_calls[f][d].fetch_add(1, std::memory_order_relaxed);
  totals.copy_bytes[f][d].fetch_add(bytes, std::memory_order_relaxed);
  std::uint64_t pcs[kMaxFrames];
  const int depth = capture_stack(pcs, kMaxFrames);
  if (Site* s = find_or_add_site(Kind::kUserSpaceCopies, pcs, depth, from, to)) {
    s->calls.fetch_add(1, std::memory_order_relaxed);
    s->bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
}

// After a write of `wrote` bytes from `iov` to `fd`.
void note_write(int fd, const iovec* iov, int count, ssize_t wrote) {
  ThreadState& t = t_state;
  if (wrote <= 0 || t.in_hook != 0 || !g_active.load(std::memory_order_relaxed)) return;
  const ReadMemory& m = t.read;
  if (m.segments == 0 || fd == m.fd) return;
  std::uint64_t left = static_cast<std::uint64_t>(wrote);
  for (int i = 0; i < count && left > 0; ++i) {
    const std::uint64_t n = iov[i].iov_len < left ? iov[i].iov_len : left;
    const auto b = reinterpret_cast<std::uintptr_t>(iov[i].iov_base);
    if (n > 0 && !same_as_read(m, b, b + n)) return;
    left -= n;
  }
  record_copy(t, m.fd, fd, static_cast<std::uint64_t>(wrote));
}

iovec one(const void* p, size_t n) {
  return iovec{const_cast<void*>(p), n};
}

}  // namespace
}  // namespace zerolab::waste

namespace w = zerolab::waste;

ZEROLAB_WASTE_EXPORT ssize_t read(int fd, void* buf, size_t n) {
  const ssize_t got =
      w::g_real.read != nullptr ? w::g_real.read(fd, buf, n) : syscall(SYS_read, fd, buf, n);
  const iovec v = w::one(buf, n);
  w::note_read(fd, &v, 1, got);
  return got;
}

ZEROLAB_WASTE_EXPORT ssize_t __read_chk(int fd, void* buf, size_t n, size_t room) {
  if (n > room) __chk_fail();
  return read(fd, buf, n);
}

ZEROLAB_WASTE_EXPORT ssize_t pread64(int fd, void* buf, size_t n, off_t at) {
  const ssize_t got = w::g_real.pread != nullptr ? w::g_real.pread(fd, buf, n, at)
                                                 : syscall(SYS_pread64, fd, buf, n, at);
  const iovec v = w::one(buf, n);
  w::note_read(fd, &v, 1, got);
  return got;
}

ZEROLAB_WASTE_EXPORT ssize_t pread(int fd, void* buf, size_t n, off_t at) {
  return pread64(fd, buf, n, at);
}

ZEROLAB_WASTE_EXPORT ssize_t __pread64_chk(int fd, void* buf, size_t n, off_t at, size_t room) {
  if (n > room) __chk_fail();
  return pread64(fd, buf, n, at);
}

ZEROLAB_WASTE_EXPORT ssize_t __pread_chk(int fd, void* buf, size_t n, off_t at, size_t room) {
  return __pread64_chk(fd, buf, n, at, room);
}

ZEROLAB_WASTE_EXPORT ssize_t readv(int fd, const iovec* iov, int count) {
  const ssize_t got = w::g_real.readv != nullptr ? w::g_real.readv(fd, iov, count)
                                                 : syscall(SYS_readv, fd, iov, count);
  w::note_read(fd, iov, count, got);
  return got;
}

ZEROLAB_WASTE_EXPORT ssize_t recvfrom(int fd, void* buf, size_t n, int flags, sockaddr* from,
                                      socklen_t* from_len) {
  const ssize_t got = w::g_real.recvfrom != nullptr
                          ? w::g_real.recvfrom(fd, buf, n, flags, from, from_len)
                          : syscall(SYS_recvfrom, fd, buf, n, flags, from, from_len);
  const iovec v = w::one(buf, n);
  if ((flags & MSG_PEEK) == 0) w::note_read(fd, &v, 1, got);
  return got;
}

ZEROLAB_WASTE_EXPORT ssize_t recv(int fd, void* buf, size_t n, int flags) {
  const ssize_t got = w::g_real.recv != nullptr
                          ? w::g_real.recv(fd, buf, n, flags)
                          : syscall(SYS_recvfrom, fd, buf, n, flags, nullptr, nullptr);
  const iovec v = w::one(buf, n);
  if ((flags & MSG_PEEK) == 0) w::note_read(fd, &v, 1, got);
  return got;
}

ZEROLAB_WASTE_EXPORT ssize_t __recv_chk(int fd, void* buf, size_t n, size_t room, int flags) {
  if (n > room) __chk_fail();
  return recv(fd, buf, n, flags);
}

ZEROLAB_WASTE_EXPORT ssize_t __recvfrom_chk(int fd, void* buf, size_t n, size_t room, int flags,
                                            sockaddr* from, socklen_t* from_len) {
  if (n > room) __chk_fail();
  return recvfrom(fd, buf, n, flags, from, from_len);
}

ZEROLAB_WASTE_EXPORT ssize_t write(int fd, const void* buf, size_t n) {
  const ssize_t wrote =
      w::g_real.write != nullptr ? w::g_real.write(fd, buf, n) : syscall(SYS_write, fd, buf, n);
  const iovec v = w::one(buf, n);
  w::note_write(fd, &v, 1, wrote);
  return wrote;
}

ZEROLAB_WASTE_EXPORT ssize_t pwrite64(int fd, const void* buf, size_t n, off_t at) {
  const ssize_t wrote = w::g_real.pwrite != nullptr ? w::g_real.pwrite(fd, buf, n, at)
                                                    : syscall(SYS_pwrite64, fd, buf, n, at);
  const iovec v = w::one(buf, n);
  w::note_write(fd, &v, 1, wrote);
  return wrote;
}

ZEROLAB_WASTE_EXPORT ssize_t pwrite(int fd, const void* buf, size_t n, off_t at) {
  return pwrite64(fd, buf, n, at);
}

ZEROLAB_WASTE_EXPORT ssize_t writev(int fd, const iovec* iov, int count) {
  const ssize_t wrote = w::g_real.writev != nullptr ? w::g_real.writev(fd, iov, count)
                                                    : syscall(SYS_writev, fd, iov, count);
  w::note_write(fd, iov, count, wrote);
  return wrote;
}

ZEROLAB_WASTE_EXPORT ssize_t sendto(int fd, const void* buf, size_t n, int flags,
                                    const sockaddr* to, socklen_t to_len) {
  const ssize_t wrote = w::g_real.sendto != nullptr
                            ? w::g_real.sendto(fd, buf, n, flags, to, to_len)
                            : syscall(SYS_sendto, fd, buf, n, flags, to, to_len);
  const iovec v = w::one(buf, n);
  w::note_write(fd, &v, 1, wrote);
  return wrote;
}

ZEROLAB_WASTE_EXPORT ssize_t send(int fd, const void* buf, size_t n, int flags) {
  const ssize_t wrote = w::g_real.send != nullptr
                            ? w::g_real.send(fd, buf, n, flags)
                            : syscall(SYS_sendto, fd, buf, n, flags, nullptr, 0);
  const iovec v = w::one(buf, n);
  w::note_write(fd, &v, 1, wrote);
  return wrote;
}

namespace zerolab::waste {
namespace {

// After fread/fwrite moved `items` items of `size` bytes at `buf` through `f`.
void note_stdio(bool reading, FILE* f, const void* buf, size_t size, size_t items) {
  if (items == 0 || size == 0) return;
  const int fd = fileno_unlocked(f);
  if (fd < 0) return;  // a memory stream
  const iovec v = one(buf, size * items);
  const auto bytes = static_cast<ssize_t>(size * items);
  if (reading) {
    note_read(fd, &v, 1, bytes);
  } else {
    note_write(fd, &v, 1, bytes);
  }
}

}  // namespace
}  // namespace zerolab::waste

ZEROLAB_WASTE_EXPORT size_t fread(void* buf, size_t size, size_t n, FILE* f) {
  if (w::g_real.fread == nullptr) return 0;
  const size_t got = w::g_real.fread(buf, size, n, f);
  w::note_stdio(true, f, buf, size, got);
  return got;
}

ZEROLAB_WASTE_EXPORT size_t fread_unlocked(void* buf, size_t size, size_t n, FILE* f) {
  if (w::g_real.fread_unlocked == nullptr) return 0;
  const size_t got = w::g_real.fread_unlocked(buf, size, n, f);
  w::note_stdio(true, f, buf, size, got);
  return got;
}

ZEROLAB_WASTE_EXPORT size_t fwrite(const void* buf, size_t size, size_t n, FILE* f) {
  if (w::g_real.fwrite == nullptr) return 0;
  const size_t wrote = w::g_real.fwrite(buf, size, n, f);
  w::note_stdio(false, f, buf, size, wrote);
  return wrote;
}

ZEROLAB_WASTE_EXPORT size_t fwrite_unlocked(const void* buf, size_t size, size_t n, FILE* f) {
  if (w::g_real.fwrite_unlocked == nullptr) return 0;
  const size_t wrote = w::g_real.fwrite_unlocked(buf, size, n, f);
  w::note_stdio(false, f, buf, size, wrote);
  return wrote;
}

ZEROLAB_WASTE_EXPORT size_t __fread_chk(void* buf, size_t room, size_t size, size_t n, FILE* f) {
  if (size != 0 && n > room / size) __chk_fail();
  return fread(buf, size, n, f);
}

ZEROLAB_WASTE_EXPORT size_t __fread_unlocked_chk(void* buf, size_t room, size_t size, size_t n,
                                                 FILE* f) {
  if (size != 0 && n > room / size) __chk_fail();
  return fread_unlocked(buf, size, n, f);
}
