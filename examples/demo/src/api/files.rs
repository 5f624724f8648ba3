//! Binary data: file uploads (a multipart form, or raw bytes) read back
//! byte for byte, and an image.
//!
//! - `POST /files`: a `multipart/form-data` form (its file part is the
//!   file; its text fields are echoed back) or raw bytes (named by
//!   `?name=`). Answers `201` with
//!   `{"id", "name", "size", "contentType", "fields"}`.
//! - `GET /files/{id}`: the bytes, with their content type.
//! - `GET /images/{name}`: a 2x2 orange PNG, whatever the name,
//!   cacheable for an hour and embeddable from any origin
//!   (`Cross-Origin-Resource-Policy: cross-origin`).

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Path, Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::Shared;

/// A file as uploaded.
pub struct StoredFile {
    name: String,
    content_type: String,
    bytes: Vec<u8>,
}

/// A 2x2 PNG, orange.
const PNG: [u8; 73] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xfd, 0xd4, 0x9a,
    0x73, 0x00, 0x00, 0x00, 0x10, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xdf, 0xc0, 0x00,
    0x44, 0x0c, 0x10, 0x0a, 0x00, 0x2d, 0xee, 0x05, 0xfd, 0x8b, 0x3f, 0x6e, 0x84, 0x00, 0x00, 0x00,
    0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

fn unprocessable(detail: impl std::fmt::Display) -> Response {
    let body = json!({ "detail": detail.to_string() });
    (StatusCode::UNPROCESSABLE_ENTITY, Json(body)).into_response()
}

/// `POST /files`.
pub async fn upload(
    State(shared): State<Arc<Shared>>,
    Query(query): Query<BTreeMap<String, String>>,
    request: Request,
) -> Response {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("application/octet-stream")
        .to_owned();
    let mut fields = serde_json::Map::new();
    let file = if content_type.starts_with("multipart/form-data") {
        let mut form = match Multipart::from_request(request, &()).await {
            Ok(form) => form,
            Err(error) => return unprocessable(error),
        };
        let mut file = None;
        loop {
            let part = match form.next_field().await {
                Ok(Some(part)) => part,
                Ok(None) => break,
                Err(error) => return unprocessable(error),
            };
            let name = part.name().unwrap_or_default().to_owned();
            let filename = part.file_name().map(str::to_owned);
            let part_type = part.content_type().map(str::to_owned);
            let bytes = match part.bytes().await {
                Ok(bytes) => bytes,
                Err(error) => return unprocessable(error),
            };
            match filename {
                Some(filename) => {
                    file = Some(StoredFile {
                        name: filename,
                        content_type: part_type
                            .unwrap_or_else(|| "application/octet-stream".into()),
                        bytes: bytes.to_vec(),
                    });
                }
                None => {
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    fields.insert(name, Value::String(text));
                }
            }
        }
        match file {
            Some(file) => file,
            None => return unprocessable("the form has no file"),
        }
    } else {
        let bytes = match Bytes::from_request(request, &()).await {
            Ok(bytes) => bytes,
            Err(error) => return unprocessable(error),
        };
        StoredFile {
            name: query
                .get("name")
                .cloned()
                .unwrap_or_else(|| "upload".into()),
            content_type,
            bytes: bytes.to_vec(),
        }
    };
    let mut files = shared.files.lock().unwrap_or_else(|e| e.into_inner());
    files.push(file);
    let id = files.len();
    let file = &files[id - 1];
    let body = json!({
        "id": id,
        "name": file.name,
        "size": file.bytes.len(),
        "contentType": file.content_type,
        "fields": fields,
    });
    (StatusCode::CREATED, Json(body)).into_response()
}

/// `GET /files/{id}`.
pub async fn download(State(shared): State<Arc<Shared>>, Path(id): Path<usize>) -> Response {
    let files = shared.files.lock().unwrap_or_else(|e| e.into_inner());
    let Some(file) = id.checked_sub(1).and_then(|index| files.get(index)) else {
        let body = json!({ "detail": format!("no files/{id}") });
        return (StatusCode::NOT_FOUND, Json(body)).into_response();
    };
    let mut headers = HeaderMap::new();
    if let Ok(content_type) = file.content_type.parse() {
        headers.insert(header::CONTENT_TYPE, content_type);
    }
    (headers, file.bytes.clone()).into_response()
}

/// `GET /images/{name}`.
pub async fn image(Path(_name): Path<String>) -> Response {
    // Cacheable, as images are served, and embeddable by pages of any
    // origin, even isolated ones (`Cross-Origin-Embedder-Policy`).
    let headers = [
        (header::CONTENT_TYPE, "image/png"),
        (header::CACHE_CONTROL, "public, max-age=3600"),
        (
            header::HeaderName::from_static("cross-origin-resource-policy"),
            "cross-origin",
        ),
    ];
    (headers, PNG.to_vec()).into_response()
}
