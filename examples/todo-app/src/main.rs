//! Serves the todo app on 127.0.0.1: starts the demo API, then the page
//! server (server-rendered pages, the stylesheet, the bundle), prints the
//! page's URL and serves until stopped (Ctrl-C).
//!
//!     restcache-todo-app [--port 8080] [--api-port 0] [--bundle DIR]
//!
//! `scripts/todo-app.sh` builds the bundle and runs this with it.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use restcache_todo_app::server::{BUNDLE_FILES, Settings, router};

    let mut port: u16 = 8080;
    let mut api_port: u16 = 0;
    let mut bundle = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next();
        match (arg.as_str(), value) {
            ("--port", Some(n)) => port = n.parse()?,
            ("--api-port", Some(n)) => api_port = n.parse()?,
            ("--bundle", Some(dir)) => bundle = Some(std::path::PathBuf::from(dir)),
            _ => {
                eprintln!("usage: restcache-todo-app [--port N] [--api-port N] [--bundle DIR]");
                std::process::exit(2);
            }
        }
    }
    if let Some(dir) = &bundle
        && let Some((missing, _)) = BUNDLE_FILES.iter().find(|(f, _)| !dir.join(f).is_file())
    {
        return Err(format!("the bundle has no {missing} in {}", dir.display()).into());
    }
    if bundle.is_none() {
        eprintln!("no --bundle: pages are served without the app's script");
    }

    let api = restcache_demo::DemoApi::start_on(api_port)?;
    let settings = Settings {
        api: api.url().to_owned(),
        bundle,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e} (try --port 0)"))?;
        println!("demo API on {}", settings.api);
        println!("the todo app: http://{}/", listener.local_addr()?);
        println!("(Ctrl-C stops both)");
        axum::serve(listener, router(settings))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        Ok::<_, Box<dyn std::error::Error>>(())
    })?;
    drop(api);
    Ok(())
}

#[cfg(target_arch = "wasm32")]
fn main() {}
