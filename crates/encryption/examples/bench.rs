//! Times what encryption adds to a command: key derivation at OpenTofu's defaults (600,000
//! rounds of SHA-512), and decrypting and re-encrypting a large state. Run by
//! `benches/encryption.sh`; prints a Markdown table.
//!
//! `cargo run --release -p statectl-encryption --example bench -- STATE [RUNS]`

use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use statectl_encryption::keyprovider::pbkdf2::{Hash, derive};
use statectl_encryption::{
    EncryptionConfig, Error, KeyProvider, Registry, Secret, StateEncryption,
};

/// A key provider with no derivation (a fixed key), so that the data path is timed alone.
#[derive(Debug)]
struct Fixed;

impl KeyProvider for Fixed {
    fn encryption_key(&self, _upstream: Option<&Secret>) -> Result<(Secret, Vec<u8>), Error> {
        Ok((Secret::key(vec![7; 32]), b"{}".to_vec()))
    }

    fn decryption_key(
        &self,
        _stored: &[u8],
        _upstream: Option<&Secret>,
    ) -> Result<Option<Secret>, Error> {
        Ok(Some(Secret::key(vec![7; 32])))
    }
}

/// Median and minimum: on a shared machine the minimum is the cost without other load.
fn spread(runs: usize, mut f: impl FnMut() -> usize) -> (Duration, Duration) {
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(f());
            started.elapsed()
        })
        .collect();
    samples.sort();
    (samples[samples.len() / 2], samples[0])
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let started = Instant::now();
                std::hint::black_box(f());
                started.elapsed()
            })
            .collect(),
    )
}

/// The envelope `sealed` parsed (the step a read takes before decrypting), its data's length.
fn parsed_len(sealed: &[u8]) -> usize {
    statectl_encryption::envelope::parse(sealed)
        .unwrap()
        .unwrap()
        .encrypted_data
        .len()
}

#[allow(clippy::print_stdout, reason = "the benchmark's report")]
#[allow(
    clippy::too_many_lines,
    reason = "one measurement after another, then the table"
)]
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: bench STATE [RUNS]");
    let runs: usize = args
        .next()
        .map_or(5, |r| r.parse().expect("RUNS is a number"));
    let plaintext = std::fs::read(&path).expect("the state file reads");
    let mb = f64::from(u32::try_from(plaintext.len()).unwrap_or(u32::MAX)) / 1e6;

    let salt = [7u8; 32];
    let kdf = time(runs, || {
        derive(
            Hash::Sha512,
            b"correct-horse-battery-staple",
            &salt,
            NonZeroU32::new(600_000).unwrap(),
            32,
        )
    });

    let json = r#"{"key_provider": {"pbkdf2": {"k": {"passphrase": "correct-horse-battery-staple"}}},
                   "method": {"aes_gcm": {"m": {"keys": "key_provider.pbkdf2.k"}}},
                   "state": {"method": "method.aes_gcm.m"}}"#;
    let config =
        EncryptionConfig::from_value("bench", &serde_json::from_str(json).unwrap()).unwrap();
    let enc = StateEncryption::new(Some(&config), &Registry::default()).unwrap();

    // The first write derives this run's key; later writes reuse it, as OpenTofu's do.
    let started = Instant::now();
    let sealed = enc.encrypt(&plaintext).unwrap().into_owned();
    let first_encrypt = started.elapsed();
    let encrypt = time(runs, || enc.encrypt(&plaintext).unwrap().len());
    // A write seals the new state it owns; the copy that stands for it here is timed apart.
    let plain_copy = time(runs, || plaintext.clone().len());
    let encrypt_owned = time(runs, || {
        enc.encrypt_owned(plaintext.clone(), Some(1001), "l")
            .unwrap()
            .len()
    })
    .saturating_sub(plain_copy);
    // Every read derives the key from the envelope's salt.
    let decrypt = time(runs, || {
        enc.decrypt(sealed.clone()).unwrap().plaintext.len()
    });
    let copy = time(runs, || sealed.clone().len());
    // The same read of a tiny state: the derivation and fixed costs, measured rather than assumed.
    let tiny = enc
        .encrypt(br#"{"version":4,"terraform_version":"1.9.0","serial":1,"lineage":"l"}"#)
        .unwrap()
        .into_owned();
    let tiny_decrypt = time(runs, || enc.decrypt(tiny.clone()).unwrap().plaintext.len());
    let parse = time(runs, || parsed_len(&sealed));

    // The data path alone: a key provider without derivation, many runs.
    let fixed_json = r#"{"key_provider": {"fixed": {"k": {}}},
                   "method": {"aes_gcm": {"m": {"keys": "key_provider.fixed.k"}}},
                   "state": {"method": "method.aes_gcm.m"}}"#;
    let fixed_config =
        EncryptionConfig::from_value("bench", &serde_json::from_str(fixed_json).unwrap()).unwrap();
    let mut registry = Registry::default();
    registry.register("fixed", Box::new(|_| Ok(Box::new(Fixed))));
    let fixed = StateEncryption::new(Some(&fixed_config), &registry).unwrap();
    let fixed_sealed = fixed.encrypt(&plaintext).unwrap().into_owned();
    let data_runs = runs.max(15);
    let data_decrypt = spread(data_runs, || {
        fixed.decrypt(fixed_sealed.clone()).unwrap().plaintext.len()
    });
    let data_copy = spread(data_runs, || fixed_sealed.clone().len());
    let data_plain_copy = spread(data_runs, || plaintext.clone().len());
    let data_encrypt = spread(data_runs, || {
        fixed
            .encrypt_owned(plaintext.clone(), Some(1001), "l")
            .unwrap()
            .len()
    });
    let data_encrypt = (
        data_encrypt.0.saturating_sub(data_plain_copy.0),
        data_encrypt.1.saturating_sub(data_plain_copy.1),
    );
    let data_parse = spread(data_runs, || parsed_len(&fixed_sealed));

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "| what ({mb:.1} MB state, {} MB envelope, median of {runs}) | ms |",
        sealed.len() / 1_000_000
    );
    println!("|---|---:|");
    println!(
        "| PBKDF2-HMAC-SHA512, 600,000 rounds, 32-byte key | {:.0} |",
        ms(kdf)
    );
    println!(
        "| first encrypt of a run (derivation + seal + envelope) | {:.0} |",
        ms(first_encrypt)
    );
    println!(
        "| encrypt (key cached; serial/lineage scanned from the state) | {:.0} |",
        ms(encrypt)
    );
    println!(
        "| encrypt_owned (key cached; serial/lineage given; the state's copy excluded) | {:.0} |",
        ms(encrypt_owned)
    );
    println!(
        "| decrypt (parse, derivation, open, serial/lineage check) | {:.0} |",
        ms(decrypt.saturating_sub(copy))
    );
    println!(
        "| decrypt of a tiny state (the derivation and fixed costs) | {:.0} |",
        ms(tiny_decrypt)
    );
    println!(
        "| decrypt, 50 MB minus tiny (what the size costs) | {:.0} |",
        ms(decrypt.saturating_sub(copy).saturating_sub(tiny_decrypt))
    );
    println!(
        "| of which: envelope parse (JSON scan + base64 decode) | {:.0} |",
        ms(parse)
    );
    println!(
        "| decrypt beyond the derivation | {:.0} |",
        ms(decrypt.saturating_sub(copy).saturating_sub(kdf))
    );
    println!(
        "| encrypted taint's extra cost beyond derivations (decrypt + encrypt_owned) | {:.0} |",
        ms(decrypt.saturating_sub(copy).saturating_sub(kdf) + encrypt_owned)
    );
    println!();
    println!("| data path alone (key without derivation), {data_runs} runs | median ms | min ms |");
    println!("|---|---:|---:|");
    let row = |what: &str, (median, min): (Duration, Duration)| {
        println!("| {what} | {:.1} | {:.1} |", ms(median), ms(min));
    };
    row("envelope parse (find the data, base64 decode)", data_parse);
    row(
        "decrypt (parse, AES-GCM open, serial/lineage check), copy of the input excluded",
        (
            data_decrypt.0.saturating_sub(data_copy.0),
            data_decrypt.1.saturating_sub(data_copy.1),
        ),
    );
    row(
        "encrypt_owned (AES-GCM seal, base64, envelope, in the state's buffer), copy excluded",
        data_encrypt,
    );
    row(
        "both: what an encrypted taint adds beyond the key derivation",
        (
            data_decrypt.0.saturating_sub(data_copy.0) + data_encrypt.0,
            data_decrypt.1.saturating_sub(data_copy.1) + data_encrypt.1,
        ),
    );
}
