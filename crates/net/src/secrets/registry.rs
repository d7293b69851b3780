//! The process-wide set of registered secrets and the one matcher built from it (Aho-Corasick,
//! leftmost-longest, so a secret that contains another is masked whole). The matcher is rebuilt on
//! the first mask after a lasting secret is registered; reading it is a shared lock and a clone of
//! an `Arc`.
//!
//! One-request values (signatures) come with every request, and rebuilding the matcher for each
//! (about 0.6 ms with a full ring) would cost a scan of 100,000 states a minute. So a signature
//! registered since the last build waits among the `pending`: a short text is searched for each
//! pending one directly (a few microseconds), and only a text that holds one, or a long text (where
//! a build is small beside the search), rebuilds the matcher with them.

use std::borrow::Cow;
use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use aho_corasick::{AhoCorasick, MatchKind};

use super::MASK;

/// How many one-request values (signatures) are kept: far more than the requests a run has in
/// flight at once (`--parallelism` and the per-host limits), so the answer to a signed request is
/// always masked against its signature, while a run of 100,000 requests keeps a small set.
pub const EPHEMERAL_KEPT: usize = 256;

/// A text at least this long rebuilds a stale matcher rather than searching for each pending value.
const LONG_TEXT: usize = 16 << 10;

/// The registered secrets.
#[derive(Debug, Default)]
pub(super) struct Registry {
    /// Whether anything was ever registered: the common run (a local state, no credentials) masks
    /// nothing and takes no lock.
    used: AtomicBool,
    inner: RwLock<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    lasting: HashSet<Box<str>>,
    ephemeral: VecDeque<Box<str>>,
    /// How many of the newest `ephemeral` values the matcher does not hold yet.
    pending: usize,
    /// Built from `lasting` and `ephemeral` but the pending ones; `None` after a lasting change.
    matcher: Option<Arc<AhoCorasick>>,
}

/// What a text is matched with: the matcher, and the values registered since it was built.
struct Snapshot {
    matcher: Arc<AhoCorasick>,
    pending: Vec<Box<str>>,
}

/// The run's registry.
pub(super) fn global() -> &'static Registry {
    static GLOBAL: OnceLock<Registry> = OnceLock::new();
    GLOBAL.get_or_init(Registry::default)
}

impl Registry {
    pub(super) fn register_lasting(&self, values: Vec<String>) {
        if values.is_empty() {
            return;
        }
        let mut inner = self.write();
        let mut changed = false;
        for value in values {
            changed |= inner.lasting.insert(value.into_boxed_str());
        }
        if changed {
            inner.matcher = None;
            self.used.store(true, Ordering::Release);
        }
    }

    pub(super) fn register_ephemeral(&self, values: Vec<String>) {
        if values.is_empty() {
            return;
        }
        let mut inner = self.write();
        for value in values {
            if inner.ephemeral.len() == EPHEMERAL_KEPT {
                inner.ephemeral.pop_front();
            }
            inner.ephemeral.push_back(value.into_boxed_str());
            inner.pending = (inner.pending + 1).min(inner.ephemeral.len());
        }
        self.used.store(true, Ordering::Release);
    }

    pub(super) fn mask<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let Some(matcher) = self.matcher_for(text) else {
            return Cow::Borrowed(text);
        };
        if !matcher.is_match(text) {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for found in matcher.find_iter(text) {
            out.push_str(&text[last..found.start()]);
            out.push_str(MASK);
            last = found.end();
        }
        out.push_str(&text[last..]);
        Cow::Owned(out)
    }

    pub(super) fn holds(&self, text: &str) -> bool {
        self.matcher_for(text)
            .is_some_and(|matcher| matcher.is_match(text))
    }

    /// The matcher `text` must be masked with: the current one when no pending value is in
    /// `text`, else one rebuilt with them; `None` when nothing is registered.
    fn matcher_for(&self, text: &str) -> Option<Arc<AhoCorasick>> {
        if !self.used.load(Ordering::Acquire) {
            return None;
        }
        let snapshot = self.snapshot()?;
        let stale = !snapshot.pending.is_empty()
            && (text.len() >= LONG_TEXT
                || snapshot.pending.iter().any(|value| {
                    memchr::memmem::find(text.as_bytes(), value.as_bytes()).is_some()
                }));
        if !stale {
            return Some(snapshot.matcher);
        }
        let mut inner = self.write();
        inner.pending = 0;
        inner.matcher = Some(Arc::new(build(&inner)));
        inner.matcher.clone()
    }

    /// The current matcher (built now if a lasting value made it stale) and the pending values.
    fn snapshot(&self) -> Option<Snapshot> {
        {
            let inner = self.read();
            if let Some(matcher) = &inner.matcher {
                return Some(Snapshot {
                    matcher: matcher.clone(),
                    pending: pending(&inner),
                });
            }
        }
        let mut inner = self.write();
        if inner.matcher.is_none() {
            inner.pending = 0;
            inner.matcher = Some(Arc::new(build(&inner)));
        }
        Some(Snapshot {
            matcher: inner.matcher.clone()?,
            pending: pending(&inner),
        })
    }

    // A panic while the lock was held leaves the set as it was (each change is one insert), so a
    // poisoned lock is still safe to use: masking must never stop because something else failed.
    fn read(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(PoisonError::into_inner)
    }
}

fn pending(inner: &Inner) -> Vec<Box<str>> {
    inner
        .ephemeral
        .iter()
        .skip(inner.ephemeral.len() - inner.pending)
        .cloned()
        .collect()
}

/// The matcher for every value registered now.
fn build(inner: &Inner) -> AhoCorasick {
    let patterns: Vec<&str> = inner
        .lasting
        .iter()
        .chain(&inner.ephemeral)
        .map(AsRef::as_ref)
        .collect();
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .build(patterns)
        .expect("a few hundred literal patterns are within the matcher's limits")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(registry: &Registry, text: &str) -> String {
        registry.mask(text).into_owned()
    }

    #[test]
    fn nothing_registered_masks_nothing_and_borrows() {
        let registry = Registry::default();
        assert!(matches!(registry.mask("Bearer abc"), Cow::Borrowed(_)));
        assert!(!registry.holds("anything"));
    }

    #[test]
    fn every_occurrence_is_masked_and_the_longest_secret_wins() {
        let registry = Registry::default();
        registry.register_lasting(vec!["token-123456".into(), "token-123456-long".into()]);
        assert_eq!(
            masked(&registry, "a token-123456-long b token-123456 c"),
            "a *** b *** c"
        );
        assert!(registry.holds("xtoken-123456x"));
        assert!(matches!(registry.mask("clean"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_registration_after_a_mask_is_seen_by_the_next_mask() {
        let registry = Registry::default();
        registry.register_lasting(vec!["first-secret".into()]);
        assert_eq!(masked(&registry, "second-secret"), "second-secret");
        registry.register_lasting(vec!["second-secret".into()]);
        assert_eq!(masked(&registry, "second-secret first-secret"), "*** ***");
    }

    #[test]
    fn only_the_last_ephemeral_values_are_kept() {
        let registry = Registry::default();
        for index in 0..=EPHEMERAL_KEPT {
            registry.register_ephemeral(vec![format!("signature-{index:05}")]);
        }
        assert_eq!(masked(&registry, "signature-00000"), "signature-00000");
        assert_eq!(masked(&registry, "signature-00001"), "***");
        assert_eq!(
            masked(&registry, &format!("signature-{EPHEMERAL_KEPT:05}")),
            "***"
        );
    }

    #[test]
    fn a_signature_registered_after_the_build_is_masked_in_short_and_long_texts() {
        let registry = Registry::default();
        registry.register_lasting(vec!["lasting-secret".into()]);
        assert_eq!(masked(&registry, "lasting-secret"), "***");
        registry.register_ephemeral(vec!["signature-pending-1".into()]);
        // Not in the text: the matcher built before is kept.
        assert_eq!(masked(&registry, "clean"), "clean");
        assert_eq!(masked(&registry, "a signature-pending-1 b"), "a *** b");
        registry.register_ephemeral(vec!["signature-pending-2".into()]);
        let long = format!("{}signature-pending-2", " ".repeat(LONG_TEXT));
        assert!(masked(&registry, &long).ends_with(" ***"));
        registry.register_ephemeral(vec!["signature-pending-3".into()]);
        assert!(registry.holds("x signature-pending-3 x"));
    }

    #[test]
    fn many_threads_register_and_mask_at_once() {
        let registry = Arc::new(Registry::default());
        let threads: Vec<_> = (0..8)
            .map(|thread| {
                let registry = registry.clone();
                std::thread::spawn(move || {
                    for index in 0..50 {
                        let secret = format!("thread-{thread}-secret-{index}");
                        registry.register_lasting(vec![secret.clone()]);
                        assert_eq!(registry.mask(&format!("<{secret}>")), "<***>");
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
    }
}
