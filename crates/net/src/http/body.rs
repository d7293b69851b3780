//! Reading an answer's body within a limit: a state of hundreds of megabytes exists, an endless
//! body does not stop, and a token endpoint's answer is small. A body larger than the limit is
//! refused (or, for an error's text, cut) instead of held.

/// Why a body was not read whole.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// The body is larger than the limit (in bytes) it was read with.
    #[error("the answer is larger than {limit} bytes")]
    TooLarge { limit: u64 },
    /// The connection broke while the body was read.
    #[error("the answer broke off")]
    Broken(#[source] reqwest::Error),
}

/// The largest buffer made ahead from a `Content-Length`: a server's word is no reason to hold more.
const MOST_RESERVED: u64 = 64 << 20;

/// The whole body, when it is at most `limit` bytes (a `Content-Length` over it is refused before
/// anything is read).
pub async fn read_capped(
    response: &mut reqwest::Response,
    limit: u64,
) -> Result<Vec<u8>, BodyError> {
    let expected = response.content_length().unwrap_or(0);
    if expected > limit {
        return Err(BodyError::TooLarge { limit });
    }
    let mut body = Vec::with_capacity(usize::try_from(expected.min(MOST_RESERVED)).unwrap_or(0));
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Broken)? {
        if (body.len() + chunk.len()) as u64 > limit {
            return Err(BodyError::TooLarge { limit });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The status, the headers and the whole body (at most `limit` bytes) of `response`.
pub async fn read_whole(
    mut response: reqwest::Response,
    limit: u64,
) -> Result<(u16, reqwest::header::HeaderMap, Vec<u8>), BodyError> {
    let status = response.status().as_u16();
    let headers = std::mem::take(response.headers_mut());
    let body = read_capped(&mut response, limit).await?;
    Ok((status, headers, body))
}

/// The first `limit` bytes of the body, the rest left unread (an error answer's text).
pub async fn read_head(
    response: &mut reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, BodyError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Broken)? {
        if body.len() + chunk.len() > limit {
            body.extend_from_slice(&chunk[..limit - body.len()]);
            break;
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
