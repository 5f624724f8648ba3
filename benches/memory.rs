//! Peak memory of reading one large or endless response body, each case
//! in a process of its own (the peak resident size, `VmHWM`, only grows):
//!
//!     cargo bench --bench memory
//!
//! - `plain_text_50mb`: the baseline, a plain reqwest `text()` of a 50 MB
//!   body (how the client read every body before it had a limit);
//! - `client_50mb`: `Client::fetch` of the same body, under the default
//!   64 MiB limit;
//! - `client_50mb_limit_10mb`: the same body with a 10 MiB limit: it fails
//!   once the limit is read;
//! - `plain_text_endless_5s`: the baseline on a body that never ends,
//!   stopped after 5 s;
//! - `client_endless`: `Client::fetch` of that body, under the default
//!   limit: it fails at 64 MiB.
//!
//! Linux only (it reads `/proc/self/status`).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::time::Duration;

use restcache::http::{Client, Method};

const CASES: &[&str] = &[
    "plain_text_50mb",
    "client_50mb",
    "client_50mb_limit_10mb",
    "plain_text_endless_5s",
    "client_endless",
];

const FIFTY_MB: usize = 50 * 1024 * 1024;

fn main() {
    let mut args = std::env::args().skip(1);
    if let (Some(flag), Some(case), Some(url)) = (args.next(), args.next(), args.next())
        && flag == "--case"
    {
        run_case(&case, &url);
        return;
    }
    let url = serve();
    println!("{:28} {:>14}  outcome", "case", "peak RSS MiB");
    for case in CASES {
        let exe = std::env::current_exe().expect("the bench knows its own path");
        let output = Command::new(exe)
            .args(["--case", case, &url])
            .output()
            .expect("the case runs");
        let text = String::from_utf8_lossy(&output.stdout);
        println!("{case:28} {}", text.trim());
    }
}

/// Serves `/big` (a 50 MB JSON string) and `/endless` (a body that never
/// ends) on 127.0.0.1, from threads of its own; returns the base URL.
fn serve() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    std::thread::spawn(move || {
        for socket in listener.incoming().flatten() {
            std::thread::spawn(move || answer(socket));
        }
    });
    url
}

fn answer(mut socket: TcpStream) {
    let mut request = [0_u8; 4096];
    let read = socket.read(&mut request).unwrap_or(0);
    let request = String::from_utf8_lossy(&request[..read]);
    if request.starts_with("GET /big") {
        let body = format!("\"{}\"", "x".repeat(FIFTY_MB - 2));
        let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n";
        let _ = socket.write_all(head.as_bytes());
        let _ = socket.write_all(body.as_bytes());
    } else {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
        let _ = socket.write_all(head.as_bytes());
        let chunk = format!("10000\r\n{}\r\n", " ".repeat(0x10000));
        while socket.write_all(chunk.as_bytes()).is_ok() {}
    }
}

/// Runs one case and prints its peak resident size and outcome.
fn run_case(case: &str, url: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let outcome = runtime.block_on(async {
        match case {
            "plain_text_50mb" => plain_text(&format!("{url}/big"), None).await,
            "client_50mb" => client(Client::new(url), "/big").await,
            "client_50mb_limit_10mb" => {
                client(Client::new(url).with_max_body(10 * 1024 * 1024), "/big").await
            }
            "plain_text_endless_5s" => {
                plain_text(&format!("{url}/endless"), Some(Duration::from_secs(5))).await
            }
            "client_endless" => client(Client::new(url), "/endless").await,
            other => format!("unknown case {other}"),
        }
    });
    println!("{:14.1}  {outcome}", peak_mib());
}

async fn plain_text(url: &str, stop_after: Option<Duration>) -> String {
    let read = async {
        let response = reqwest::get(url).await.expect("an answer");
        response.text().await.map(|t| t.len())
    };
    match stop_after {
        Some(after) => match tokio::time::timeout(after, read).await {
            Ok(Ok(len)) => format!("{len} B"),
            Ok(Err(_)) => "error".into(),
            Err(_) => "stopped".into(),
        },
        None => match read.await {
            Ok(len) => format!("{len} B"),
            Err(_) => "error".into(),
        },
    }
}

async fn client(client: Client, path: &str) -> String {
    match client.request(Method::Get, path, None).await {
        Ok(response) => format!("{} B", response.body.len()),
        Err(error) => format!("{:?}", error.kind()),
    }
}

/// The process's peak resident size, in MiB.
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}
