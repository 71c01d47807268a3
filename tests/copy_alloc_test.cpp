// copy_fd allocates nothing on the heap once the thread is warm, on every
// path, counted by the benchmark harness (allocs/op and B/op of a
// zerolab::run_benchmark run).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "copy_test_util.hpp"
#include "zerolab/bench.hpp"
#include "zerolab/bench_run.hpp"
#include "zerolab/copy.hpp"

namespace zerolab::copy_test {
namespace {

double metric(const RunReport& report, const std::string& unit) {
  if (report.results.empty()) return -1;
  for (const auto& m : report.results[0].metrics) {
    if (m.unit == unit) return m.value;
  }
  return -1;
}

RunReport run_fixed(const std::function<void(B&)>& body) {
  RunSettings settings;
  settings.iterations = 200;
  return run_benchmark("BenchmarkCopyFd", body, settings);
}

void expect_zero_allocs(const RunReport& report) {
  ASSERT_FALSE(report.failed) << testing::PrintToString(report.failure_messages);
  EXPECT_EQ(metric(report, "allocs/op"), 0.0);
  EXPECT_EQ(metric(report, "B/op"), 0.0);
}

TEST(CopyAllocations, FileToFile) {
  TempDir disk("/tmp");
  const int in = create_file(disk.file("in"), pattern(100000));
  const int out = create_file(disk.file("out"), "");
  expect_zero_allocs(run_fixed([&](B& b) {
    for (std::int64_t i = 0; i < b.n(); ++i) {
      lseek(in, 0, SEEK_SET);
      lseek(out, 0, SEEK_SET);
      if (copy_fd(in, out).error) b.fatal("copy failed");
    }
  }));
  close(in);
  close(out);
}

TEST(CopyAllocations, PreparedPairs) {
  SocketPair sp = unix_pair();
  TempDir disk("/tmp");
  const std::string data = pattern(65536);
  const int in = create_file(disk.file("in"), data);
  const int out = create_file(disk.file("out"), "");
  const PreparedCopy to_file = prepare_copy(in, out);
  const PreparedCopy to_socket = prepare_copy(in, sp.a);
  const PreparedCopy from_socket = prepare_copy(sp.b, out);
  const auto rewind = [&] { return lseek(in, 0, SEEK_SET) == 0 && lseek(out, 0, SEEK_SET) == 0; };
  expect_zero_allocs(run_fixed([&](B& b) {
    for (std::int64_t i = 0; i < b.n(); ++i) {
      if (!rewind() || copy_fd(to_file).bytes != data.size()) b.fatal("prepared file copy failed");
      if (!rewind() || copy_fd(to_socket).bytes != data.size())
        b.fatal("prepared to socket failed");
      CopyOptions o;
      o.max_bytes = data.size();
      if (copy_fd(from_socket, o).bytes != data.size()) b.fatal("prepared socket copy failed");
    }
  }));
  close(sp.a);
  close(sp.b);
  close(in);
  close(out);
}

TEST(CopyAllocations, FileToSocketAndSocketToFile) {
  TempDir disk("/tmp");
  const std::string data = pattern(65536);
  const int in = create_file(disk.file("in"), data);
  const int out = create_file(disk.file("out"), "");
  SocketPair sp = tcp_pair();
  const auto copy_both = [&](B* b) {
    lseek(in, 0, SEEK_SET);
    lseek(out, 0, SEEK_SET);
    CopyOptions o;
    const bool sent = !copy_fd(in, sp.a).error;
    o.max_bytes = data.size();
    const bool received = copy_fd(sp.b, out, o).bytes == data.size();
    if (b != nullptr && !(sent && received)) b->fatal("file to TCP or TCP to file failed");
    return sent && received;
  };
  // Warm: the second socket → file copy between the same numbers reads
  // and writes (the spliced-pair hint), and a thread's first read/write
  // allocates its buffer, once.
  ASSERT_TRUE(copy_both(nullptr));
  ASSERT_TRUE(copy_both(nullptr));
  expect_zero_allocs(run_fixed([&](B& b) {
    for (std::int64_t i = 0; i < b.n(); ++i) copy_both(&b);
  }));
  close(sp.a);
  close(sp.b);
  close(in);
  close(out);
}

TEST(CopyAllocations, ReadWritePathAndPipes) {
  TempDir disk("/tmp");
  const int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
  const int out = create_file(disk.file("out"), "");
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  const int pipe_out = create_file(disk.file("pipe_out"), "");
  expect_zero_allocs(run_fixed([&](B& b) {
    for (std::int64_t i = 0; i < b.n(); ++i) {
      lseek(out, 0, SEEK_SET);
      CopyOptions o;
      o.max_bytes = 300000;
      if (copy_fd(zero, out, o).bytes != 300000) b.fatal("read/write copy failed");
      o.max_bytes = 30000;
      if (copy_fd(zero, p[1], o).bytes != 30000) b.fatal("into the pipe failed");
      lseek(pipe_out, 0, SEEK_SET);
      if (copy_fd(p[0], pipe_out, o).bytes != 30000) b.fatal("out of the pipe failed");
    }
  }));
  close(zero);
  close(out);
  close(p[0]);
  close(p[1]);
  close(pipe_out);
}

}  // namespace
}  // namespace zerolab::copy_test
