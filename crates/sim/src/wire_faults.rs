//! What the three state servers (http-backend, tfe, object-storage) share about their faults and
//! connections: the `--fault` grammar (`TARGET=ACTION[*COUNT]`), counting a fault's hits down, the
//! `/_sim/fault` control, and the accept loop.

use std::time::Duration;

use serde_json::json;
use tokio::net::{TcpListener, TcpStream};

use crate::http::Response;
use crate::setup::SetupError;

/// One injected fault of a state server: the requests it hits (by method, and by a part of the
/// target where the server's grammar has one), what it does, and how many more requests it hits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fault<A> {
    pub method: String,
    /// The path suffix (object-storage) or target fragment (tfe) it is limited to; empty for all.
    pub target: String,
    pub action: A,
    /// `None` for every request.
    pub remaining: Option<u32>,
}

/// A `--fault` spec, `TARGET=ACTION[*COUNT]`: `read` makes the fault of the target, the action and
/// the count, or `None` when they are not the mode's `grammar`.
pub(crate) fn fault<T>(
    spec: &str,
    grammar: &'static str,
    read: impl FnOnce(&str, &str, Option<u32>) -> Option<T>,
) -> Result<T, SetupError> {
    let bad = || SetupError::Fault {
        spec: spec.to_owned(),
        grammar,
    };
    let (target, rest) = spec.trim().split_once('=').ok_or_else(bad)?;
    let (action, count) = match rest.rsplit_once('*') {
        Some((action, count)) => (action, Some(count.parse().map_err(|_| bad())?)),
        None => (rest, None),
    };
    read(target, action, count).ok_or_else(bad)
}

/// Every `--fault` spec of a mode, read with its `parse`.
pub(crate) fn parse_all<F>(
    specs: &[String],
    parse: fn(&str) -> Result<F, SetupError>,
) -> Result<Vec<F>, SetupError> {
    specs.iter().map(|spec| parse(spec)).collect()
}

/// An HTTP status a fault may answer with: 100 to 599.
pub(crate) fn status(text: &str) -> Option<u16> {
    text.parse()
        .ok()
        .filter(|status| (100..=599).contains(status))
}

/// The first of `faults` that `hits` the request and has hits left, counted down by one.
pub(crate) fn take<A>(
    faults: &mut [Fault<A>],
    hits: impl Fn(&Fault<A>) -> bool,
) -> Option<&Fault<A>> {
    for fault in faults.iter_mut() {
        if !hits(fault) {
            continue;
        }
        match &mut fault.remaining {
            Some(0) => continue,
            Some(count) => *count -= 1,
            None => {}
        }
        return Some(fault);
    }
    None
}

/// `/_sim/fault` of the http-backend and object-storage modes: `POST` adds the body's fault (a
/// `--fault` spec), `DELETE` clears them all.
pub(crate) fn control<F>(
    method: &str,
    faults: &mut Vec<F>,
    body: &[u8],
    parse: fn(&str) -> Result<F, SetupError>,
) -> Response {
    match method {
        "POST" => match parse(&String::from_utf8_lossy(body)) {
            Ok(fault) => {
                faults.push(fault);
                Response::empty(200)
            }
            Err(message) => Response::json(400, &json!({ "error": message.to_string() })),
        },
        "DELETE" => {
            faults.clear();
            Response::empty(200)
        }
        _ => Response::json(404, &json!({"error": "no such control endpoint"})),
    }
}

/// Accepts connections until the task is dropped, each served by `serve` on a task of its own.
pub(crate) async fn accept_each<F, Fut>(listener: TcpListener, serve: F)
where
    F: Fn(TcpStream) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    loop {
        // An accept error (too many open files, say) is about one connection; keep serving.
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        // A response goes out as a head write and a body write: with Nagle's algorithm and the
        // client's delayed ACK, the body would wait some 40 ms each time.
        let _ = stream.set_nodelay(true);
        tokio::spawn(serve(stream));
    }
}
