//! A proxy on 127.0.0.1 in front of a local DynamoDB server, for tests of lost, failed and
//! late answers, and of which requests a program sends.
//!
//! It passes every request on (one connection each: it asks both sides to close after the
//! answer) and records each one's operation and body. For the next `drops` requests whose
//! operation is one of `ops`, DynamoDB's answer (the request was applied) is replaced:
//! with nothing, closing the connection; with `errors` set, a 500 `InternalServerError`;
//! with `hold_ms` set, with nothing for that long (the connection kept open), then closing
//! the connection.
#![allow(dead_code)]

use std::io::{Read, Write as _};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A running proxy (its threads live as long as the test process).
pub struct Proxy {
    /// `http://127.0.0.1:PORT`.
    pub endpoint: String,
    /// How many answers of `ops` are still to be replaced.
    pub drops: Arc<AtomicU32>,
    /// Replace them with `InternalServerError`.
    pub errors: Arc<AtomicBool>,
    /// Replace them with silence for this many milliseconds (0: close at once).
    pub hold_ms: Arc<AtomicU64>,
    /// Every request passed on: its operation (`GetItem`, ...) and body.
    pub log: Arc<Mutex<Vec<(String, String)>>>,
}

impl Proxy {
    /// The requests passed on so far, and forgets them.
    pub fn take_log(&self) -> Vec<(String, String)> {
        std::mem::take(&mut *self.log.lock().unwrap())
    }
}

const INTERNAL_ERROR: &str = r#"{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"Internal server error"}"#;

fn read_head(s: &mut TcpStream) -> Option<Vec<u8>> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if s.read(&mut byte).ok()? == 0 {
            return None;
        }
        head.push(byte[0]);
    }
    Some(head)
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// The head with `Connection: close` in place of any connection header.
fn closing(head: &str) -> String {
    let mut out: Vec<&str> = head
        .trim_end()
        .lines()
        .filter(|l| !l.to_ascii_lowercase().starts_with("connection:"))
        .collect();
    out.push("Connection: close");
    out.join("\r\n") + "\r\n\r\n"
}

struct Shared {
    upstream: String,
    ops: &'static [&'static str],
    drops: Arc<AtomicU32>,
    errors: Arc<AtomicBool>,
    hold_ms: Arc<AtomicU64>,
    log: Arc<Mutex<Vec<(String, String)>>>,
}

fn serve(mut client: TcpStream, p: &Shared) {
    let Some(head) = read_head(&mut client) else {
        return;
    };
    let head = String::from_utf8_lossy(&head).into_owned();
    let length: usize = header(&head, "content-length").map_or(0, |v| v.parse().unwrap());
    let mut body = vec![0; length];
    if client.read_exact(&mut body).is_err() {
        return;
    }
    let op = header(&head, "x-amz-target")
        .and_then(|t| t.rsplit('.').next())
        .unwrap_or("")
        .to_owned();
    p.log
        .lock()
        .unwrap()
        .push((op.clone(), String::from_utf8_lossy(&body).into_owned()));
    let mut up = TcpStream::connect(&p.upstream).unwrap();
    up.write_all(closing(&head).as_bytes()).unwrap();
    up.write_all(&body).unwrap();
    let mut answer = Vec::new();
    up.read_to_end(&mut answer).unwrap();
    let drop_it = p.ops.contains(&op.as_str())
        && p.drops
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok();
    if drop_it && p.errors.load(Ordering::SeqCst) {
        let _ = write!(
            client,
            "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/x-amz-json-1.0\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{INTERNAL_ERROR}",
            INTERNAL_ERROR.len()
        );
        return;
    }
    if drop_it {
        let hold = p.hold_ms.load(Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(hold));
        return; // closes the connection: the answer is lost
    }
    let split = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let answer_head = String::from_utf8_lossy(&answer[..split]).into_owned();
    let _ = client.write_all(closing(&answer_head).as_bytes());
    let _ = client.write_all(&answer[split..]);
}

/// A proxy in front of `upstream` (`http://HOST:PORT`) replacing answers of `ops`.
pub fn proxy(upstream: &str, ops: &'static [&'static str]) -> Proxy {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let proxy = Proxy {
        endpoint,
        drops: Arc::new(AtomicU32::new(0)),
        errors: Arc::new(AtomicBool::new(false)),
        hold_ms: Arc::new(AtomicU64::new(0)),
        log: Arc::new(Mutex::new(Vec::new())),
    };
    let shared = Arc::new(Shared {
        upstream: upstream.trim_start_matches("http://").to_owned(),
        ops,
        drops: proxy.drops.clone(),
        errors: proxy.errors.clone(),
        hold_ms: proxy.hold_ms.clone(),
        log: proxy.log.clone(),
    });
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let shared = shared.clone();
            std::thread::spawn(move || serve(client, &shared));
        }
    });
    proxy
}

/// DynamoDB's write operations.
pub const WRITES: &[&str] = &["PutItem", "DeleteItem", "TransactWriteItems"];
