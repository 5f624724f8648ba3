//! One connection of a live stream, either protocol: server-sent events
//! read from a streamed `GET` body, or a websocket. Natively both go
//! through reqwest (the websocket upgraded by tungstenite); in the
//! browser, through `fetch`'s body stream and the browser's `WebSocket`.

use std::cell::Cell;
use std::rc::Rc;

use eventsource_stream::Eventsource;
use futures_util::stream::LocalBoxStream;
use futures_util::{SinkExt, StreamExt};
use reqwest::header::{ACCEPT, HeaderValue};
use reqwest_websocket::Upgrade;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::Protocol;
use super::message::Message;
use crate::controller::Controller;

/// An open connection, and how many signs of life it gave: chunks of a
/// body (an SSE comment such as `: ping` is one, though no message), or
/// websocket frames (pings too).
pub(crate) struct Connection {
    protocol: Opened,
    heard: Rc<Cell<u64>>,
}

enum Opened {
    Events(LocalBoxStream<'static, Result<eventsource_stream::Event, String>>),
    Socket(Box<reqwest_websocket::WebSocket>),
}

/// Why a connection did not open.
pub(crate) enum ConnectError {
    /// No connection now: trying again later may work.
    Failed(String),
    /// The server refused the request with a status a retry does not
    /// change (a `4xx` other than `408` and `429`: signed out, no right,
    /// no such stream).
    Refused(crate::http::Error),
}

impl From<String> for ConnectError {
    fn from(failure: String) -> Self {
        ConnectError::Failed(failure)
    }
}

/// `Some` refusal when `status` is one a retry does not change.
fn refusal(url: &str, status: reqwest::StatusCode) -> Option<ConnectError> {
    let refuses = status.is_client_error() && !matches!(status.as_u16(), 408 | 429);
    refuses.then(|| {
        let status = status.as_u16();
        let error = crate::http::Error::http_status(crate::http::Method::Get, url, status, "");
        ConnectError::Refused(error)
    })
}

/// Connects to `url`, resuming after `last_id` (sent as `Last-Event-ID`
/// for server-sent events; a websocket resumes through its opening
/// message). The client's header hook is applied (browsers send no
/// headers of ours with a websocket).
pub(crate) async fn connect(
    controller: &Controller,
    protocol: Protocol,
    url: &str,
    last_id: Option<&str>,
) -> Result<Connection, ConnectError> {
    let client = controller.client();
    let mut headers = client.hook_headers();
    let http = http_client()?;
    match protocol {
        Protocol::ServerSentEvents => {
            headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
            if let Some(id) = last_id.and_then(|id| HeaderValue::from_str(id).ok()) {
                headers.insert("last-event-id", id);
            }
            let response = http
                .get(url)
                .headers(headers)
                .send()
                .await
                .map_err(|e| format!("no connection: {e}"))?;
            let status = response.status();
            if let Some(refused) = refusal(url, status) {
                return Err(refused);
            }
            if !status.is_success() {
                return Err(format!("the server answered {status}").into());
            }
            // 204 (the server has no stream to give), or another kind of
            // body (a page, JSON): no stream of events.
            let kind = response.headers().get(reqwest::header::CONTENT_TYPE);
            let events = kind
                .and_then(|kind| kind.to_str().ok())
                .is_some_and(|kind| kind.trim_start().starts_with("text/event-stream"));
            if status == reqwest::StatusCode::NO_CONTENT || !events {
                let kind = kind
                    .and_then(|kind| kind.to_str().ok())
                    .unwrap_or("no body");
                return Err(format!(
                    "the server answered {status} with {kind}, not a stream of events"
                )
                .into());
            }
            let heard = Rc::new(Cell::new(0));
            let counted = Rc::clone(&heard);
            let chunks = response
                .bytes_stream()
                .inspect(move |_| counted.set(counted.get() + 1));
            let events = lossy_utf8(chunks)
                .eventsource()
                .map(|event| event.map_err(|e| format!("the stream broke: {e}")));
            let protocol = Opened::Events(events.boxed_local());
            Ok(Connection { protocol, heard })
        }
        Protocol::WebSocket => {
            let answer = http
                .get(url)
                .headers(headers)
                .upgrade()
                .send()
                .await
                .map_err(|e| format!("no connection: {e}"))?;
            // A browser does not tell a refused handshake's status.
            #[cfg(not(target_arch = "wasm32"))]
            if let Some(refused) = refusal(url, answer.status()) {
                return Err(refused);
            }
            let socket = answer
                .into_websocket()
                .await
                .map_err(|e| format!("no websocket: {e}"))?;
            let protocol = Opened::Socket(Box::new(socket));
            Ok(Connection {
                protocol,
                heard: Rc::default(),
            })
        }
    }
}

/// The chunks of a body as UTF-8 text, each sequence of bytes that is not
/// UTF-8 read as U+FFFD, as a browser's `EventSource` reads it (the event
/// parser would wait for valid text forever after one stray byte). A
/// character split between chunks waits for the rest of its bytes.
fn lossy_utf8<B: AsRef<[u8]>, E>(
    chunks: impl futures_util::Stream<Item = Result<B, E>>,
) -> impl futures_util::Stream<Item = Result<String, E>> {
    let mut split = Vec::new();
    chunks.map(move |chunk| {
        let chunk = chunk?;
        split.extend_from_slice(chunk.as_ref());
        let mut text = String::with_capacity(split.len());
        let mut rest = split.as_slice();
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    text.push_str(valid);
                    rest = &[];
                    break;
                }
                Err(error) => {
                    let (valid, after) = rest.split_at(error.valid_up_to());
                    text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match error.error_len() {
                        Some(stray) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            rest = &after[stray..];
                        }
                        // A character the next chunk ends.
                        None => {
                            rest = after;
                            break;
                        }
                    }
                }
            }
        }
        split = rest.to_vec();
        Ok(text)
    })
}

#[cfg(not(target_arch = "wasm32"))]
fn http_client() -> Result<reqwest::Client, String> {
    // A websocket upgrade needs HTTP/1.1.
    reqwest::Client::builder()
        .http1_only()
        .build()
        .map_err(|e| e.to_string())
}

#[cfg(target_arch = "wasm32")]
fn http_client() -> Result<reqwest::Client, String> {
    Ok(reqwest::Client::new())
}

/// What came off a connection.
pub(crate) enum Next {
    /// A message.
    Message(Message),
    /// A frame that is no message (a binary frame that is not text): the
    /// connection goes on.
    Rejected(String),
    /// The connection broke.
    Broken(String),
}

impl Connection {
    /// What comes next; `None` once the server closed the connection.
    pub async fn next(&mut self, controller: &Controller) -> Option<Next> {
        match &mut self.protocol {
            Opened::Events(events) => {
                let event = match events.next().await? {
                    Ok(event) => event,
                    Err(error) => return Some(Next::Broken(error)),
                };
                let mut message = Message::new(event.data, controller.write_time());
                if !event.id.is_empty() {
                    message = message.with_id(event.id);
                }
                if !event.event.is_empty() && event.event != "message" {
                    message = message.with_event(event.event);
                }
                Some(Next::Message(message))
            }
            Opened::Socket(socket) => loop {
                let frame = socket.next().await?;
                self.heard.set(self.heard.get() + 1);
                let text = match frame {
                    Ok(reqwest_websocket::Message::Text(text)) => text,
                    Ok(reqwest_websocket::Message::Binary(bytes)) => {
                        match String::from_utf8(bytes.to_vec()) {
                            Ok(text) => text,
                            Err(_) => {
                                let problem = "a binary frame that is not UTF-8 text";
                                return Some(Next::Rejected(problem.into()));
                            }
                        }
                    }
                    Ok(reqwest_websocket::Message::Close { .. }) => return None,
                    Ok(_) => continue,
                    Err(error) => return Some(Next::Broken(format!("the socket broke: {error}"))),
                };
                let id = socket_message_id(&text);
                let mut message = Message::new(text, controller.write_time());
                if let Some(id) = id {
                    message = message.with_id(id);
                }
                return Some(Next::Message(message));
            },
        }
    }

    /// How many signs of life the connection gave so far.
    pub fn heard(&self) -> u64 {
        self.heard.get()
    }

    /// Sends `text` (a websocket's opening message); server-sent events
    /// go one way, so there it is an error.
    pub async fn send(&mut self, text: String) -> Result<(), String> {
        match &mut self.protocol {
            Opened::Events(_) => Err("server-sent events cannot send".into()),
            Opened::Socket(socket) => socket
                .send(reqwest_websocket::Message::Text(text))
                .await
                .map_err(|e| format!("the socket broke: {e}")),
        }
    }
}

/// A websocket message's top-level `"id"` (a string, or a number read as
/// its text), if it is a JSON object that has one.
fn socket_message_id(text: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(borrow, default)]
        id: Option<&'a RawValue>,
    }
    let id = serde_json::from_str::<Head<'_>>(text).ok()?.id?;
    match serde_json::from_str::<String>(id.get()) {
        Ok(text) => Some(text),
        Err(_) => Some(id.get().to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use futures_util::StreamExt;

    use super::lossy_utf8;

    fn read(chunks: &[&[u8]]) -> Vec<String> {
        let chunks = chunks.iter().map(|chunk| Ok::<_, ()>(chunk.to_vec()));
        let texts = lossy_utf8(futures_util::stream::iter(chunks)).collect::<Vec<_>>();
        let texts = futures_util::FutureExt::now_or_never(texts).unwrap();
        texts.into_iter().map(Result::unwrap).collect()
    }

    #[test]
    fn a_character_split_between_chunks_waits_for_its_rest() {
        let cafe = "café ☕".as_bytes();
        let (first, second) = cafe.split_at(4); // inside `é`
        let (second, third) = second.split_at(3); // inside `☕`
        assert_eq!(read(&[first, second, third]), ["caf", "é ", "☕"]);
    }

    #[test]
    fn bytes_that_are_not_utf8_read_as_replacement_characters() {
        assert_eq!(
            read(&[b"caf\xE9!", b"\xFF\xFEok"]),
            ["caf\u{FFFD}!", "\u{FFFD}\u{FFFD}ok"]
        );
    }
}
