//! Requests as a hostile client sends them: written by hand on a TCP connection from a
//! chosen loopback address (every address of 127.0.0.0/8 reaches a service bound to
//! 127.0.0.1 on Linux), so that a test can be many clients, or a slow one. Only loopback
//! addresses are ever connected to.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpStream};
use std::os::fd::FromRawFd;
use std::time::Duration;

/// The service's address in `url` (`http://127.0.0.1:PORT`), which must be loopback.
pub fn service_addr(url: &str) -> SocketAddrV4 {
    let addr: SocketAddrV4 = url.trim_start_matches("http://").trim_end_matches('/').parse().expect("an IPv4 address and port");
    assert!(addr.ip().is_loopback(), "only loopback services are targeted: {addr}");
    addr
}

/// The `n`th loopback address from 127.1.0.0 on (n < 2^16): a client of its own.
pub fn client_address(n: u32) -> Ipv4Addr {
    assert!(n < 1 << 16);
    Ipv4Addr::from(u32::from(Ipv4Addr::new(127, 1, 0, 0)) + n)
}

/// A connection to the service at `url` from `source` (a loopback address).
pub fn connect_from(source: Ipv4Addr, url: &str) -> std::io::Result<TcpStream> {
    assert!(source.is_loopback(), "only loopback addresses: {source}");
    let target = service_addr(url);
    let sockaddr = |addr: SocketAddrV4| libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: addr.port().to_be(),
        sin_addr: libc::in_addr { s_addr: u32::from(*addr.ip()).to_be() },
        sin_zero: [0; 8],
    };
    let size = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: a fresh socket, owned by the TcpStream at once; the addresses outlive the calls.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let stream = TcpStream::from_raw_fd(fd);
        let from = sockaddr(SocketAddrV4::new(source, 0));
        if libc::bind(fd, (&raw const from).cast(), size) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let to = sockaddr(target);
        if libc::connect(fd, (&raw const to).cast(), size) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(stream)
    }
}

/// A whole response: its status, headers (lower-case names) and body.
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Sends `request` (its head without `Connection`, and its body) from `source` and reads
/// the whole response (the connection is closed after it).
pub fn exchange(source: Ipv4Addr, url: &str, head: &str, body: &[u8]) -> std::io::Result<Response> {
    let mut stream = connect_from(source, url)?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut request = format!("{head}Host: localhost\r\nConnection: close\r\nContent-Length: {}\r\n\r\n", body.len()).into_bytes();
    request.extend_from_slice(body);
    stream.write_all(&request)?;
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines.next().and_then(|l| l.split_whitespace().nth(1)).and_then(|s| s.parse().ok()).unwrap_or(0);
    let headers = lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned())).collect();
    Ok(Response { status, headers, body: body.to_owned() })
}

/// The bound on how long a request from `source` may wait while another address attacks
/// the service: a second, or 20 times the slowest of three answers to `GET /login` now (a
/// busy machine answers slower, attacked or not: the bound follows it; issue 51).
pub fn answer_bound(source: Ipv4Addr, url: &str) -> Duration {
    let slowest = (0..3)
        .map(|_| {
            let asked = std::time::Instant::now();
            assert_eq!(exchange(source, url, "GET /login HTTP/1.1\r\n", b"").expect("the service answers").status, 200);
            asked.elapsed()
        })
        .max()
        .unwrap();
    Duration::from_secs(1).max(20 * slowest)
}

/// A login through the form from `source`, as a browser there would: the form's page
/// first (its CSRF cookie and token), then the post. The post's status (303: logged in).
pub fn login_from(source: Ipv4Addr, url: &str, login: &str, password: &str) -> std::io::Result<u16> {
    login_forwarded(source, url, None, login, password)
}

/// [`login_from`] as a proxy at `source` sends it for a client: with `X-Forwarded-For:
/// forwarded_for` on both requests.
pub fn login_forwarded(source: Ipv4Addr, url: &str, forwarded_for: Option<&str>, login: &str, password: &str) -> std::io::Result<u16> {
    let forwarded = forwarded_for.map_or_else(String::new, |f| format!("X-Forwarded-For: {f}\r\n"));
    let form = exchange(source, url, &format!("GET /login HTTP/1.1\r\n{forwarded}"), b"")?;
    let cookie = form.header("set-cookie").and_then(|c| c.split(';').next()).unwrap_or_default().to_owned();
    let token = form.body.split("name=\"csrf\" value=\"").nth(1).and_then(|v| v.split('"').next()).unwrap_or_default().to_owned();
    let encode =
        |text: &str| -> String { text.bytes().map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") }).collect() };
    let body = format!("login={}&password={}&csrf={}", encode(login), encode(password), encode(&token));
    let head = format!("POST /login HTTP/1.1\r\n{forwarded}Cookie: {cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\n");
    Ok(exchange(source, url, &head, body.as_bytes())?.status)
}

/// How a slow client stalls: in the middle of its request's head, or of its body.
#[derive(Clone, Copy, Debug)]
pub enum Stall {
    Headers,
    Body,
}

/// `count` connections from `source`, each of which sent the start of a request and then
/// stalls as `stall` says (the rest is never sent). Connections the service refused at
/// once are counted, not kept.
pub fn stalled_connections(source: Ipv4Addr, url: &str, count: usize, stall: Stall) -> Vec<TcpStream> {
    let start: &[u8] = match stall {
        Stall::Headers => b"GET /login HTTP/1.1\r\nHost: localhost\r\nX-Slow: ",
        Stall::Body => b"POST /login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nlogin=",
    };
    (0..count)
        .filter_map(|_| {
            let mut stream = connect_from(source, url).ok()?;
            stream.write_all(start).ok()?;
            Some(stream)
        })
        .collect()
}

/// How many of `connections` the service has closed: it wrote its answer or nothing,
/// then end of stream (or a reset). Waits at most `patience` for each still open.
pub fn closed_by_the_service(connections: &mut [TcpStream], patience: Duration) -> usize {
    let deadline = std::time::Instant::now() + patience;
    connections
        .iter_mut()
        .map(|stream| {
            let left = deadline.saturating_duration_since(std::time::Instant::now()).max(Duration::from_millis(1));
            stream.set_read_timeout(Some(left)).unwrap();
            let mut sink = Vec::new();
            match stream.read_to_end(&mut sink) {
                Ok(_) => true,
                Err(e) => !matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut),
            }
        })
        .filter(|&closed| closed)
        .count()
}
