//! How an endpoint's reads are answered beside its request: from a record
//! the cache holds (inference), and what its errors do to the data on show
//! (its error policy).

use serde::Serialize;

use super::Endpoint;
use crate::http::{Error, Method};
use crate::pk::Pk;
use crate::rest::effect::{Action, Effect};
use crate::rest::{ErrorPolicy, ErrorPolicyFn};

impl<P, S, E: Effect> Endpoint<P, S, E> {
    /// This endpoint without inference: a read whose result the cache does
    /// not hold is fetched, even when the cache holds the record its params
    /// name. By default a `GET` of one record (`Rc<E>`) whose params hold
    /// its pk (the field named as the entity's pk, e.g. `id`) is answered
    /// from the cached record, as when a list fetched it: no request, the
    /// list's own copy, expiring with the record. Opt out when the params
    /// do not name the record (a `/me` read keyed by a token, say).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use std::rc::Rc;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64, title: String }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// let ctrl = Controller::new(Client::new("http://127.0.0.1:8080"));
    /// let list = vec![Rc::new(Todo { id: 1, title: "milk".into() })];
    /// ctrl.set_response(&TodoResource::get_list(), &(), list)?;
    /// let params = TodoResourceParams { id: 1 };
    /// assert_eq!(ctrl.read(&TodoResource::get(), &params).status, ExpiryStatus::Valid);
    /// let fetched = TodoResource::get().without_inference();
    /// assert!(!fetched.infers());
    /// assert_eq!(ctrl.read(&fetched, &params).status, ExpiryStatus::Invalid);
    /// # Ok::<(), restcache::WriteError>(())
    /// ```
    pub fn without_inference(mut self) -> Self {
        self.infer = false;
        self
    }

    /// This endpoint with the record it reads named by the param `param`
    /// (a resource's detail: its path's last placeholder, whatever the
    /// entity calls its pk).
    pub(crate) fn naming_record_by(mut self, param: &'static str) -> Self {
        self.record_param = Some(param);
        self
    }

    /// This endpoint with its own error policy: `policy` decides, for each
    /// error a read of it gets, whether the data on show stays (soft) or
    /// the error takes its place (hard). By default
    /// ([`ErrorPolicy::by_kind`]) a 5xx, no response and a timeout are soft,
    /// a 4xx and a body that does not decode are hard.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::http::Error;
    /// use restcache::rest::ErrorPolicy;
    ///
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    ///
    /// // A feed that a 404 or a 429 must not blank: keep what is on show.
    /// fn keep_on_show(_: &Error) -> ErrorPolicy { ErrorPolicy::Soft }
    /// let feed = TodoResource::get_list().with_error_policy(keep_on_show);
    /// let gone = Error::http_status(Method::Get, "http://h/todos", 404, "");
    /// assert_eq!(feed.error_policy(&gone), ErrorPolicy::Soft);
    /// assert_eq!(TodoResource::get_list().error_policy(&gone), ErrorPolicy::Hard);
    /// ```
    pub fn with_error_policy(mut self, policy: ErrorPolicyFn) -> Self {
        self.error_policy = policy;
        self
    }

    /// The policy of `error`, got by a read of this endpoint (see
    /// [`with_error_policy`](Self::with_error_policy)).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::http::Error;
    /// use restcache::rest::ErrorPolicy;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// let down = Error::http_status(Method::Get, "http://h/todos", 503, "");
    /// assert_eq!(TodoResource::get_list().error_policy(&down), ErrorPolicy::Soft);
    /// ```
    pub fn error_policy(&self, error: &Error) -> ErrorPolicy {
        (self.error_policy)(error)
    }

    /// Whether a read of a record the cache holds is answered from it
    /// (see [`without_inference`](Self::without_inference)).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// assert!(TodoResource::get().infers());
    /// ```
    pub fn infers(&self) -> bool {
        self.infer
    }

    /// This endpoint with private answers: a cache saved for the next
    /// load (see [`persist`](crate::persist), feature `persist`) keeps
    /// none of its responses, nor any record one of them holds (even one
    /// another read holds too). What it answers still shows, is shared
    /// by the reads that hold it, reaches the page a server renders and
    /// the app's other tabs ([`tabs`](crate::tabs)), which keep it out of
    /// their own saves too.
    /// In `resource!` and `endpoint!`, `private: true`.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Account { id: u64, iban: String }
    /// resource!(pub AccountResource { path: "/accounts/:id", schema: Account, private: true });
    /// assert!(AccountResource::get().is_private());
    /// assert!(AccountResource::get().without_inference().is_private());
    /// ```
    pub fn private(mut self) -> Self {
        self.private = true;
        self
    }

    /// Whether its answers stay out of a saved cache (see
    /// [`private`](Self::private)).
    ///
    /// ```
    /// use restcache::prelude::*;
    /// #[derive(Entity, Clone, Debug, Default, Serialize, Deserialize)]
    /// struct Todo { id: u64 }
    /// resource!(pub TodoResource { path: "/todos/:id", schema: Todo });
    /// assert!(!TodoResource::get_list().is_private());
    /// assert!(TodoResource::get_list().private().is_private());
    /// ```
    pub fn is_private(&self) -> bool {
        self.private
    }

    /// The pks the record a read of `params` names may have, when the
    /// read may be answered from a cached record: a `GET` of one record
    /// whose params hold the entity's pk field. A text param that is a
    /// number as a pk writes it (`"3"`) names that number's record;
    /// `"03"` and `"+3"` name records of their own.
    pub(crate) fn named_pks(&self, params: &P) -> smallvec::SmallVec<[Pk; 2]>
    where
        P: Serialize,
        S: crate::cache::schema::Schema,
    {
        let mut pks = smallvec::SmallVec::new();
        let Some((_, field)) = <S as crate::cache::schema::SchemaParts>::RECORD else {
            return pks;
        };
        if !self.infer || E::ACTION != Action::Read || self.method != Method::Get {
            return pks;
        }
        let field = match (self.record_param, &self.address) {
            (Some(param), _) => param,
            // A placeholder before the path's last segment names a record
            // above this one (`/users/:id/posts/:post_id`, `/todos/:id/owner`).
            (None, super::Address::Path(path))
                if path.params().any(|p| p == field) && !path.in_last_segment(field) =>
            {
                return pks;
            }
            (None, _) => field,
        };
        match crate::rest::fields::field_of(params, field) {
            Some(serde_json::Value::Number(n)) => pks.extend(n.as_u64().map(Pk::from)),
            // Text that reads as a canonical number (`"7"`) is that
            // number's pk already; `"07"` and `"+7"` name other records.
            Some(serde_json::Value::String(text)) => pks.push(Pk::from(text.as_str())),
            _ => {}
        }
        pks
    }
}
