//! Runs the demo API on a free port of 127.0.0.1 until killed, for a
//! client in another process (the browser tests, a web demo). Prints one
//! line, `DEMO_API_URL=http://127.0.0.1:PORT`, once it listens.

fn main() -> std::io::Result<()> {
    let api = restcache_demo::DemoApi::start()?;
    println!("DEMO_API_URL={}", api.url());
    loop {
        std::thread::park();
    }
}
