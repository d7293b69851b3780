//! RFC 9535 JSONPath over JSON text in place: `statectl query` and the scan rules' `path`s.
//!
//! The expression is parsed by jsonpath-rust's grammar and compiled here (`syntax`); evaluation is
//! ours, over byte spans of the text (`document`, `eval`, `filter`, `compare`), so no tree of the
//! document is ever built; results print in the layout `query` has always used (`render`).
//!
//! Every run is bounded ([`Limits`], sized from the input): nodes visited, nodes kept in a result
//! list and bytes of output. Running out is an error the caller reports with the expression, never
//! an hour of work or an allocation failure. Nothing here recurses on the document's depth.

mod ast;
mod budget;
mod compare;
pub(crate) mod document;
mod eval;
mod filter;
mod forward;
mod iregexp;
mod key_hits;
mod render;
mod split;
mod syntax;
#[cfg(test)]
mod tests;

pub use budget::{Exceeded, Limits};
pub use document::Document;
pub use render::PrintError;
pub use syntax::{MAX_EXPRESSION_BYTES, SyntaxError};

use crate::json::Span;
use document::Walker;

/// A compiled JSONPath expression.
#[derive(Debug, Clone)]
pub struct JsonPath {
    text: String,
    query: ast::Query,
}

impl JsonPath {
    /// Parses `text` (RFC 9535: it starts with `$`).
    pub fn parse(text: &str) -> Result<JsonPath, SyntaxError> {
        Ok(JsonPath {
            text: text.to_owned(),
            query: syntax::compile(text)?,
        })
    }

    /// The expression as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The names the expression (filters included) selects right after selecting `parent` by
    /// name: `["id"]` for `$.resources[*].instances[*].attributes.id` and `"attributes"`.
    pub fn names_after(&self, parent: &str) -> Vec<String> {
        self.query.names_after(parent)
    }

    /// Whether the expression (filters included) selects a member by `name` anywhere.
    pub fn selects_name(&self, name: &str) -> bool {
        self.query.selects_name(name)
    }

    /// The nodes the expression selects in `document`, within `limits`.
    pub fn select<'d, 't>(
        &self,
        document: &'d Document<'t>,
        limits: Limits,
    ) -> Result<Selection<'d, 't>, Exceeded> {
        let mut walker = Walker::new(document, limits);
        let nodes = walker.run_on_threads(&self.query.segments)?;
        Ok(Selection { walker, nodes })
    }
}

/// Two expressions are the same when they are written the same.
impl PartialEq for JsonPath {
    fn eq(&self, other: &JsonPath) -> bool {
        self.text == other.text
    }
}

impl Eq for JsonPath {}

/// What an expression selected, ready to print.
#[derive(Debug)]
pub struct Selection<'d, 't> {
    walker: Walker<'d, 't>,
    nodes: Vec<Span>,
}

impl<'t> Selection<'_, 't> {
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The selected values' text as it stands in the document (masks not applied).
    pub fn raw(&self) -> impl Iterator<Item = &'t str> + '_ {
        let text = self.walker.text();
        self.nodes.iter().map(move |node| node.of(text))
    }

    /// Prints the selection as a JSON array (pretty or on one line) through `write`, which gets the
    /// text in pieces. Nothing is written when it would print longer than the limits allow.
    pub fn print<E>(
        &mut self,
        pretty: bool,
        mut write: impl FnMut(&str) -> Result<(), E>,
    ) -> Result<(), PrintError<E>> {
        let nodes = std::mem::take(&mut self.nodes);
        let printed = self.walker.print(&nodes, pretty, &mut write);
        self.nodes = nodes;
        printed
    }

    /// The selection as one string (tests and small results).
    pub fn to_json(&mut self, pretty: bool) -> Result<String, Exceeded> {
        let mut text = String::new();
        self.print(pretty, |piece| {
            text.push_str(piece);
            Ok::<_, std::convert::Infallible>(())
        })
        .map_err(|error| match error {
            PrintError::TooLong(exceeded) => exceeded,
            PrintError::Write(never) => match never {},
        })?;
        Ok(text)
    }
}
