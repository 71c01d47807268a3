// Experiment `ctx-done` (seed 001, "pprof: example: profiling
// gitlab.com/efronlicht/ewaste"): ewaste's wasteCPU spins on a select whose
// case is `<-ctx.Done()`; the seed moves ctx.Done() out of the loop ("this
// used to be the most expensive thing in the program and now its so cheap
// as to be invisible"). The Go peer (peers/go/ewaste) runs the seed's two
// listings, one pass of the SPIN loop per op; the claim is that a pass with
// the call is slower than a pass without it.
//
// No C++ benchmark: the cost hoisted is Go's (an interface call into
// context.(*cancelCtx).Done, whose atomic.Value load Go 1.19 does not
// inline or move out of the loop); C++'s cancellation check,
// std::stop_token::stop_requested(), is an inlined atomic load with no
// call to hoist.
//
// Example:
//   zerolab lab ctx-done
#include "lab/experiments/catalog.hpp"
#include "lab/framework/experiment.hpp"

namespace zerolab::lab {

Experiment make_ctx_done_experiment() {
  Experiment e = Experiment::from_seed(
      "ctx-done", "ewaste's spin loop: ctx.Done() called in every pass vs taken once before it",
      {"001_4eae026f8a0067a6.txt", "pprof: cpu: examining ‘optimized’ ewaste"},
      {"No C++ port: the call hoisted is Go's context.(*cancelCtx).Done (an interface call and "
       "an atomic.Value load); std::stop_token's check is an inlined atomic load with nothing "
       "to hoist."},
      {"ewaste",
       "100ms",
       {"The SPIN loop runs b.N passes (the seed's runs until ctx is cancelled); its body is "
        "the seed's listing, one pass a select and eight divisions (the search restarts at "
        "23, which 23 divides).",
        "One goroutine, where the seed profiled three (`cpu 3`): Done's load is read-only "
        "after its first call, so the goroutines do not contend.",
        "A benchmark's ns/op, where the seed read the change off two 5 s CPU profiles."}});
  e.claims.push_back(
      Claim::is_faster(
          {"this used to be the most expensive thing in the program and now its so cheap as "
           "to be invisible.",
           "pprof: cpu: examining ‘optimized’ ewaste",
           "profiles, not times: context.(*cancelCtx).Done 2080 ms cum (13.97%) and "
           "runtime.chanrecv 4050 ms cum before; Done absent and chanrecv 1570 ms after, of "
           "about 14.9 s each"},
          "", "")
          .go_names("BenchmarkWasteCPU", "BenchmarkWasteCPUHoisted")
          .cpp_not_comparable_because(
              "no C++ counterpart: the call hoisted is Go's (context.(*cancelCtx).Done); a "
              "std::stop_token check is an inlined atomic load with nothing to hoist"));
  return e;
}

}  // namespace zerolab::lab
