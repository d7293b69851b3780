//! The bounds of a paged listing of one state's versions (S3 versions, GCS generations, Azure blob
//! versions, OCI object versions, HCP state versions), written once: a page already followed ends
//! the listing with a warning (a server going round), and a page past the limit is an error, as
//! `listing` bounds the listings of many states.

use std::collections::HashSet;
use std::hash::Hash;

use statectl_state::state::store::StoreError;

/// The pages of one version listing followed so far, and how its messages name it.
#[derive(Debug)]
pub(crate) struct VersionPages<'a, T> {
    location: &'a str,
    max_pages: u32,
    /// "version listing", "generation listing", "state version listing".
    listing: &'static str,
    /// What the listing holds: "versions", "generations".
    unit: &'static str,
    /// What to check when it never ends: "endpoint", "host".
    server: &'static str,
    followed: HashSet<T>,
}

impl<'a, T: Eq + Hash> VersionPages<'a, T> {
    pub(crate) fn new(location: &'a str, max_pages: u32) -> VersionPages<'a, T> {
        VersionPages {
            location,
            max_pages,
            listing: "version listing",
            unit: "versions",
            server: "endpoint",
            followed: HashSet::new(),
        }
    }

    /// The listing's own words, for the backends that do not list "versions".
    pub(crate) fn named(
        mut self,
        listing: &'static str,
        unit: &'static str,
        server: &'static str,
    ) -> VersionPages<'a, T> {
        (self.listing, self.unit, self.server) = (listing, unit, server);
        self
    }

    /// Whether to read the page `next` names, after `pages` pages holding `listed` versions:
    /// `Ok(false)` when it was read already (a warning says so, and the listing ends there), an
    /// error once `pages` reached the limit.
    pub(crate) fn follow(
        &mut self,
        next: T,
        pages: u32,
        listed: usize,
        warnings: &mut Vec<String>,
    ) -> Result<bool, StoreError> {
        if !self.followed.insert(next) {
            self.went_round(pages, warnings);
            return Ok(false);
        }
        if pages >= self.max_pages {
            return Err(StoreError::new(format!(
                "{}: the {} has not ended after {pages} pages ({listed} {} so far); statectl stopped it",
                self.location, self.listing, self.unit
            ))
            .with_hint(format!(
                "the server keeps answering with more pages; check the {}",
                self.server
            )));
        }
        Ok(true)
    }

    /// The page to ask for next: `None` when the server named none, or named one read already
    /// (the listing ends there, with a warning); an error once `pages` reached the limit.
    pub(crate) fn next(
        &mut self,
        next: Option<T>,
        pages: u32,
        listed: usize,
        warnings: &mut Vec<String>,
    ) -> Result<Option<T>, StoreError>
    where
        T: Clone,
    {
        let Some(next) = next else { return Ok(None) };
        Ok(self
            .follow(next.clone(), pages, listed, warnings)?
            .then_some(next))
    }

    /// The warning for a server that pointed back to a page already read.
    pub(crate) fn went_round(&self, pages: u32, warnings: &mut Vec<String>) {
        warnings.push(format!(
            "the {} went round: after {pages} pages the server pointed back to a page already read; statectl stopped there",
            self.listing
        ));
    }
}

/// [`read_unit`] for the backends whose versions are called versions.
pub(crate) fn read_version(
    location: &str,
    id: &str,
    status: u16,
    body: &mut Vec<u8>,
) -> Option<Result<Vec<u8>, StoreError>> {
    read_unit(location, "version", id, status, body)
}

/// The bytes of the version `id` a read answered with `status` and `body`: the state, or why there
/// is none (`unit` is what the backend calls a version: "version", "generation"); `None` for
/// any other status, which the backend explains in its own words.
pub(crate) fn read_unit(
    location: &str,
    unit: &str,
    id: &str,
    status: u16,
    body: &mut Vec<u8>,
) -> Option<Result<Vec<u8>, StoreError>> {
    match status {
        200 if body.is_empty() => Some(Err(StoreError::new(format!(
            "{location}: {unit} `{id}` is empty: it holds no state"
        )))),
        200 => Some(Ok(std::mem::take(body))),
        404 => Some(Err(StoreError::new(format!(
            "{location}: there is no {unit} `{id}` of the state"
        )))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_read_twice_ends_the_listing_and_one_past_the_limit_is_an_error() {
        let mut warnings = Vec::new();
        let mut pages = VersionPages::new("s3://b/k", 3);
        assert!(pages.follow("a", 1, 10, &mut warnings).unwrap());
        assert!(!pages.follow("a", 2, 20, &mut warnings).unwrap());
        assert_eq!(
            warnings,
            [
                "the version listing went round: after 2 pages the server pointed back to a page already read; statectl stopped there"
            ]
        );
        let error = pages.follow("b", 3, 30, &mut warnings).unwrap_err();
        assert_eq!(
            error.message,
            "s3://b/k: the version listing has not ended after 3 pages (30 versions so far); statectl stopped it"
        );
        assert_eq!(
            error.hint.as_deref(),
            Some("the server keeps answering with more pages; check the endpoint")
        );
        let mut generations =
            VersionPages::new("gs://b/o", 1).named("generation listing", "generations", "host");
        let error = generations.follow(7, 1, 2, &mut warnings).unwrap_err();
        assert_eq!(
            error.message,
            "gs://b/o: the generation listing has not ended after 1 pages (2 generations so far); statectl stopped it"
        );
    }
}
