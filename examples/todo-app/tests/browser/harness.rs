//! What the tests share: the running app (demo API, page server,
//! chromedriver, a browser session) and a look at the page.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use restcache_demo::DemoApi;
use restcache_todo_app::server::{BUNDLE_FILES, Settings, router};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::oneshot;

/// How long a step may take before the test gives up on it.
const PATIENCE: Duration = Duration::from_secs(30);

/// The app running for one test, and a browser on it.
pub struct Running {
    pub api: DemoApi,
    /// The page's address, `http://127.0.0.1:PORT/`.
    pub url: String,
    pub browser: Client,
    stop: Option<oneshot::Sender<()>>,
    _driver: Driver,
}

impl Running {
    /// Runs `test` on a running app, then closes the browser and stops
    /// the servers, whether the test passed or panicked (a panic goes on
    /// once they are stopped).
    pub async fn test<F, Fut>(test: F)
    where
        F: FnOnce(Arc<Running>) -> Fut,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let app = Arc::new(Running::start().await);
        let outcome = tokio::spawn(test(Arc::clone(&app))).await;
        let app = Arc::into_inner(app).expect("the test let go of the app");
        app.stop().await;
        if let Err(failed) = outcome {
            std::panic::resume_unwind(failed.into_panic());
        }
    }

    /// Starts the demo API, the page server (with the bundle of
    /// `TODO_APP_BUNDLE`), chromedriver and a headless browser.
    async fn start() -> Running {
        let bundle = std::env::var_os("TODO_APP_BUNDLE")
            .map(PathBuf::from)
            .expect(
                "TODO_APP_BUNDLE names the bundle's folder (scripts/todo-app.sh --build prints it)",
            );
        for (file, _) in BUNDLE_FILES {
            assert!(
                bundle.join(file).is_file(),
                "no {file} in {} (TODO_APP_BUNDLE, from {})",
                bundle.display(),
                std::env::current_dir().unwrap().display()
            );
        }
        let api = DemoApi::start().expect("the demo API starts");
        let settings = Settings {
            api: api.url().to_owned(),
            bundle: Some(bundle),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port");
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            axum::serve(listener, router(settings))
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
        });
        let driver = Driver::start();
        let browser = driver.session().await;
        Running {
            api,
            url,
            browser,
            stop: Some(stop),
            _driver: driver,
        }
    }

    /// Opens `path` (e.g. `?profile=3`) and waits until the app has
    /// hydrated the page.
    pub async fn open(&self, path: &str) {
        let url = format!("{}{path}", self.url);
        self.browser.goto(&url).await.expect("the page opens");
        self.until("the app hydrates the page", |page| page.hydrated)
            .await;
    }

    /// The page as it is now.
    pub async fn page(&self) -> Page {
        let look = self
            .browser
            .execute(LOOK, vec![json!(self.api.url())])
            .await
            .expect("the page answers a script");
        serde_json::from_value(look).expect("the look at the page has its fields")
    }

    /// Waits until the page shows what `shown` looks for, and returns
    /// that look; gives up (with the last look) after a while.
    pub async fn until(&self, what: &str, shown: impl Fn(&Page) -> bool) -> Page {
        let started = Instant::now();
        loop {
            let page = self.page().await;
            if shown(&page) {
                return page;
            }
            assert!(
                started.elapsed() < PATIENCE,
                "gave up waiting until {what}; the page: {page:#?}\nits requests: {}",
                self.requests().await
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// The requests the page made: address and status, as JSON.
    pub async fn requests(&self) -> String {
        let script = "return JSON.stringify(performance.getEntriesByType('resource')\
                      .map((e) => [e.name, e.responseStatus]));";
        match self.browser.execute(script, vec![]).await {
            Ok(list) => list.to_string(),
            Err(error) => format!("unknown ({error})"),
        }
    }

    /// Waits until `happened` holds of the demo API (its counts, its
    /// switches).
    pub async fn until_api(&self, what: &str, happened: impl Fn(&DemoApi) -> bool) {
        let started = Instant::now();
        while !happened(&self.api) {
            assert!(started.elapsed() < PATIENCE, "gave up waiting until {what}");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// Creates a record in `collection` of the demo API, as another
    /// client would (the page knows nothing of it).
    pub async fn create(&self, collection: &str, record: serde_json::Value) {
        let created = reqwest::Client::new()
            .post(format!("{}/{collection}", self.api.url()))
            .header("content-type", "application/json")
            .body(record.to_string())
            .send()
            .await
            .expect("the demo API answers");
        assert_eq!(created.status(), 201, "{collection} takes the record");
    }

    /// Creates profile 3, which the sidebar's broken link points at.
    pub async fn create_profile_3(&self) {
        let turing = json!({"fullName": "Alan Turing", "bio": "Asked whether machines can think."});
        self.create("profiles", turing).await;
    }

    /// Clicks the element `css` finds.
    pub async fn click(&self, css: &str) {
        self.find(css).await.click().await.expect("a click");
    }

    /// The element `css` finds.
    pub async fn find(&self, css: &str) -> fantoccini::elements::Element {
        self.browser
            .find(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no {css} on the page: {e}"))
    }

    /// Clicks the link or button whose text is `text`.
    pub async fn click_text(&self, text: &str) {
        let xpath = format!("//*[(self::a or self::button) and normalize-space()='{text}']");
        self.browser
            .find(Locator::XPath(&xpath))
            .await
            .unwrap_or_else(|e| panic!("no link or button `{text}`: {e}"))
            .click()
            .await
            .expect("a click");
    }

    /// Saves a screenshot of the page as `name`.png in the tests' output
    /// folder, and returns its path.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.browser.screenshot().await.expect("a screenshot");
        let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.png"));
        std::fs::write(&path, png).expect("the screenshot is saved");
        println!("screenshot: {}", path.display());
        path
    }

    /// Tells the page the network is lost (`offline`) or back (`online`),
    /// the events a browser fires when it is. (Chromium's own network
    /// emulation, through chromedriver, is lifted around a navigation,
    /// so a page going away while emulated offline hears `online` first.)
    pub async fn network_event(&self, online: bool) {
        let event = if online { "online" } else { "offline" };
        self.browser
            .execute(
                "window.dispatchEvent(new Event(arguments[0]));",
                vec![json!(event)],
            )
            .await
            .expect("the page answers a script");
    }

    /// What the browser's IndexedDB database `database` holds under
    /// `key` in its store `caches` (a saved cache's text; empty when
    /// nothing is saved).
    pub async fn saved(&self, database: &str, key: &str) -> String {
        let script = "const [database, key, done] = arguments;
            const opening = indexedDB.open(database);
            opening.onerror = () => done('');
            opening.onsuccess = () => {
              const db = opening.result;
              if (!db.objectStoreNames.contains('caches')) { db.close(); return done(''); }
              const get = db.transaction('caches').objectStore('caches').get(key);
              get.onsuccess = () => { db.close(); done(get.result ? String(get.result) : ''); };
              get.onerror = () => { db.close(); done(''); };
            };";
        let saved = self
            .browser
            .execute_async(script, vec![json!(database), json!(key)])
            .await
            .expect("the page answers a script");
        saved.as_str().unwrap_or_default().to_owned()
    }

    /// Closes the browser and stops the page server.
    async fn stop(mut self) {
        self.browser
            .clone()
            .close()
            .await
            .expect("the session ends");
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A look at the page, taken in one script (so, at one instant).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    pub hydrated: bool,
    /// The header's count of open todos.
    pub count: Option<String>,
    /// Each person's count of open todos, in the sidebar's order.
    pub badges: Vec<String>,
    pub heading: Option<String>,
    pub todos: Vec<Item>,
    pub notice: Option<String>,
    /// The profile card's name.
    pub card: Option<String>,
    /// The texts of the boundaries that show an error.
    pub failed: Vec<String>,
    pub posts: usize,
    /// Which element has the focus: its id, its label, or its tag.
    pub focus: String,
    /// How many requests the page made to the API (resource timing).
    pub api_requests: usize,
}

#[derive(Debug, Deserialize, PartialEq)]
pub struct Item {
    pub title: String,
    pub done: bool,
    /// Not answered by the server yet.
    pub draft: bool,
}

impl Page {
    /// The titles of the todos on show.
    pub fn titles(&self) -> Vec<&str> {
        self.todos.iter().map(|t| t.title.as_str()).collect()
    }

    /// Whether the todo `title` shows as done (`None`: not on show).
    pub fn done(&self, title: &str) -> Option<bool> {
        self.todos.iter().find(|t| t.title == title).map(|t| t.done)
    }
}

const LOOK: &str = r#"
const api = arguments[0];
const q = (s) => document.querySelector(s);
const text = (s) => { const e = q(s); return e ? e.textContent : null; };
const all = (s) => [...document.querySelectorAll(s)];
const focus = document.activeElement;
return {
  hydrated: !!q('#app') && q('#app').hasAttribute('data-hydrated'),
  count: text('.count strong'),
  badges: all('.people .badge').map((b) => b.firstChild.textContent),
  heading: text('#todos-heading'),
  todos: all('.items li').filter((li) => li.querySelector('input[type=checkbox]')).map((li) => ({
    title: li.querySelector('label').textContent,
    done: li.querySelector('input[type=checkbox]').checked,
    draft: li.classList.contains('draft'),
  })),
  notice: text('.notice p'),
  card: text('.card h2'),
  failed: all('.failed p').map((p) => p.textContent),
  posts: all('.posts li').length,
  focus: focus ? (focus.id || focus.getAttribute('aria-label') || focus.tagName.toLowerCase()) : '',
  apiRequests: performance.getEntriesByType('resource').filter((e) => e.name.startsWith(api)).length,
};
"#;

/// Debian's chromedriver on a free port of 127.0.0.1; killed on drop.
struct Driver {
    child: Child,
    url: String,
}

impl Driver {
    fn start() -> Driver {
        let program = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into());
        let mut child = Command::new(&program)
            .args(["--port=0", "--allowed-ips=127.0.0.1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{program} starts (scripts/setup.sh installs it): {e}"));
        let stdout = child.stdout.take().expect("chromedriver's output");
        let mut lines = BufReader::new(stdout).lines();
        let port = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|line| {
                let rest = line.split("started successfully on port ").nth(1)?;
                rest.trim_end_matches('.').parse::<u16>().ok()
            })
            .expect("chromedriver says its port");
        // The rest of its output is read (and dropped), so that it never
        // writes into a closed pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }

    /// A session in a headless Chromium, 1280 x 1000.
    async fn session(&self) -> Client {
        let options = json!({
            "args": [
                "headless=new", "no-sandbox", "disable-gpu", "disable-dev-shm-usage",
                "window-size=1280,1000", "disable-background-networking",
                "disable-component-update", "disable-sync", "no-first-run",
            ]
        });
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("goog:chromeOptions".into(), options);
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        ClientBuilder::new(connector)
            .capabilities(capabilities)
            .connect(&self.url)
            .await
            .expect("a browser session")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
