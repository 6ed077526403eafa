//! Also right: the tokio `TcpStream` travels as it is, and the worker moves it from the
//! acceptor's reactor to its own as soon as it arrives: `into_std` then `from_std`, both
//! on the worker's thread. The stream does no I/O on the way, so nobody misses the
//! acceptor's reactor; and deregistering works even once the acceptor's runtime is gone
//! (it is one `epoll_ctl` on a descriptor the stream's registration keeps open). What
//! matters is which reactor a stream belongs to when it is read and written, not which
//! thread takes it off the old one. The solution's version is simpler to reason about:
//! what crosses threads belongs to no runtime.
//! expect-pass
//! replaces: handoff

/// What travels from the acceptor to a worker: the stream, still the acceptor's.
type Handed = TcpStream;

/// On the acceptor's runtime: nothing to do.
fn leave(stream: TcpStream) -> io::Result<Handed> {
    Ok(stream)
}

/// On the worker's runtime: leave the acceptor's reactor, join this one.
fn join(stream: Handed) -> io::Result<TcpStream> {
    TcpStream::from_std(stream.into_std()?)
}
