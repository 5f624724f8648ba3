//! Reading a response's body through reqwest within a limit, so that an
//! endless or huge body costs at most the limit.

/// The body of `response`, at most `limit` + 1 bytes: enough for the
/// client to tell a body past its limit. A body whose announced length is
/// past the limit is not read at all (the client judges it by its
/// `Content-Length`).
pub(crate) async fn bytes(
    response: reqwest::Response,
    limit: usize,
) -> Result<Vec<u8>, reqwest::Error> {
    if response
        .content_length()
        .is_some_and(|len| len > limit as u64)
    {
        return Ok(Vec::new());
    }
    read(response, limit.saturating_add(1)).await
}

/// The first `most` bytes of the body of `response` (an error's excerpt).
pub(crate) async fn first(
    response: reqwest::Response,
    most: usize,
) -> Result<Vec<u8>, reqwest::Error> {
    read(response, most).await
}

/// Reads chunk by chunk, stopping at `most` bytes.
#[cfg(not(target_arch = "wasm32"))]
async fn read(mut response: reqwest::Response, most: usize) -> Result<Vec<u8>, reqwest::Error> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = most - bytes.len();
        if chunk.len() >= room {
            bytes.extend_from_slice(&chunk[..room]);
            break;
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// In a browser, the body comes whole; it is cut after.
#[cfg(target_arch = "wasm32")]
async fn read(response: reqwest::Response, most: usize) -> Result<Vec<u8>, reqwest::Error> {
    let mut bytes = response.bytes().await?.to_vec();
    bytes.truncate(most);
    Ok(bytes)
}
