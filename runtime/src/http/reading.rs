//! Reading a response's body through reqwest within a limit, so that an
//! endless or huge body costs at most the limit.

/// Why a body was not read.
pub(crate) enum ReadError {
    /// It is longer than the limit (announced so, or read past it).
    TooLarge,
    /// The connection failed while reading.
    Network(reqwest::Error),
}

/// The body of `response`, at most `limit` bytes; a body announced or
/// found longer is not read further.
pub(crate) async fn bytes(response: reqwest::Response, limit: usize) -> Result<Vec<u8>, ReadError> {
    if response
        .content_length()
        .is_some_and(|len| len > limit as u64)
    {
        return Err(ReadError::TooLarge);
    }
    let mut bytes = Vec::new();
    read(response, limit.saturating_add(1), &mut bytes)
        .await
        .map_err(ReadError::Network)?;
    if bytes.len() > limit {
        return Err(ReadError::TooLarge);
    }
    Ok(bytes)
}

/// The first `most` bytes of the body of `response` (an error's excerpt).
/// What was read before a connection broke off counts.
pub(crate) async fn first(response: reqwest::Response, most: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    let _ = read(response, most, &mut bytes).await;
    bytes
}

/// Reads into `bytes` chunk by chunk, stopping at `most` bytes.
#[cfg(not(target_arch = "wasm32"))]
async fn read(
    mut response: reqwest::Response,
    most: usize,
    bytes: &mut Vec<u8>,
) -> Result<(), reqwest::Error> {
    while let Some(chunk) = response.chunk().await? {
        let room = most - bytes.len();
        if chunk.len() >= room {
            bytes.extend_from_slice(&chunk[..room]);
            break;
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(())
}

/// In a browser, the body comes whole; it is cut after.
#[cfg(target_arch = "wasm32")]
async fn read(
    response: reqwest::Response,
    most: usize,
    bytes: &mut Vec<u8>,
) -> Result<(), reqwest::Error> {
    let whole = response.bytes().await?;
    bytes.extend_from_slice(&whole[..whole.len().min(most)]);
    Ok(())
}
