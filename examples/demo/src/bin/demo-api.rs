//! Runs the demo API on 127.0.0.1 until killed, for a client in another
//! process (the browser tests, a web app): on a free port, or on the one
//! `--port N` names. Prints one line, `DEMO_API_URL=http://127.0.0.1:PORT`,
//! once it listens.

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut port = 0;
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().map(|n| n.parse::<u16>())) {
            ("--port", Some(Ok(number))) => port = number,
            _ => {
                eprintln!("usage: demo-api [--port N]");
                std::process::exit(2);
            }
        }
    }
    let api = restcache_demo::DemoApi::start_on(port)?;
    println!("DEMO_API_URL={}", api.url());
    loop {
        std::thread::park();
    }
}
