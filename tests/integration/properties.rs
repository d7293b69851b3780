//! Property tests of the invariants the fuzzers check (`statectl::fuzzing`), run by `cargo test` on the
//! test data and on a fixed number of seeded mutations of it (bit flips, truncations, spliced bytes),
//! so every build checks them; `fuzz/run.sh` explores the same invariants for as long as it is given.

use statectl::fuzzing;

use crate::builder::{root, test_and_corpus_states};

/// Deterministic mutations of `seed`: the same every run, so a failure reproduces.
pub(crate) fn mutations(seed: &[u8], count: usize, rng_seed: u64) -> Vec<Vec<u8>> {
    let mut rng = fastrand::Rng::with_seed(rng_seed);
    let specials: &[&[u8]] = &[
        b"\"",
        b"\\",
        b"{",
        b"}",
        b"[",
        b"]",
        b",",
        b":",
        b"\0",
        b"\xff",
        b"\\u0000",
        b"1e999",
        b"-0",
        b"null",
        b"\"\\ud800\"",
        b"99999999999999999999999",
        b"\n",
        b"  ",
    ];
    (0..count)
        .map(|_| {
            let mut bytes = seed.to_vec();
            for _ in 0..rng.usize(1..4) {
                if bytes.is_empty() {
                    bytes.extend_from_slice(specials[rng.usize(..specials.len())]);
                    continue;
                }
                let at = rng.usize(..bytes.len());
                match rng.u8(..4) {
                    0 => bytes[at] ^= 1 << rng.u8(..8),
                    1 => bytes.truncate(at),
                    2 => {
                        let special = specials[rng.usize(..specials.len())];
                        bytes.splice(at..at, special.iter().copied());
                    }
                    _ => {
                        let end = (at + rng.usize(1..16)).min(bytes.len());
                        bytes.drain(at..end);
                    }
                }
            }
            bytes
        })
        .collect()
}

/// Runs `invariant` on every seed and on its mutations (as many as `count` says for it), the
/// `index`th seed's mutations seeded by `index`.
fn holds_on_seeds_and_mutations<S: AsRef<[u8]>>(
    seeds: &[S],
    count: impl Fn(&[u8]) -> usize,
    invariant: fn(&[u8]),
) {
    for (index, seed) in seeds.iter().enumerate() {
        let seed = seed.as_ref();
        invariant(seed);
        for mutated in mutations(seed, count(seed), index as u64) {
            invariant(&mutated);
        }
    }
}

fn seed_states() -> Vec<Vec<u8>> {
    let files = test_and_corpus_states();
    assert!(files.len() > 20, "the test data holds states");
    files
        .iter()
        .map(|file| std::fs::read(file).unwrap())
        .collect()
}

#[test]
fn states_and_their_mutations_keep_the_parser_and_writer_invariants() {
    // Small files get more mutations: they are cheap and reach every branch of their shape.
    holds_on_seeds_and_mutations(
        &seed_states(),
        |seed| if seed.len() < 20_000 { 60 } else { 8 },
        fuzzing::state,
    );
}

#[test]
fn addresses_round_trip_through_their_text() {
    let seeds: &[&[u8]] = &[
        b"aws_instance.web",
        b"aws_instance.web[0]",
        b"module.app[\"blue\"].module.db.aws_db_instance.main[\"a\\\"b\"]",
        b"data.aws_ami.ubuntu",
        b"terraform_data.cbd (deposed object d452a61b)",
        "module.caf\u{e9}.null_resource.x[\"<>&${}\"]".as_bytes(),
        b"module.a",
        b"aws_instance.web[-1]",
    ];
    holds_on_seeds_and_mutations(seeds, |_| 300, fuzzing::address);
}

#[test]
fn profile_files_compile_or_are_refused_without_a_change() {
    let mut seeds = vec![std::fs::read(root().join("tests/sim/demo.toml")).unwrap()];
    for entry in std::fs::read_dir(root().join("crates/reconcile/src/reconcile/profiles")).unwrap()
    {
        let path = entry.unwrap().path();
        if path
            .extension()
            .is_some_and(|extension| extension == "toml")
        {
            // Under another type name, so the built-in it copies stays.
            let text =
                std::fs::read_to_string(&path)
                    .unwrap()
                    .replacen("type = \"", "type = \"fuzz_", 1);
            seeds.push(text.into_bytes());
        }
    }
    holds_on_seeds_and_mutations(&seeds, |_| 150, fuzzing::profiles);
}

#[test]
fn plugin_values_decode_and_round_trip_or_are_refused() {
    // Selector byte (the schema type), then msgpack: a map, a fixarray, a dynamic [type, value].
    let seeds: &[&[u8]] = &[
        b"\x01\x82\xa2id\xa3abc\xa5count\xcb\x40\x09\x21\xfb\x54\x44\x2d\x18",
        b"\x02\x92\x2a\xa2hi",
        b"\x00\x92\xc4\x08\"string\"\xa3abc",
        b"\x01\x85\xa2id\xc0\xa5count\xc0\xa4tags\x81\xa1k\xa1v\xa5items\x90\xa5flags\x91\xc3",
        // Found by AFL++: a tuple of a float64 negative zero and null (cty encodes -0 as the int 0).
        b"\x17\x92\xcb\x80\x00\x00\x00\x00\x00\x00\x00\xc0",
    ];
    holds_on_seeds_and_mutations(seeds, |_| 500, fuzzing::msgpack);
}

#[test]
fn provider_answers_become_observations() {
    let seeds: &[&[u8]] = &[
        b"\x00\x64retry-after: 3\ncontent-type: application/json\n\n{\"lifecycleState\":\"RUNNING\",\"id\":\"x\"}",
        b"\x01\x9bretry-after: Sun, 06 Nov 1994 08:49:37 GMT\n\n{}",
        b"\x00\x64\n\n[{\"lifecycleState\":1}]",
        b"\x01\xadx-amz-retry-after: 999999999999\n\n",
    ];
    holds_on_seeds_and_mutations(seeds, |_| 300, fuzzing::http_answer);
}

#[test]
fn durations_parse_or_are_refused_and_deadlines_never_overflow() {
    let seeds: &[&[u8]] = &[
        b"2s\n500ms\n10m\n1h30m",
        b"0\n1ns\n1.5us\n2\xc2\xb5s",
        b"3000000000000000h\n18446744073709551615s\n5124095576030431h\n1ms",
        b"18446744073709551616s\n-1s\nNaN\n1e999s",
        b"99999999999999999999999999999h\n.5s\n1.999999999999999999999s\n0s",
    ];
    holds_on_seeds_and_mutations(seeds, |_| 500, fuzzing::duration);
}

#[test]
fn lock_infos_parse_or_are_refused_and_show_in_a_bounded_line() {
    let long = "w".repeat(60_000);
    let seeds: Vec<Vec<u8>> = vec![
        br#"{"ID":"6b1d2a3e-0000-4000-8000-000000000001","Operation":"OperationTypeApply","Info":"","Who":"ana@ci-7","Version":"1.15.5","Created":"2026-11-22T07:00:00.5Z","Path":"terraform.tfstate"}"#.to_vec(),
        format!(r#"{{"ID":"x","Who":"{long}","Operation":"apply"}}"#).into_bytes(),
        br#"{"ID":"\u00e9\ud83d\ude00","Who":"\u001b[31m\r\n","Version":"statectl 0.1.0"}"#.to_vec(),
        br#"{"ID":1,"Who":null}"#.to_vec(),
    ];
    holds_on_seeds_and_mutations(&seeds, |_| 300, fuzzing::lock_info);
}
