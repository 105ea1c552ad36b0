//! Bounds on connections: how many one client address may hold, how many in all, and how
//! long a request's head and body may take to arrive. A slow client holds a file
//! descriptor and some memory for as long as the service lets it; without these bounds,
//! 19,990 connections trickling their bodies from one address used up every descriptor
//! and the service answered no one for 30 s.
//!
//! Behind a TLS proxy every connection comes from the proxy: `serve --trusted-proxy ADDR`
//! exempts that address from [`MAX_CONNECTIONS_PER_ADDRESS`] (the proxy bounds its own
//! clients) and takes the client's address from the last entry of `X-Forwarded-For`, which
//! the proxy appends. Without it, `X-Forwarded-For` is ignored: anyone could write it.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::dev::{Extensions, Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::middleware::Next;
use actix_web::rt::time::{Instant, Sleep, sleep_until};
use actix_web::web::Bytes;
use futures_util::Stream;

/// Connections one client address (an IPv6 /64) may hold at once. A browser opens at most
/// six to a site; a lab of students behind one NAT address opening their pages at the same
/// moment needs some tens. A connection beyond it is shut as soon as it is accepted, so
/// that its descriptor is freed at once.
pub const MAX_CONNECTIONS_PER_ADDRESS: usize = 256;

/// Connections held at once, in all, at most: a class's students and instructors need
/// hundreds. Each costs a descriptor and some tens of KiB of buffers; beyond it, new
/// connections wait in the listen queue until one ends (slow ones end within the bounds
/// below). Never more than half the descriptors the process may open
/// ([`connection_budget`]): the rest are the database's, the sandbox's and the compile
/// jails'.
pub const MAX_CONNECTIONS: usize = 4_096;

/// The time a request's head (request line and headers) may take to arrive: a few
/// hundred bytes, sent at once by any real client.
pub const REQUEST_HEAD_TIMEOUT: Duration = Duration::from_secs(5);

/// Every connection carries one request (no keep-alive). actix bounds the time of a
/// connection's first request head only ([`REQUEST_HEAD_TIMEOUT`]); a second request on a
/// kept-alive connection could trickle its head for ever. Behind the TLS proxy this costs
/// the clients nothing (the proxy keeps their connections alive); on loopback, little.
pub const KEEP_ALIVE: bool = false;

/// The time given to a client to close its side once its response is sent.
pub const DISCONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// The time a request's body may take before it must arrive at [`MIN_BODY_BYTES_PER_SECOND`]
/// on average: room for a slow start, not for a client that sends nothing.
pub const BODY_GRACE: Duration = Duration::from_secs(10);

/// The slowest a body may arrive on average after [`BODY_GRACE`]: 64 KiB/s (half a
/// Mbit/s) lets the largest upload (256 MiB) through in 68 minutes, while a client that
/// trickles a byte a second is cut after [`BODY_GRACE`]. A rate rather than a flat time:
/// any flat time either cuts large uploads on slow links or lets a trickle hold a
/// connection for as long.
pub const MIN_BODY_BYTES_PER_SECOND: u64 = 64 << 10;

/// The most descriptors this process may open: its soft limit raised to the hard one
/// (systemd gives 1,024 soft and 524,288 hard by default), and what connections may use
/// of it: at most half, and at most [`MAX_CONNECTIONS`].
pub fn connection_budget() -> (u64, usize) {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit read and write the struct given, nothing else.
    let descriptors = unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            1_024
        } else {
            // The kernel refuses more than `nr_open` (2^20 by default), infinity included.
            let raised = libc::rlimit { rlim_cur: limit.rlim_max.min(1 << 20), rlim_max: limit.rlim_max };
            if raised.rlim_cur > limit.rlim_cur && libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 { raised.rlim_cur } else { limit.rlim_cur }
        }
    };
    (descriptors, ((descriptors / 2) as usize).clamp(1, MAX_CONNECTIONS))
}

/// The key a client address is counted under: the address, or its /64 for IPv6.
fn network(ip: IpAddr) -> String {
    super::auth::client_network(&ip.to_string())
}

/// Connections held per client address; [`PerAddress::on_connect`] counts each accepted
/// connection and shuts those beyond [`MAX_CONNECTIONS_PER_ADDRESS`].
#[derive(Clone, Default)]
pub struct PerAddress {
    held: Arc<Mutex<HashMap<String, usize>>>,
    /// The TLS proxy's address, which is not bounded (`serve --trusted-proxy`).
    trusted_proxy: Option<IpAddr>,
}

/// A connection's place in [`PerAddress`]'s count, given back when the connection ends
/// (actix drops a connection's extensions with it).
struct Held {
    held: Arc<Mutex<HashMap<String, usize>>>,
    key: String,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = held.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.key);
            }
        }
    }
}

impl PerAddress {
    pub fn new(trusted_proxy: Option<IpAddr>) -> PerAddress {
        PerAddress { held: Arc::default(), trusted_proxy }
    }

    /// Takes a place for a connection from `ip`, or `None` when its address holds
    /// [`MAX_CONNECTIONS_PER_ADDRESS`] already.
    fn take(&self, ip: IpAddr) -> Option<Held> {
        let key = network(ip.to_canonical());
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let count = held.entry(key.clone()).or_insert(0);
        if *count >= MAX_CONNECTIONS_PER_ADDRESS {
            return None;
        }
        *count += 1;
        Some(Held { held: self.held.clone(), key })
    }

    /// actix's `on_connect` hook: a connection within its address's bound keeps a
    /// `Held` in its extensions; one beyond it is shut (both directions) at once, so that
    /// actix sees its end and closes it, without reading a byte of it.
    pub fn on_connect(&self, connection: &dyn std::any::Any, extensions: &mut Extensions) {
        let Some(stream) = connection.downcast_ref::<actix_web::rt::net::TcpStream>() else { return };
        let Ok(peer) = stream.peer_addr() else { return };
        if Some(peer.ip().to_canonical()) == self.trusted_proxy {
            return;
        }
        match self.take(peer.ip()) {
            Some(held) => {
                extensions.insert(held);
            }
            None => {
                use std::os::fd::AsRawFd;
                // SAFETY: shutdown on a socket actix owns: it ends the conversation but
                // leaves the descriptor to actix, which closes it.
                unsafe { libc::shutdown(stream.as_raw_fd(), libc::SHUT_RDWR) };
            }
        }
    }
}

/// The middleware that, for a request from the trusted proxy, makes the client's address
/// (`HttpRequest::peer_addr`, which the login throttle counts by) the last address of
/// `X-Forwarded-For`, and bounds the time of every request's body
/// ([`BODY_GRACE`], [`MIN_BODY_BYTES_PER_SECOND`]).
pub async fn client_and_body_bounds(
    trusted_proxy: Option<IpAddr>,
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    if let Some(client) = forwarded_client(&req, trusted_proxy) {
        req.head_mut().peer_addr = Some(SocketAddr::new(client, 0));
    }
    let (_, payload) = req.parts_mut();
    let body = std::mem::replace(payload, Payload::None);
    *payload = Payload::Stream { payload: Box::pin(BodyDeadline::new(body)) };
    next.call(req).await
}

/// The client's address a trusted proxy forwarded: the last entry of `X-Forwarded-For`
/// (the one the proxy appended; earlier ones are the client's own words).
fn forwarded_client(req: &ServiceRequest, trusted_proxy: Option<IpAddr>) -> Option<IpAddr> {
    let proxy = trusted_proxy?;
    if req.peer_addr()?.ip().to_canonical() != proxy {
        return None;
    }
    let forwarded = req.headers().get_all("x-forwarded-for").last()?.to_str().ok()?;
    forwarded.rsplit(',').next()?.trim().parse().ok()
}

/// A request body that must arrive within [`BODY_GRACE`] plus its length at
/// [`MIN_BODY_BYTES_PER_SECOND`], else ends with an error (the handler answers 400 and the
/// connection is closed).
struct BodyDeadline {
    inner: Payload,
    started: Instant,
    received: u64,
    deadline: Pin<Box<Sleep>>,
    ended: bool,
}

impl BodyDeadline {
    fn new(inner: Payload) -> BodyDeadline {
        let started = Instant::now();
        BodyDeadline { inner, started, received: 0, deadline: Box::pin(sleep_until(started + BODY_GRACE)), ended: false }
    }

    /// When the body must have come by, given what has come.
    fn due(&self) -> Instant {
        self.started + BODY_GRACE + Duration::from_secs_f64(self.received as f64 / MIN_BODY_BYTES_PER_SECOND as f64)
    }
}

impl Stream for BodyDeadline {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.ended {
            return Poll::Ready(None);
        }
        match Pin::new(&mut self.inner).poll_next(cx) {
            Poll::Ready(Some(Ok(bytes))) => {
                self.received += bytes.len() as u64;
                let due = self.due();
                self.deadline.as_mut().reset(due);
                Poll::Ready(Some(Ok(bytes)))
            }
            Poll::Ready(other) => {
                self.ended = other.is_none();
                Poll::Ready(other)
            }
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    self.ended = true;
                    let why = format!("the request's body came slower than {} KiB/s after {} s", MIN_BODY_BYTES_PER_SECOND >> 10, BODY_GRACE.as_secs());
                    Poll::Ready(Some(Err(PayloadError::Io(std::io::Error::new(std::io::ErrorKind::TimedOut, why)))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_its_bound_and_gets_places_back() {
        let counter = PerAddress::new(None);
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let held: Vec<Held> = (0..MAX_CONNECTIONS_PER_ADDRESS).map(|_| counter.take(ip).expect("within the bound")).collect();
        assert!(counter.take(ip).is_none());
        assert!(counter.take("10.0.0.2".parse().unwrap()).is_some(), "another address is not bounded by this one");
        assert!(counter.take("::ffff:10.0.0.1".parse().unwrap()).is_none(), "the same address mapped into IPv6");
        drop(held);
        assert!(counter.take(ip).is_some());
        assert!(counter.held.lock().unwrap().len() <= 1, "addresses without connections are forgotten");
    }

    #[test]
    fn connections_have_at_most_half_the_descriptors() {
        let (descriptors, connections) = connection_budget();
        assert!(connections as u64 <= descriptors / 2 && connections <= MAX_CONNECTIONS);
    }
}
