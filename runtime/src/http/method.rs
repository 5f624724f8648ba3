//! HTTP methods, and the request a fetch function makes.

use std::fmt;

use super::Body;

/// An HTTP method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET`
    Get,
    /// `POST`
    Post,
    /// `PUT`
    Put,
    /// `PATCH`
    Patch,
    /// `DELETE`
    Delete,
}

impl Method {
    /// The method as HTTP spells it: `"GET"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }

    /// The lowercase name the shared fetch helper takes: `"get"`.
    pub const fn lowercase(self) -> &'static str {
        match self {
            Method::Get => "get",
            Method::Post => "post",
            Method::Put => "put",
            Method::Patch => "patch",
            Method::Delete => "delete",
        }
    }

    /// The method named `name`, in any case.
    ///
    /// ```
    /// use restcache::rest::Method;
    /// assert_eq!(Method::from_name("post"), Some(Method::Post));
    /// assert_eq!(Method::from_name("BREW"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Method> {
        [
            Method::Get,
            Method::Post,
            Method::Put,
            Method::Patch,
            Method::Delete,
        ]
        .into_iter()
        .find(|m| m.as_str().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One request to make: what an endpoint's fetch function is asked for.
#[derive(Debug, Clone)]
pub struct Request {
    /// The method.
    pub method: Method,
    /// The full URL.
    pub url: String,
    /// The body, if the call has one.
    pub body: Option<Body>,
}
