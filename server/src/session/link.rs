//! The reading side of a session's socket: frames read, sorted into rate classes and
//! limited (a frame over the limit closes the session), decoded; WebSocket pings sent
//! on a timer and their pongs timed (the lag), and the session reaped when the client
//! has been silent for a ping timeout. What is left for the session is a [`Heard`].

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use shared::protocol::{ClientMessage, DecodeError, close};
use tokio::time::{Instant, Interval};
use tungstenite::Message;

use super::outbox::Outbox;
use super::rate::{self, Limiter};
use super::socket::Reader;
use crate::config::WsConfig;
use crate::hub::ConnId;
use crate::metrics::Metrics;

/// What the session gets from its socket.
pub(super) enum Heard {
    /// A text frame, decoded (or why it could not be).
    Message(Result<ClientMessage, DecodeError>),
    /// A binary frame (refused: the protocol is JSON).
    Binary,
    /// The pong of the latest ping: the lag it measured, in milliseconds.
    Lag(u64),
    /// Nothing for the session (a ping sent, a close asked for, a frame refused).
    Nothing,
}

/// A session's socket, reading side, with its limits and pings.
pub(super) struct Link {
    stream: Reader,
    out: Outbox,
    metrics: Arc<Metrics>,
    /// Every frame but keep-alives, resumes, pongs and closes.
    full: Limiter,
    /// Keep-alives and resumes ([`RateClass::Light`]).
    light: Limiter,
    ping: Interval,
    ping_timeout: Duration,
    /// The number of the latest ping, and when it was sent while unanswered.
    ping_seq: u64,
    ping_sent: Option<(u64, Instant)>,
    last_heard: Instant,
}

impl Link {
    /// The reading half of a socket, limited as `ws` says; refusals, pings and the
    /// answers to the client's pings go to `out`.
    pub(super) fn new(
        stream: Reader,
        ws: &WsConfig,
        conn: ConnId,
        out: Outbox,
        metrics: Arc<Metrics>,
    ) -> Link {
        let now = Instant::now();
        let mut ping = tokio::time::interval_at(
            now + first_ping(ws.ping_interval(), conn),
            ws.ping_interval(),
        );
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Link {
            stream,
            out,
            metrics,
            full: rate::limiter(ws.rate_per_sec, ws.rate_burst),
            light: rate::limiter(ws.rate_per_sec, rate::light_burst(ws.rate_burst)),
            ping,
            ping_timeout: ws.ping_timeout(),
            ping_seq: 0,
            ping_sent: None,
            last_heard: now,
        }
    }

    /// The next thing heard, pinging when a ping is due. Cancel-safe.
    pub(super) async fn next(&mut self) -> Heard {
        tokio::select! {
            biased;
            _ = self.ping.tick() => {
                self.ping_or_reap();
                Heard::Nothing
            }
            frame = self.stream.next() => self.read(frame),
        }
    }

    /// Pings, or closes the session if the client has been silent too long.
    fn ping_or_reap(&mut self) {
        let now = Instant::now();
        if now.saturating_duration_since(self.last_heard) >= self.ping_timeout {
            self.metrics.ping_timeouts.inc();
            self.out.close(close::PING_TIMEOUT, "ping timeout");
        } else {
            self.ping_seq += 1;
            self.ping_sent = Some((self.ping_seq, now));
            self.out.ping(self.ping_seq);
        }
    }

    fn read(&mut self, frame: Option<Result<Message, tungstenite::Error>>) -> Heard {
        let now = Instant::now();
        let frame = match frame {
            Some(Ok(frame)) => frame,
            Some(Err(e)) => {
                if matches!(e, tungstenite::Error::Capacity(_)) {
                    self.metrics.oversized.inc();
                    self.out.close(close::TOO_BIG, "message too big");
                } else {
                    self.out.close(close::NORMAL, "");
                }
                return Heard::Nothing;
            }
            None => {
                self.out.close(close::NORMAL, "");
                return Heard::Nothing;
            }
        };
        self.last_heard = now;
        let decoded = match &frame {
            Message::Text(text) => Some(ClientMessage::decode(text.as_str())),
            _ => None,
        };
        let allowed = match rate_class(&frame, decoded.as_ref()) {
            RateClass::Free => true,
            RateClass::Light => self.light.check().is_ok(),
            RateClass::Full => self.full.check().is_ok(),
        };
        if !allowed {
            self.metrics.rate_limited.inc();
            self.out.close(close::POLICY, "rate limit exceeded");
            return Heard::Nothing;
        }
        if let Some(decoded) = decoded {
            self.metrics.messages_in.inc();
            return Heard::Message(decoded);
        }
        match frame {
            Message::Binary(_) => {
                self.metrics.messages_in.inc();
                Heard::Binary
            }
            Message::Pong(payload) => match self.ping_sent {
                Some((seq, sent)) if payload.as_ref() == seq.to_be_bytes() => {
                    let lag = u64::try_from(now.saturating_duration_since(sent).as_millis())
                        .unwrap_or(u64::MAX);
                    self.metrics.lag_ms.observe(lag);
                    self.ping_sent = None;
                    Heard::Lag(lag)
                }
                _ => Heard::Nothing,
            },
            // The client closes: answer its close (RFC 6455 5.5.1) and end.
            Message::Close(_) => {
                self.out.close(close::NORMAL, "");
                Heard::Nothing
            }
            // The pong goes out through the outbox, as every frame of ours does.
            Message::Ping(payload) => {
                self.out.pong(payload);
                Heard::Nothing
            }
            Message::Text(_) | Message::Frame(_) => Heard::Nothing,
        }
    }
}

/// When a session's first ping is due: somewhere in its first interval, spread by its
/// connection number. Connections come in waves (a node's start, everyone reconnecting
/// after a restart); pinging each exactly one interval after it came would send the
/// whole wave's pings, and take their pongs, in the same second of every interval.
pub(super) fn first_ping(interval: Duration, conn: ConnId) -> Duration {
    // Consecutive numbers times the golden ratio land evenly over [0, 1).
    let spread = (conn.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
    interval.mul_f64(0.0625 + 0.9375 * spread)
}

/// Which rate limit a frame counts against.
enum RateClass {
    /// Pongs (answers to our pings) and the client's close.
    Free,
    /// Keep-alives and resumes: protocol `ping` messages, WebSocket pings, `resume`.
    /// A reconnecting client sends a burst of these; they have their own, larger
    /// bucket so that they never use up the allowance of the other messages.
    Light,
    /// Every other frame.
    Full,
}

fn rate_class(frame: &Message, decoded: Option<&Result<ClientMessage, DecodeError>>) -> RateClass {
    match (frame, decoded) {
        (Message::Pong(_) | Message::Close(_), _) => RateClass::Free,
        (Message::Ping(_), _)
        | (_, Some(Ok(ClientMessage::Ping { .. } | ClientMessage::Resume { .. }))) => {
            RateClass::Light
        }
        _ => RateClass::Full,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_pings_of_consecutive_connections_spread_over_the_interval() {
        let interval = Duration::from_secs(15);
        let mut buckets = [0u32; 10];
        for conn in 1000..2000 {
            let at = first_ping(interval, conn);
            assert!(at >= interval / 16 && at <= interval, "{at:?}");
            let tenth = (at.as_secs_f64() / interval.as_secs_f64() * 10.0) as usize;
            buckets[tenth.min(9)] += 1;
        }
        // The first tenth starts at 1/16 of the interval, so it holds fewer.
        assert!(
            buckets[1..].iter().all(|&n| (90..=120).contains(&n)),
            "{buckets:?}"
        );
    }
}
