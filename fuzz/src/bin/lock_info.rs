//! AFL++ target: `statectl::fuzzing::lock_info` on each input (see that function for the invariants).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        statectl::fuzzing::lock_info(data);
    });
}
