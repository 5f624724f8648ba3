//! Reading a response's body within a limit, so that an endless or huge
//! body costs at most the limit.

/// Why a body could not be read whole.
pub(crate) enum ReadError {
    /// It is longer than the limit.
    TooLarge,
    /// The connection failed while reading.
    Network(reqwest::Error),
}

/// The body of `response` as text, at most `limit` bytes: a longer one is
/// [`ReadError::TooLarge`], or, with `cut`, its first `limit` bytes (for
/// an error's excerpt).
pub(crate) async fn body(
    response: reqwest::Response,
    limit: usize,
    cut: bool,
) -> Result<String, ReadError> {
    if !cut
        && response
            .content_length()
            .is_some_and(|len| len > limit as u64)
    {
        return Err(ReadError::TooLarge);
    }
    let bytes = bytes(response, limit, cut).await?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(not_utf8) => String::from_utf8_lossy(not_utf8.as_bytes()).into_owned(),
    })
}

/// Reads chunk by chunk, stopping at `limit`.
#[cfg(not(target_arch = "wasm32"))]
async fn bytes(
    mut response: reqwest::Response,
    limit: usize,
    cut: bool,
) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(ReadError::Network)? {
        if bytes.len() + chunk.len() > limit {
            if !cut {
                return Err(ReadError::TooLarge);
            }
            bytes.extend_from_slice(&chunk[..limit - bytes.len()]);
            return Ok(bytes);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// In a browser, the body comes whole; its length is checked after.
#[cfg(target_arch = "wasm32")]
async fn bytes(response: reqwest::Response, limit: usize, cut: bool) -> Result<Vec<u8>, ReadError> {
    let mut bytes = response.bytes().await.map_err(ReadError::Network)?.to_vec();
    if bytes.len() > limit {
        if !cut {
            return Err(ReadError::TooLarge);
        }
        bytes.truncate(limit);
    }
    Ok(bytes)
}
