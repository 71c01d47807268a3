// The static zerolab's hand-over to its dynamically linked twin. A fully
// static program cannot load libpq.so (dlopen would bring a second C
// library into it), so under ZEROLAB_STATIC_CLI the build also links the
// same objects dynamically as zerolab-dynamic (beside zerolab in the build
// tree, in libexec/zerolab/ when installed), and a command that names a
// PostgreSQL store (an argument holding "postgres://" or "postgresql://";
// `zerolab waste` never opens a store and is never handed over) is
// exec'd there before it does anything. A dynamically linked zerolab
// returns at once.
//
// Example (main):
//   zerolab::cli::hand_postgres_commands_to_dynamic_twin(argc, argv);  // may not return
#ifndef ZEROLAB_TOOLS_ZEROLAB_DYNAMIC_TWIN_HPP_
#define ZEROLAB_TOOLS_ZEROLAB_DYNAMIC_TWIN_HPP_

namespace zerolab::cli {

// Returns if the command stays here. Execs zerolab-dynamic with the same
// arguments otherwise; if it cannot, prints one line naming where it
// looked and exits with status 1.
void hand_postgres_commands_to_dynamic_twin(int argc, char** argv);

}  // namespace zerolab::cli

#endif  // ZEROLAB_TOOLS_ZEROLAB_DYNAMIC_TWIN_HPP_
