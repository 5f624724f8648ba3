//! Where a saved cache lives: the browser's `localStorage`, a file, or
//! memory.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Keeps saved caches, by name.
///
/// ```
/// use restcache::persist::{CacheStorage, MemoryStorage};
///
/// let storage = MemoryStorage::new();
/// storage.save("app", "{}")?;
/// assert_eq!(storage.load("app").as_deref(), Some("{}"));
/// storage.remove("app");
/// assert_eq!(storage.load("app"), None);
/// # Ok::<(), String>(())
/// ```
pub trait CacheStorage {
    /// The text saved under `name`, if any.
    fn load(&self, name: &str) -> Option<String>;
    /// Saves `text` under `name`, whole or not at all.
    fn save(&self, name: &str, text: &str) -> Result<(), String>;
    /// Forgets what is saved under `name`.
    fn remove(&self, name: &str);
}

/// Saved caches in memory: clones share them (a test's "reload").
#[derive(Clone, Debug, Default)]
pub struct MemoryStorage(Rc<RefCell<HashMap<String, String>>>);

impl MemoryStorage {
    /// Empty.
    ///
    /// ```
    /// use restcache::persist::{CacheStorage, MemoryStorage};
    /// assert_eq!(MemoryStorage::new().load("app"), None);
    /// ```
    pub fn new() -> Self {
        MemoryStorage::default()
    }
}

impl CacheStorage for MemoryStorage {
    fn load(&self, name: &str) -> Option<String> {
        self.0.borrow().get(name).cloned()
    }

    fn save(&self, name: &str, text: &str) -> Result<(), String> {
        self.0.borrow_mut().insert(name.to_owned(), text.to_owned());
        Ok(())
    }

    fn remove(&self, name: &str) {
        self.0.borrow_mut().remove(name);
    }
}

/// Saved caches as files in a folder (`restcache-NAME.json`, the name
/// escaped), for command-line tools and servers that keep a cache across
/// runs. A save writes a temporary file of its own, flushes it to disk
/// and renames it over the last, so a crash in the middle leaves the last
/// save whole. The folder is made readable by its owner alone.
///
/// ```
/// use restcache::persist::{CacheStorage, FileStorage};
///
/// let dir = std::env::temp_dir().join(format!("restcache-doc-{}", std::process::id()));
/// let storage = FileStorage::new(&dir);
/// storage.save("app", "{}")?;
/// assert_eq!(storage.load("app").as_deref(), Some("{}"));
/// storage.remove("app");
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), String>(())
/// ```
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Debug)]
pub struct FileStorage {
    dir: std::path::PathBuf,
}

#[cfg(not(target_arch = "wasm32"))]
impl FileStorage {
    /// Files in `dir` (made when first saved to).
    ///
    /// ```
    /// let storage = restcache::persist::FileStorage::new("cache");
    /// # let _ = storage;
    /// ```
    pub fn new(dir: impl Into<std::path::PathBuf>) -> Self {
        FileStorage { dir: dir.into() }
    }

    /// The file of `name`: lowercase letters, digits and `-` as they are,
    /// every other byte as `_` and two hex digits (so no two names share
    /// a file, whatever the file system's case rules).
    fn path(&self, name: &str) -> std::path::PathBuf {
        let mut file = String::from("restcache-");
        for byte in name.bytes() {
            match byte {
                b'a'..=b'z' | b'0'..=b'9' | b'-' => file.push(char::from(byte)),
                _ => file.push_str(&format!("_{byte:02x}")),
            }
        }
        file.push_str(".json");
        self.dir.join(file)
    }

    fn make_dir(&self) -> std::io::Result<()> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&self.dir)
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl CacheStorage for FileStorage {
    fn load(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.path(name)).ok()
    }

    fn save(&self, name: &str, text: &str) -> Result<(), String> {
        use std::io::Write;
        use std::sync::atomic::{AtomicU64, Ordering};

        static SERIAL: AtomicU64 = AtomicU64::new(0);
        self.make_dir().map_err(|e| e.to_string())?;
        let path = self.path(name);
        let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
        let partial = path.with_extension(format!("{}-{serial}.partial", std::process::id()));
        let written = (|| {
            let mut file = std::fs::File::create(&partial)?;
            file.write_all(text.as_bytes())?;
            file.sync_all()?;
            std::fs::rename(&partial, &path)?;
            // The rename itself, on disk.
            #[cfg(unix)]
            std::fs::File::open(&self.dir)?.sync_all()?;
            Ok::<(), std::io::Error>(())
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&partial);
        }
        written.map_err(|e| e.to_string())
    }

    fn remove(&self, name: &str) {
        let _ = std::fs::remove_file(self.path(name));
    }
}

/// Saved caches in the browser's `localStorage` (key `restcache:NAME`),
/// which writes each item whole.
#[cfg(target_arch = "wasm32")]
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalStorage;

#[cfg(target_arch = "wasm32")]
impl LocalStorage {
    fn storage() -> Option<web_sys::Storage> {
        web_sys::window()?.local_storage().ok().flatten()
    }
}

#[cfg(target_arch = "wasm32")]
impl CacheStorage for LocalStorage {
    fn load(&self, name: &str) -> Option<String> {
        LocalStorage::storage()?
            .get_item(&format!("restcache:{name}"))
            .ok()
            .flatten()
    }

    fn save(&self, name: &str, text: &str) -> Result<(), String> {
        let storage = LocalStorage::storage().ok_or("no localStorage")?;
        storage
            .set_item(&format!("restcache:{name}"), text)
            .map_err(|e| format!("localStorage refused: {e:?}"))
    }

    fn remove(&self, name: &str) {
        if let Some(storage) = LocalStorage::storage() {
            let _ = storage.remove_item(&format!("restcache:{name}"));
        }
    }
}

/// Where a cache is saved unless told: `localStorage` in a browser;
/// natively, files in the user's cache folder (`$XDG_CACHE_HOME`, else
/// `~/.cache`, or `%LOCALAPPDATA%`), under `restcache`.
pub(super) fn default_storage() -> Rc<dyn CacheStorage> {
    #[cfg(target_arch = "wasm32")]
    {
        Rc::new(LocalStorage)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let var = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
        let base = var("XDG_CACHE_HOME")
            .map(std::path::PathBuf::from)
            .or_else(|| var("HOME").map(|home| std::path::Path::new(&home).join(".cache")))
            .or_else(|| var("LOCALAPPDATA").map(std::path::PathBuf::from))
            .unwrap_or_else(std::env::temp_dir);
        Rc::new(FileStorage::new(base.join("restcache")))
    }
}
