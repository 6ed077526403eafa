//! A small blocking HTTP/1.1 client for tests of servers on `127.0.0.1`.
//!
//! It sends exactly the bytes a test gives it (so a test can send bad input as easily as
//! good), and reads replies framed by `Content-Length`, keeping any bytes that follow for
//! the next reply (pipelining). Every read and write gives up after [`IO_LIMIT`], so a
//! server that never answers fails the test with a message instead of hanging it.
//! Only std: it needs no runtime, so a test can drive it from a plain thread.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::time::Duration;

/// How long one read or write may block before the client gives up. A safety net, not a
/// timing check: a correct server answers in milliseconds even on a loaded machine.
pub const IO_LIMIT: Duration = Duration::from_secs(10);

/// One connection to the server under test.
pub struct Client {
    stream: TcpStream,
    /// Bytes read but not yet consumed by a reply.
    buf: Vec<u8>,
}

/// A reply: status, headers (names in lower case) and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// The first header called `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl Client {
    /// Connects, with [`IO_LIMIT`] on every read and write. Panics if it cannot.
    pub fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr)
            .unwrap_or_else(|e| panic!("connect to the server at {addr}: {e}"));
        stream.set_read_timeout(Some(IO_LIMIT)).unwrap();
        stream.set_write_timeout(Some(IO_LIMIT)).unwrap();
        stream.set_nodelay(true).unwrap();
        Client {
            stream,
            buf: Vec::new(),
        }
    }

    /// Sends raw bytes.
    pub fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.stream.write_all(bytes)
    }

    /// `GET path` and its reply; panics (naming the request) if there is none.
    pub fn get(&mut self, path: &str) -> Reply {
        let request = format!("GET {path} HTTP/1.1\r\nhost: test\r\n\r\n");
        self.exchange(&request, request.as_bytes())
    }

    /// `POST path` with `body` and its reply; panics (naming the request) if there is none.
    pub fn post(&mut self, path: &str, body: &[u8]) -> Reply {
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: test\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        let mut request = head.clone().into_bytes();
        request.extend_from_slice(body);
        self.exchange(&head, &request)
    }

    fn exchange(&mut self, what: &str, bytes: &[u8]) -> Reply {
        let what = what.lines().next().unwrap_or_default();
        self.send(bytes)
            .unwrap_or_else(|e| panic!("`{what}`: sending the request failed: {e}"));
        self.read_reply()
            .unwrap_or_else(|e| panic!("`{what}`: no reply from the server: {e}"))
    }

    /// Reads one reply. `UnexpectedEof` if the server closed the connection before a
    /// whole reply, `WouldBlock`/`TimedOut` after [`IO_LIMIT`] without one.
    pub fn read_reply(&mut self) -> io::Result<Reply> {
        let head_end = loop {
            if let Some(at) = find(&self.buf, b"\r\n\r\n") {
                break at + 4;
            }
            self.fill()?;
        };
        let head = String::from_utf8_lossy(&self.buf[..head_end]).into_owned();
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or_default();
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(format!("not an HTTP status line: {status_line:?}")))?;
        let headers: Vec<(String, String)> = lines
            .filter(|l| !l.is_empty())
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let length = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .map(|(_, v)| v.parse::<usize>())
            .transpose()
            .map_err(|e| bad(format!("content-length: {e}")))?
            .unwrap_or(0);
        while self.buf.len() < head_end + length {
            self.fill()?;
        }
        let body = self.buf[head_end..head_end + length].to_vec();
        self.buf.drain(..head_end + length);
        Ok(Reply {
            status,
            headers,
            body,
        })
    }

    /// Waits until the server closes the connection (end of file, or a reset) and
    /// returns what it sent before that, unread replies included. `TimedOut` (or
    /// `WouldBlock`) if it is still open after [`IO_LIMIT`].
    pub fn wait_closed(&mut self) -> io::Result<Vec<u8>> {
        loop {
            match self.fill() {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof || is_reset(&e) => {
                    return Ok(std::mem::take(&mut self.buf));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Stops sending (half-close): the server reads end of file.
    pub fn shutdown_write(&self) {
        let _ = self.stream.shutdown(Shutdown::Write);
    }

    /// The socket, for options a test needs.
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    fn fill(&mut self) -> io::Result<()> {
        let mut chunk = [0u8; 16 * 1024];
        match self.stream.read(&mut chunk)? {
            0 => Err(io::ErrorKind::UnexpectedEof.into()),
            n => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(())
            }
        }
    }
}

/// The peer reset the connection (it closed with unread data, or aborted).
pub fn is_reset(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted
    )
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn bad(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;
    use std::thread;

    #[test]
    fn reads_pipelined_replies_and_the_close() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut head = [0u8; 1024];
            let _ = s.read(&mut head).unwrap();
            s.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A: b\r\n\r\nhiHTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n",
            )
            .unwrap();
        });
        let mut client = Client::connect(addr);
        let first = client.get("/");
        assert_eq!(
            (first.status, first.text(), first.header("x-a")),
            (200, "hi".into(), Some("b"))
        );
        assert_eq!(client.read_reply().unwrap().status, 404);
        server.join().unwrap();
        assert_eq!(client.wait_closed().unwrap(), b"");
        assert_eq!(
            client.read_reply().unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
    }
}
