// libpq, loaded when a PostgreSQL store is first used instead of when any
// zerolab command starts. Linking libpq.so.5 directly made the dynamic
// loader map and relocate it and its ~20 dependencies (Kerberos, LDAP,
// GnuTLS, ...) on every start: about 4.8 ms of CPU, 60% of `zerolab`'s
// start-up, paid by every `zerolab waste -- PROGRAM` run (the cost
// budget) and every command that never touches PostgreSQL.
//
// Each libpq function postgres_database.cpp calls is defined here with the
// header's own signature (libpq-fe.h is included, so a mismatch does not
// compile) and forwards to the real one, found by dlsym in libpq.so.5 on
// its first call. If libpq.so.5 cannot be loaded, PQconninfoParse (the
// first call of every connection) fails with dlerror's message, so the
// store reports it as its one-line error; no other function can be reached
// without a connection.
//
// Example: `zerolab store list --store postgres:///bench` loads libpq here;
// `zerolab waste -- ./prog` never does.
#include <dlfcn.h>
#include <libpq-fe.h>
#include <sys/auxv.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>

namespace {

void* libpq_handle(std::string* error) {
  static std::once_flag once;
  static void* handle = nullptr;
  static std::string load_error;
  std::call_once(once, [] {
    // A statically linked program (the zerolab CLI under ZEROLAB_STATIC_CLI)
    // would get a second C library with libpq.so: it hands PostgreSQL work
    // to zerolab-dynamic instead (tools/zerolab/dynamic_twin.hpp).
    if (getauxval(AT_BASE) == 0) {
      load_error = "libpq.so.5 cannot be loaded into a statically linked program";
      return;
    }
    handle = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* e = dlerror();
      load_error = e != nullptr ? e : "libpq.so.5: cannot be loaded";
    }
  });
  if (handle == nullptr && error != nullptr) *error = load_error;
  return handle;
}

// The real `name`, or null if libpq.so.5 (or the symbol) is missing.
void* find_real(const char* name) {
  void* handle = libpq_handle(nullptr);
  return handle != nullptr ? dlsym(handle, name) : nullptr;
}

// For functions only a live connection reaches.
[[noreturn]] void missing(const char* name) {
  std::fprintf(stderr, "zerolab: libpq.so.5 has no %s\n", name);
  std::exit(1);
}

template <typename Fn>
Fn* real(const char* name) {
  void* p = find_real(name);
  if (p == nullptr) missing(name);
  return reinterpret_cast<Fn*>(p);
}

}  // namespace

// One forwarder: the real function is looked up once, on the first call.
#define ZEROLAB_PQ_FORWARD(ret, name, params, args)                                \
  ret name params {                                                                \
    static auto* const fn = real<std::remove_pointer_t<decltype(&(name))>>(#name); \
    return fn args;                                                                \
  }

extern "C" {

PQconninfoOption* PQconninfoParse(const char* conninfo, char** errmsg) {
  std::string error;
  if (libpq_handle(&error) == nullptr) {
    if (errmsg != nullptr) *errmsg = strdup(error.c_str());
    return nullptr;
  }
  static auto* const fn =
      real<std::remove_pointer_t<decltype(&PQconninfoParse)>>("PQconninfoParse");
  return fn(conninfo, errmsg);
}

// Frees PQconninfoParse's message also when it came from the branch above.
void PQfreemem(void* ptr) {
  if (libpq_handle(nullptr) == nullptr) {
    std::free(ptr);
    return;
  }
  static auto* const fn = real<std::remove_pointer_t<decltype(&PQfreemem)>>("PQfreemem");
  fn(ptr);
}

ZEROLAB_PQ_FORWARD(void, PQconninfoFree, (PQconninfoOption * options), (options))
ZEROLAB_PQ_FORWARD(PGconn*, PQconnectdbParams,
                   (const char* const* keywords, const char* const* values, int expand_dbname),
                   (keywords, values, expand_dbname))
ZEROLAB_PQ_FORWARD(ConnStatusType, PQstatus, (const PGconn* conn), (conn))
ZEROLAB_PQ_FORWARD(char*, PQerrorMessage, (const PGconn* conn), (conn))
ZEROLAB_PQ_FORWARD(void, PQfinish, (PGconn * conn), (conn))
ZEROLAB_PQ_FORWARD(PQnoticeProcessor, PQsetNoticeProcessor,
                   (PGconn * conn, PQnoticeProcessor proc, void* arg), (conn, proc, arg))
ZEROLAB_PQ_FORWARD(PGTransactionStatusType, PQtransactionStatus, (const PGconn* conn), (conn))
ZEROLAB_PQ_FORWARD(PGresult*, PQexec, (PGconn * conn, const char* query), (conn, query))
ZEROLAB_PQ_FORWARD(PGresult*, PQexecParams,
                   (PGconn * conn, const char* command, int n, const Oid* types,
                    const char* const* values, const int* lengths, const int* formats,
                    int result_format),
                   (conn, command, n, types, values, lengths, formats, result_format))
ZEROLAB_PQ_FORWARD(int, PQsendQueryParams,
                   (PGconn * conn, const char* command, int n, const Oid* types,
                    const char* const* values, const int* lengths, const int* formats,
                    int result_format),
                   (conn, command, n, types, values, lengths, formats, result_format))
ZEROLAB_PQ_FORWARD(int, PQsetSingleRowMode, (PGconn * conn), (conn))
ZEROLAB_PQ_FORWARD(PGresult*, PQgetResult, (PGconn * conn), (conn))
ZEROLAB_PQ_FORWARD(int, PQputCopyData, (PGconn * conn, const char* buffer, int bytes),
                   (conn, buffer, bytes))
ZEROLAB_PQ_FORWARD(int, PQputCopyEnd, (PGconn * conn, const char* message), (conn, message))
ZEROLAB_PQ_FORWARD(void, PQclear, (PGresult * res), (res))
ZEROLAB_PQ_FORWARD(ExecStatusType, PQresultStatus, (const PGresult* res), (res))
ZEROLAB_PQ_FORWARD(char*, PQresultErrorMessage, (const PGresult* res), (res))
ZEROLAB_PQ_FORWARD(char*, PQresultErrorField, (const PGresult* res, int field), (res, field))
ZEROLAB_PQ_FORWARD(int, PQntuples, (const PGresult* res), (res))
ZEROLAB_PQ_FORWARD(int, PQgetisnull, (const PGresult* res, int row, int column), (res, row, column))
ZEROLAB_PQ_FORWARD(int, PQgetlength, (const PGresult* res, int row, int column), (res, row, column))
ZEROLAB_PQ_FORWARD(char*, PQgetvalue, (const PGresult* res, int row, int column),
                   (res, row, column))

}  // extern "C"
