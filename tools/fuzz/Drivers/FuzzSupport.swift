// How the drivers here report a broken invariant: DashportFuzzSupport's `fuzzViolation` (the link
// drivers moved to a library of their own, tools/fuzz/Link, so that a link target links no services
// driver and this library no link), under the names these drivers have always called, so that
// both libraries report through the one `FuzzInvariant.handler` the replay tests set.
import DashportFuzzSupport

/// A broken invariant (see `FuzzInvariant`).
func fuzzViolation(_ message: String) { DashportFuzzSupport.fuzzViolation(message) }

func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { DashportFuzzSupport.fuzzViolation(message()) }
}
