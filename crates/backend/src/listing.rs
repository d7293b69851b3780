//! What every paged listing shares (the prefix listings of s3, gcs, azurerm and oci, and HCP
//! Terraform's tagged workspaces): a server cannot keep a listing going for ever nor inflate it.
//! A continuation token already followed ends the listing (the server went round: from there it
//! lists what it has listed), more than `max_pages` pages is an error, and a key listed twice is
//! kept once. What was odd becomes a warning the CLI prints, naming the prefix.

use std::collections::{BTreeSet, HashSet};
use std::hash::{BuildHasher, RandomState};

use statectl_state::state::store::StoreError;

/// The pages a listing may take unless told otherwise (`--max-pages`): a million keys at the 1,000
/// a page that S3, Cloud Storage and OCI give (5,000 for Azure), far past any organisation's
/// states, and a few seconds of a server that never ends its pages.
pub const DEFAULT_MAX_PAGES: u32 = 1_000;

/// How a listing is bounded and which keys it keeps.
#[derive(Clone, Copy)]
pub struct ListOptions<'a> {
    /// Whether a key is wanted (`--include`, `--exclude`); lock objects are left out before.
    pub keep: &'a (dyn Fn(&str) -> bool + Sync),
    /// The most pages to follow; a listing that has not ended by then is an error.
    pub max_pages: u32,
}

crate::debug::shown_in_debug!(ListOptions<'_>: max_pages);

/// What a listing found: the keys kept, in byte order, each once, and what was odd about it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Listed {
    pub keys: Vec<String>,
    /// Lines for people, without the prefix (the CLI names it).
    pub warnings: Vec<String>,
}

/// One page of a listing: the keys it names (lock objects left out) and the server's token for the
/// next page.
pub(crate) type Page = (Vec<String>, Option<String>);

/// One listing in progress: the pages read, the tokens followed, the keys kept.
pub(crate) struct Pages<'a> {
    /// The listing's location, which starts the error at the page limit.
    location: &'a str,
    /// What a key names, for messages: `state`, or HCP Terraform's `workspace`.
    noun: &'static str,
    options: ListOptions<'a>,
    /// Pages read so far.
    read: u32,
    /// Hashes of the tokens followed (a token is the server's: it may be long, so it is not kept).
    followed: HashSet<u64>,
    hasher: RandomState,
    keys: BTreeSet<String>,
    duplicates: u64,
    /// The page after which the server pointed back to a page already read.
    went_round_after: Option<u32>,
}

crate::debug::shown_in_debug!(Pages<'_>: location, read, keys.len());

impl<'a> Pages<'a> {
    pub(crate) fn new(location: &'a str, options: ListOptions<'a>) -> Pages<'a> {
        Pages {
            location,
            noun: "state",
            options,
            read: 0,
            followed: HashSet::new(),
            hasher: RandomState::new(),
            keys: BTreeSet::new(),
            duplicates: 0,
            went_round_after: None,
        }
    }

    /// Names a key `noun` in messages (`state` unless told).
    pub(crate) fn counting(mut self, noun: &'static str) -> Pages<'a> {
        self.noun = noun;
        self
    }

    /// The keys of the next page, lock objects already left out; `keep` chooses among them.
    pub(crate) fn page(&mut self, keys: impl IntoIterator<Item = String>) {
        self.read += 1;
        for key in keys {
            if !(self.options.keep)(&key) {
                continue;
            }
            if self.keys.contains(&key) {
                self.duplicates += 1;
            } else {
                self.keys.insert(key);
            }
        }
    }

    /// Whether to ask for the page `token` names: `false` when it was followed before (the
    /// listing went round, and ends with a warning); an error past the page limit.
    pub(crate) fn follow(&mut self, token: &str) -> Result<bool, StoreError> {
        if !self.followed.insert(self.hasher.hash_one(token)) {
            self.went_round();
            return Ok(false);
        }
        if self.read >= self.options.max_pages {
            return Err(StoreError::new(format!(
                "{}: the listing has not ended after {} pages ({} {}{} so far); statectl stopped it",
                self.location,
                self.read,
                self.keys.len(),
                self.noun,
                plural(self.keys.len() as u64)
            ))
            .with_hint(
                "raise the limit with `--max-pages N` if the prefix really holds that many objects, or name a narrower prefix",
            ));
        }
        Ok(true)
    }

    /// The token of the page to ask for next: `None` when the server named none (an empty token
    /// is none) or the listing ends because it went round; an error past the page limit.
    pub(crate) fn next(&mut self, token: Option<&str>) -> Result<Option<String>, StoreError> {
        match token {
            Some(token) if !token.is_empty() => Ok(self.follow(token)?.then(|| token.to_owned())),
            _ => Ok(None),
        }
    }

    /// Every key of the pages `read` reads, one after the other: `read` is given the token of the
    /// page to read (`None` for the first) and answers with the page's keys (lock objects left
    /// out) and the server's token for the next page, followed within the bounds above.
    pub(crate) async fn read_all<F, Reading>(mut self, mut read: F) -> Result<Listed, StoreError>
    where
        F: FnMut(Option<String>) -> Reading,
        Reading: Future<Output = Result<Page, StoreError>>,
    {
        let mut token = None;
        loop {
            let (keys, next) = read(token.take()).await?;
            self.page(keys);
            token = self.next(next.as_deref())?;
            if token.is_none() {
                return Ok(self.finish());
            }
        }
    }

    /// Ends the listing here: the server pointed back to a page already read (by a token, or an
    /// OCI `nextStartWith` that does not move forward).
    pub(crate) fn went_round(&mut self) {
        self.went_round_after = Some(self.read);
    }

    pub(crate) fn finish(self) -> Listed {
        let mut warnings = Vec::new();
        if let Some(pages) = self.went_round_after {
            warnings.push(format!(
                "the listing went round: after {pages} page{} the server pointed back to a page already read; statectl stopped there, with the {} state{} listed so far",
                plural(u64::from(pages)),
                self.keys.len(),
                plural(self.keys.len() as u64),
            ));
        }
        if self.duplicates > 0 {
            warnings.push(format!(
                "the listing named {} key{} more than once; each state is read once",
                self.duplicates,
                plural(self.duplicates)
            ));
        }
        Listed {
            keys: self.keys.into_iter().collect(),
            warnings,
        }
    }
}

fn plural(count: u64) -> &'static str {
    if count == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(keep: &(dyn Fn(&str) -> bool + Sync), max_pages: u32) -> ListOptions<'_> {
        ListOptions { keep, max_pages }
    }

    #[test]
    fn keys_are_kept_once_in_order_and_the_duplicates_counted() {
        let keep = |key: &str| !key.starts_with("skip");
        let mut pages = Pages::new("s3://b/org/", options(&keep, 10));
        pages.page(["b".to_owned(), "a".to_owned(), "skip".to_owned()]);
        assert!(pages.follow("t1").unwrap());
        pages.page(["a".to_owned(), "c".to_owned(), "skip".to_owned()]);
        assert_eq!(
            pages.finish(),
            Listed {
                keys: vec!["a".to_owned(), "b".to_owned(), "c".to_owned()],
                warnings: vec![
                    "the listing named 1 key more than once; each state is read once".to_owned()
                ],
            }
        );
    }

    #[test]
    fn a_token_followed_before_ends_the_listing_with_a_warning() {
        let keep = |_: &str| true;
        let mut pages = Pages::new("s3://b/org/", options(&keep, 10));
        pages.page(["a".to_owned()]);
        assert!(pages.follow("A").unwrap());
        pages.page(["b".to_owned()]);
        assert!(pages.follow("B").unwrap());
        pages.page(["a".to_owned()]);
        assert!(!pages.follow("A").unwrap());
        let listed = pages.finish();
        assert_eq!(listed.keys, ["a", "b"]);
        assert_eq!(
            listed.warnings,
            [
                "the listing went round: after 3 pages the server pointed back to a page already read; statectl stopped there, with the 2 states listed so far",
                "the listing named 1 key more than once; each state is read once",
            ]
        );
    }

    #[test]
    fn a_listing_past_the_page_limit_is_an_error() {
        let keep = |_: &str| true;
        let mut pages = Pages::new("s3://b/org/", options(&keep, 3));
        for page in 0..3 {
            pages.page([format!("k{page}")]);
            let followed = pages.follow(&format!("t{page}"));
            if page < 2 {
                assert!(followed.unwrap());
            } else {
                let error = followed.unwrap_err();
                assert_eq!(
                    error.message,
                    "s3://b/org/: the listing has not ended after 3 pages (3 states so far); statectl stopped it"
                );
                assert!(error.hint.unwrap().contains("--max-pages"));
            }
        }
    }
}
