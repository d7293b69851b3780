//! JSONPath queries over provider answers, each path parsed once per thread: a profile has a
//! handful of paths and a refresh asks them of thousands of answers, and parsing (not evaluating)
//! was the larger part of the cost.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use jsonpath_rust::parser::errors::JsonPathError;
use jsonpath_rust::parser::model::JpQuery;
use jsonpath_rust::parser::parse_json_path;
use jsonpath_rust::query::js_path_process;
use serde_json::Value;

thread_local! {
    static PARSED: RefCell<HashMap<String, Rc<JpQuery>>> = RefCell::new(HashMap::new());
}

/// Every value `path` selects in `document`, in document order; an error names what is wrong with the
/// path (profiles are checked when loaded, so this is rare).
pub(super) fn select<'v>(document: &'v Value, path: &str) -> Result<Vec<&'v Value>, JsonPathError> {
    let parsed = PARSED.with(|cache| {
        if let Some(parsed) = cache.borrow().get(path) {
            return Ok(parsed.clone());
        }
        let parsed = Rc::new(parse_json_path(path)?);
        cache.borrow_mut().insert(path.to_owned(), parsed.clone());
        Ok::<_, JsonPathError>(parsed)
    })?;
    js_path_process(&parsed, document).map(|found| {
        found
            .into_iter()
            .map(jsonpath_rust::query::QueryRef::val)
            .collect()
    })
}

/// The first value `path` selects, if any.
pub(super) fn first<'v>(document: &'v Value, path: &str) -> Option<&'v Value> {
    select(document, path).ok()?.into_iter().next()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn selects_the_same_values_parsed_once_or_again() {
        let document = json!({"data": [{"ip": "10.0.0.1"}, {"ip": "10.0.0.2"}]});
        for _ in 0..2 {
            let found = select(&document, "$.data[*].ip").unwrap();
            assert_eq!(found, vec![&json!("10.0.0.1"), &json!("10.0.0.2")]);
        }
        assert_eq!(first(&document, "$.data[1].ip"), Some(&json!("10.0.0.2")));
        assert_eq!(first(&document, "$.missing"), None);
    }

    #[test]
    fn a_bad_path_is_an_error_not_a_panic() {
        assert!(select(&json!({}), "$[?(").is_err());
    }
}
