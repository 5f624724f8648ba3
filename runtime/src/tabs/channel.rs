//! How tabs talk: a `BroadcastChannel` in the browser, memory natively,
//! or a channel of the app's own.

use std::any::Any;
use std::cell::RefCell;
use std::rc::{Rc, Weak};

/// What hears another tab's message.
///
/// ```
/// let listener: &restcache::tabs::Listener = &|text: &str| assert!(!text.is_empty());
/// listener("hello");
/// ```
pub type Listener = dyn Fn(&str);

/// Hears another tab's message.
///
/// ```
/// use std::rc::Rc;
/// let on_message: restcache::tabs::OnMessage = Rc::new(|text: &str| assert_eq!(text, "hi"));
/// on_message("hi");
/// ```
pub type OnMessage = Rc<Listener>;

/// A channel between the tabs of an app: what one posts, every other
/// listener hears (not the one that posted it).
///
/// ```
/// use restcache::tabs::{LocalChannel, TabChannel};
/// use std::{cell::RefCell, rc::Rc};
///
/// let channel = LocalChannel::new();
/// let heard = Rc::new(RefCell::new(Vec::new()));
/// let log = Rc::clone(&heard);
/// let _listening = channel.listen(Rc::new(move |text: &str| log.borrow_mut().push(text.to_owned())));
/// channel.clone().post("hello");
/// assert_eq!(*heard.borrow(), ["hello"]);
/// ```
pub trait TabChannel {
    /// Sends `message` to the other tabs.
    fn post(&self, message: &str);

    /// Calls `on_message` with each message another tab posts, until the
    /// returned value is dropped.
    fn listen(&self, on_message: OnMessage) -> Box<dyn Any>;
}

/// A channel in memory: clones are the tabs of one channel, each hears
/// what the others post (at once, in order). For tests, and for the
/// windows of a native app.
#[derive(Default)]
pub struct LocalChannel {
    bus: Rc<RefCell<Bus>>,
    /// Which listener this clone is, once it listens: its own posts do
    /// not come back to it.
    me: Rc<RefCell<Option<u64>>>,
}

#[derive(Default)]
struct Bus {
    next: u64,
    listeners: Vec<(u64, Weak<Listener>)>,
}

impl std::fmt::Debug for LocalChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalChannel").finish_non_exhaustive()
    }
}

impl LocalChannel {
    /// A channel of its own.
    ///
    /// ```
    /// let channel = restcache::tabs::LocalChannel::new();
    /// # let _ = channel;
    /// ```
    pub fn new() -> Self {
        LocalChannel::default()
    }
}

/// Another tab on the same channel.
impl Clone for LocalChannel {
    fn clone(&self) -> Self {
        LocalChannel {
            bus: Rc::clone(&self.bus),
            me: Rc::default(),
        }
    }
}

impl TabChannel for LocalChannel {
    fn post(&self, message: &str) {
        let me = *self.me.borrow();
        let listeners: Vec<OnMessage> = {
            let mut bus = self.bus.borrow_mut();
            bus.listeners
                .retain(|(_, listener)| listener.strong_count() > 0);
            bus.listeners
                .iter()
                .filter(|(id, _)| Some(*id) != me)
                .filter_map(|(_, listener)| listener.upgrade())
                .collect()
        };
        // Outside the borrow: a listener may post in turn.
        for listener in listeners {
            listener(message);
        }
    }

    fn listen(&self, on_message: OnMessage) -> Box<dyn Any> {
        let mut bus = self.bus.borrow_mut();
        bus.next += 1;
        let id = bus.next;
        bus.listeners.push((id, Rc::downgrade(&on_message)));
        *self.me.borrow_mut() = Some(id);
        Box::new(on_message)
    }
}

/// The channel of the tabs named `name`: a `BroadcastChannel` in a
/// browser, natively a [`LocalChannel`] shared by the controllers of this
/// thread.
pub(super) fn named(name: &str) -> Rc<dyn TabChannel> {
    #[cfg(target_arch = "wasm32")]
    {
        if let Some(channel) = browser::Broadcast::open(name) {
            return Rc::new(channel);
        }
        Rc::new(LocalChannel::new())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        thread_local! {
            static BY_NAME: RefCell<std::collections::HashMap<String, LocalChannel>> =
                RefCell::default();
        }
        let channel = BY_NAME.with(|channels| {
            channels
                .borrow_mut()
                .entry(name.to_owned())
                .or_default()
                .clone()
        });
        Rc::new(channel)
    }
}

#[cfg(target_arch = "wasm32")]
mod browser {
    use std::any::Any;

    use gloo_events::EventListener;
    use wasm_bindgen::JsCast;

    use super::{OnMessage, TabChannel};

    /// A `BroadcastChannel`: every other tab (and every other channel
    /// object of the name in this one) hears its posts.
    pub struct Broadcast(web_sys::BroadcastChannel);

    impl Broadcast {
        pub fn open(name: &str) -> Option<Broadcast> {
            web_sys::BroadcastChannel::new(name).ok().map(Broadcast)
        }
    }

    impl Drop for Broadcast {
        fn drop(&mut self) {
            self.0.close();
        }
    }

    impl TabChannel for Broadcast {
        fn post(&self, message: &str) {
            let _ = self.0.post_message(&message.into());
        }

        fn listen(&self, on_message: OnMessage) -> Box<dyn Any> {
            Box::new(EventListener::new(&self.0, "message", move |event| {
                let text = event
                    .dyn_ref::<web_sys::MessageEvent>()
                    .and_then(|event| event.data().as_string());
                if let Some(text) = text {
                    on_message(&text);
                }
            }))
        }
    }
}
