//! AFL++ target: `statectl::fuzzing::jsonpath` on each input (see that function for the invariants).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        statectl::fuzzing::jsonpath(data);
    });
}
