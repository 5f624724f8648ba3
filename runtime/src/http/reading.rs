//! Reading a response's body within a limit, so that an endless or huge
//! body costs at most the limit.

/// Why a body could not be read whole.
pub(crate) enum ReadError {
    /// It is longer than the limit.
    TooLarge,
    /// The connection failed while reading.
    Network(reqwest::Error),
    /// The body is not UTF-8: its first bad byte is at this offset.
    NotUtf8(usize),
}

/// The body of `response` as text, at most `limit` bytes: a longer one is
/// [`ReadError::TooLarge`], or, with `cut`, its first `limit` bytes (for
/// an error's excerpt). A body that is not UTF-8 is
/// [`ReadError::NotUtf8`]; an excerpt (`cut`) shows bad bytes replaced.
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
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(not_utf8) if cut => Ok(String::from_utf8_lossy(not_utf8.as_bytes()).into_owned()),
        Err(not_utf8) => Err(ReadError::NotUtf8(not_utf8.utf8_error().valid_up_to())),
    }
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
