//! One message of a live stream, and the standard form the library reads
//! on its own: a record set or deleted, named by its entity key.

use std::borrow::Cow;
use std::rc::Rc;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::cache::entity::Entity;
use crate::controller::Controller;
use crate::meta::Timestamp;

/// A message as it came off a live stream: its text, and its id when the
/// stream gave one (an SSE `id:` field; a websocket message's top-level
/// `"id"`). The stream remembers the last id to resume from it.
///
/// ```
/// use restcache::live::Message;
/// use restcache::Timestamp;
///
/// let message = Message::new(r#"{"op": "ping"}"#, Timestamp::from_millis(5));
/// assert_eq!(message.data(), r#"{"op": "ping"}"#);
/// assert_eq!(message.id(), None);
/// assert_eq!(message.received(), Timestamp::from_millis(5));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    data: String,
    id: Option<String>,
    event: Option<String>,
    received: Timestamp,
}

impl Message {
    /// A message of text `data`, received at `received` (a test's own
    /// message; streams make theirs).
    ///
    /// ```
    /// use restcache::live::Message;
    /// use restcache::Timestamp;
    /// assert_eq!(Message::new("hi", Timestamp::default()).data(), "hi");
    /// ```
    pub fn new(data: impl Into<String>, received: Timestamp) -> Self {
        Message {
            data: data.into(),
            id: None,
            event: None,
            received,
        }
    }

    /// This message with the id `id`.
    ///
    /// ```
    /// use restcache::live::Message;
    /// use restcache::Timestamp;
    /// assert_eq!(Message::new("hi", Timestamp::default()).with_id("7").id(), Some("7"));
    /// ```
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// This message with the SSE event name `event`.
    ///
    /// ```
    /// use restcache::live::Message;
    /// use restcache::Timestamp;
    /// let message = Message::new("hi", Timestamp::default()).with_event("todo");
    /// assert_eq!(message.event(), Some("todo"));
    /// ```
    pub fn with_event(mut self, event: impl Into<String>) -> Self {
        self.event = Some(event.into());
        self
    }

    /// The text.
    ///
    /// ```
    /// use restcache::live::Message;
    /// use restcache::Timestamp;
    /// assert_eq!(Message::new("hi", Timestamp::default()).data(), "hi");
    /// ```
    pub fn data(&self) -> &str {
        &self.data
    }

    /// Its id, if the stream gave one.
    ///
    /// ```
    /// use restcache::live::Message;
    /// use restcache::Timestamp;
    /// assert_eq!(Message::new("hi", Timestamp::default()).id(), None);
    /// ```
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// Its SSE event name (`event:`), if the server gave one.
    ///
    /// ```
    /// use restcache::live::Message;
    /// use restcache::Timestamp;
    /// assert_eq!(Message::new("hi", Timestamp::default()).event(), None);
    /// ```
    pub fn event(&self) -> Option<&str> {
        self.event.as_deref()
    }

    /// When it arrived, as the controller counts time
    /// ([`Controller::write_time`]): newer than every request started
    /// before it. The time to write its data at, unless the message says
    /// when its data was true.
    ///
    /// ```
    /// use restcache::live::Message;
    /// use restcache::Timestamp;
    /// assert_eq!(Message::new("hi", Timestamp::from_millis(9)).received(), Timestamp::from_millis(9));
    /// ```
    pub fn received(&self) -> Timestamp {
        self.received
    }
}

/// The standard message: `{"entity": "Todo", "op": "set", "data": {..}}`
/// or `{"entity": "Todo", "op": "delete", "pk": 3}`, with an optional
/// `"at"`: when the change was made, in milliseconds since the Unix epoch
/// (fractions allowed).
/// What the standard form made of a message.
pub(crate) enum Outcome {
    /// Written.
    Applied,
    /// Not a standard message.
    NotStandard(String),
    /// A standard message about an entity the stream was not told of.
    OtherEntity,
    /// A standard message about one of its entities that could not be
    /// written.
    Failed(String),
}

#[derive(Deserialize)]
pub(crate) struct StandardMessage<'a> {
    #[serde(borrow)]
    entity: Cow<'a, str>,
    op: Op,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
    #[serde(default)]
    pk: Option<serde_json::Value>,
    #[serde(default)]
    at: Option<f64>,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Op {
    Set,
    Delete,
}

/// Writes a standard message about one entity type into the cache;
/// each of `joins` places a record the cache did not hold in the lists
/// it joins.
pub(crate) type Apply =
    fn(&Controller, &StandardMessage<'_>, Timestamp, &[Join]) -> Result<(), String>;

/// Places a record new to the cache (an `Rc` of its entity type),
/// written as of a time, in the cached lists it joins.
pub(crate) type Join =
    Rc<dyn Fn(&Controller, Rc<dyn std::any::Any>, Timestamp) -> Result<(), String>>;

/// The entity types a stream reads standard messages for: key, writer,
/// and what places their new records in lists.
#[derive(Clone, Default)]
pub(crate) struct Entities(Vec<(&'static str, Apply, Vec<Join>)>);

impl Entities {
    pub fn add<E: Entity + DeserializeOwned>(&mut self) {
        if !self.0.iter().any(|(key, ..)| *key == E::KEY) {
            self.0.push((E::KEY, apply::<E>, Vec::new()));
        }
    }

    /// Reads messages about `E`, its new records placed in lists by
    /// `join` too (beside the joins given before: several creates).
    pub fn add_joining<E: Entity + DeserializeOwned>(&mut self, join: Join) {
        self.add::<E>();
        if let Some(entry) = self.0.iter_mut().find(|(key, ..)| *key == E::KEY) {
            entry.2.push(join);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Reads `message` as a standard one and writes it.
    pub fn apply(&self, controller: &Controller, message: &Message) -> Outcome {
        let standard = match serde_json::from_str::<StandardMessage<'_>>(message.data()) {
            Ok(standard) => standard,
            Err(error) => return Outcome::NotStandard(format!("not a standard message ({error})")),
        };
        let Some((_, apply, joins)) = self.0.iter().find(|(key, ..)| *key == standard.entity)
        else {
            return Outcome::OtherEntity;
        };
        // Never later than its arrival: a server's clock ahead of ours
        // must not date a record in the future.
        let at = match standard.at {
            Some(millis) if millis.is_finite() && millis >= 0.0 => {
                Timestamp::from_micros((millis * 1_000.0) as u64).min(message.received())
            }
            Some(_) => return Outcome::Failed("`at` is not a time".into()),
            None => message.received(),
        };
        match apply(controller, &standard, at, joins) {
            Ok(()) => Outcome::Applied,
            Err(error) => Outcome::Failed(error),
        }
    }
}

fn apply<E: Entity + DeserializeOwned>(
    controller: &Controller,
    message: &StandardMessage<'_>,
    at: Timestamp,
    joins: &[Join],
) -> Result<(), String> {
    match message.op {
        Op::Set => {
            let data = message
                .data
                .ok_or_else(|| format!("a `set` of {} has no `data`", E::KEY))?;
            // Fields the message leaves out keep their stored values.
            let record = crate::cache::schema::from_json::<Rc<E>>(data.get())
                .map_err(|e| format!("a `set` of {}: {e}", E::KEY))?;
            let pk = record.pk();
            let new = pk.as_ref().is_some_and(|pk| {
                !controller.with_store(|store| store.get_entity::<E>(pk).value().is_some())
            });
            // With no stored copy, nothing fills them: the record is left
            // for the next fetch, not written with blank fields.
            if new && pk.is_some_and(|pk| record.leaves_out::<E>(&pk)) {
                return Ok(());
            }
            let stored = controller
                .set_decoded_entity(record, at)
                .map_err(|e| e.to_string())?;
            if !new {
                return Ok(());
            }
            let stored: Rc<dyn std::any::Any> = stored;
            joins
                .iter()
                .try_for_each(|join| join(controller, Rc::clone(&stored), at))
        }
        Op::Delete => {
            let pk = match &message.pk {
                Some(serde_json::Value::String(pk)) => pk.clone(),
                Some(serde_json::Value::Number(pk)) => pk.to_string(),
                _ => return Err(format!("a `delete` of {} has no `pk`", E::KEY)),
            };
            controller.delete_entity::<E>(pk, at);
            Ok(())
        }
    }
}
