//! AFL++ target: `statectl::fuzzing::duration` on each input (see that function for the invariants).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        statectl::fuzzing::duration(data);
    });
}
