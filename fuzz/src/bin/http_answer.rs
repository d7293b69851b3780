//! AFL++ target: `statectl::fuzzing::http_answer` on each input (see that function for the invariants).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        statectl::fuzzing::http_answer(data);
    });
}
