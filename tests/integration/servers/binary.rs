//! Binary data against the demo API's file routes: a file uploaded in a
//! multipart form, or as raw bytes, reads back byte for byte as a
//! `Blob`; the `Accept` header follows the endpoint's kind; bytes are
//! cached like any read.

use std::rc::Rc;

use mockito::Matcher;
use restcache::Blob;
use restcache::http::{Body, Form};
use restcache::prelude::*;
use restcache_demo::DemoApi;

use crate::common::mock::server;

/// What the demo answers to an upload.
#[derive(Entity, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Uploaded {
    pub id: u64,
    pub name: String,
    pub size: usize,
    pub content_type: String,
    pub fields: serde_json::Value,
}

endpoint!(pub upload {
    method: POST,
    path: "/files",
    schema: Rc<Uploaded>,
});

endpoint!(pub upload_named {
    method: POST,
    path: "/files",
    schema: Rc<Uploaded>,
    params: { name: String },
});

endpoint!(pub file {
    path: "/files/:id",
    schema: Blob,
    params: { id: u64 },
});

endpoint!(pub image {
    path: "/images/:name",
    schema: Blob,
    params: { name: String },
});

/// Every byte value, and a run that is not UTF-8.
fn awkward_bytes() -> Vec<u8> {
    let mut bytes: Vec<u8> = (0..=255).collect();
    bytes.extend_from_slice(b"\xff\xfe\r\n--not a boundary\r\n\0");
    bytes
}

#[tokio::test]
async fn a_file_uploaded_in_a_multipart_form_reads_back_byte_for_byte() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let form = Form::new().text("note", "holiday").file(
        "photo",
        "beach.bin",
        "application/x-test",
        awkward_bytes(),
    );
    let uploaded = ctrl
        .fetch(&upload(), &(), Some(form.into_body()))
        .await
        .unwrap();
    assert_eq!(uploaded.name, "beach.bin");
    assert_eq!(uploaded.size, awkward_bytes().len());
    assert_eq!(uploaded.fields["note"], "holiday");

    let params = FileParams { id: uploaded.id };
    let blob = ctrl.fetch(&file(), &params, None).await.unwrap();
    assert_eq!(blob.bytes(), awkward_bytes());
    assert_eq!(blob.content_type(), Some("application/x-test"));
    // Cached like any read.
    let cached = ctrl.read(&file(), &params);
    assert!(Rc::ptr_eq(&blob, cached.data.as_ref().unwrap()));
    assert_eq!(api.hits(&format!("GET /files/{}", uploaded.id)), 1);
}

#[tokio::test]
async fn raw_bytes_upload_and_read_back_and_an_image_is_bytes() {
    let api = DemoApi::start().unwrap();
    let ctrl = Controller::new(Client::new(api.url()));
    let body = Body::bytes("application/octet-stream", awkward_bytes());
    let params = UploadNamedParams {
        name: "raw.bin".into(),
    };
    let uploaded = ctrl
        .fetch(&upload_named(), &params, Some(body))
        .await
        .unwrap();
    assert_eq!(uploaded.name, "raw.bin");
    let blob = ctrl
        .fetch(&file(), &FileParams { id: uploaded.id }, None)
        .await
        .unwrap();
    assert_eq!(blob.bytes(), awkward_bytes());

    let png = ctrl
        .fetch(
            &image(),
            &ImageParams {
                name: "a.png".into(),
            },
            None,
        )
        .await
        .unwrap();
    assert_eq!(png.content_type(), Some("image/png"));
    assert_eq!(&png.bytes()[..8], b"\x89PNG\r\n\x1a\n");
}

#[tokio::test]
async fn the_requests_say_what_they_send_and_accept() {
    let (mut server, client) = server().await;
    let sent = server
        .mock("POST", "/files")
        .match_header("accept", "application/json")
        .match_header(
            "content-type",
            Matcher::Regex("^multipart/form-data; boundary=restcache-[0-9a-f]+$".into()),
        )
        .match_body(Matcher::Regex(
            "Content-Disposition: form-data; name=\"doc\"; filename=\"a%22b.txt\"\r\nContent-Type: text/plain\r\n\r\nhi\r\n".into(),
        ))
        .with_status(201)
        .with_body(r#"{"id": 1, "name": "a\"b.txt", "size": 2}"#)
        .expect(1)
        .create_async()
        .await;
    let bytes = server
        .mock("GET", "/files/1")
        .match_header("accept", "*/*")
        .with_header("content-type", "application/pdf")
        .with_body(awkward_bytes())
        .expect(1)
        .create_async()
        .await;
    let ctrl = Controller::new(client);
    let form = Form::new().file("doc", "a\"b.txt", "text/plain", b"hi".to_vec());
    ctrl.fetch(&upload(), &(), Some(form.into_body()))
        .await
        .unwrap();
    let blob = ctrl
        .fetch(&file(), &FileParams { id: 1 }, None)
        .await
        .unwrap();
    assert_eq!(blob.bytes(), awkward_bytes());
    assert_eq!(blob.content_type(), Some("application/pdf"));
    sent.assert_async().await;
    bytes.assert_async().await;
}

#[tokio::test]
async fn a_server_render_shows_a_plain_img() {
    let ctrl = Controller::new(Client::new("http://127.0.0.1:9"));
    let props = restcache::yew::ImgProps {
        src: "/images/a.png".into(),
        alt: "A".into(),
        class: yew::classes!("wide"),
    };
    let html = restcache::testing::render::<restcache::yew::Img>(&ctrl, props)
        .await
        .unwrap();
    assert_eq!(html, r#"<img src="/images/a.png" alt="A" class="wide">"#);
}

#[tokio::test]
async fn an_endpoint_given_another_schema_reads_as_that_schema_says() {
    let (mut server, client) = server().await;
    let json = server
        .mock("GET", "/files/1")
        .match_header("accept", "application/json")
        .with_header("content-type", "application/json")
        .with_body(r#"{"a": 1}"#)
        .expect(1)
        .create_async()
        .await;
    let bytes = server
        .mock("GET", "/todos/1")
        .match_header("accept", "*/*")
        .with_header("content-type", "image/png")
        .with_body(awkward_bytes())
        .expect(1)
        .create_async()
        .await;
    let as_json = file().with_schema::<serde_json::Value>();
    let read = client.call(&as_json, &FileParams { id: 1 }, None).await;
    assert_eq!(read.unwrap(), serde_json::json!({"a": 1}));
    let as_bytes = crate::common::TodoResource::get().with_schema::<Blob>();
    let params = crate::common::TodoResourceParams { id: 1 };
    let blob = client.call(&as_bytes, &params, None).await.unwrap();
    assert_eq!(blob.bytes(), awkward_bytes());
    json.assert_async().await;
    bytes.assert_async().await;
}
