//! Where the app is: whose todos and which profile card show. A view
//! lives in the page's address (`?user=2&profile=1`), so every view is a
//! link that works without the app, a reload keeps it, and Back returns
//! to the one before.

use yew::{AttrValue, Callback};

/// A place in the app: whose todos and which profile card.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub user: u64,
    /// A profile's id as the API writes it (`"1"`).
    pub profile: AttrValue,
}

impl Default for View {
    /// The first person's todos and the first profile.
    fn default() -> Self {
        View {
            user: 1,
            profile: "1".into(),
        }
    }
}

impl View {
    /// The view a query string names (with or without its `?`); what it
    /// leaves out or gets wrong falls back to the default view's.
    ///
    /// ```
    /// use restcache_todo_app::view::View;
    ///
    /// let view = View::from_query("?user=2&profile=abc&other=1");
    /// assert_eq!((view.user, view.profile.as_str()), (2, "abc"));
    /// assert_eq!(View::from_query("user=x&profile=%3C"), View::default());
    /// ```
    pub fn from_query(query: &str) -> View {
        let mut view = View::default();
        for pair in query.trim_start_matches('?').split('&') {
            let is_id = |id: &str| !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric());
            match pair.split_once('=') {
                Some(("user", user)) => view.user = user.parse().unwrap_or(view.user),
                Some(("profile", id)) if is_id(id) => view.profile = id.to_owned().into(),
                _ => {}
            }
        }
        view
    }

    /// The address of this view, relative to the page.
    ///
    /// ```
    /// use restcache_todo_app::view::View;
    ///
    /// assert_eq!(View::default().href(), "?user=1&profile=1");
    /// ```
    pub fn href(&self) -> String {
        format!("?user={}&profile={}", self.user, self.profile)
    }
}

/// Puts `view` in the address bar, as a new history entry.
pub fn push(view: &View) {
    #[cfg(target_arch = "wasm32")]
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let href = view.href();
        let _ = history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&href));
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = view;
}

/// The view of the page's address now.
pub fn current() -> View {
    #[cfg(target_arch = "wasm32")]
    if let Some(search) = web_sys::window().and_then(|w| w.location().search().ok()) {
        return View::from_query(&search);
    }
    View::default()
}

/// Calls `show` with the page's view each time Back or Forward changes
/// the address; the returned function stops listening.
pub fn on_history(show: Callback<View>) -> impl FnOnce() {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::JsCast;
        use wasm_bindgen::closure::Closure;

        let listener = Closure::<dyn Fn()>::new(move || show.emit(current()));
        let window = web_sys::window();
        if let Some(window) = &window {
            let _ = window
                .add_event_listener_with_callback("popstate", listener.as_ref().unchecked_ref());
        }
        move || {
            if let Some(window) = window {
                let _ = window.remove_event_listener_with_callback(
                    "popstate",
                    listener.as_ref().unchecked_ref(),
                );
            }
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = show;
        || {}
    }
}
