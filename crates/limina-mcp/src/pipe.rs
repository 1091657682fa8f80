//! Standard streams on the loop's reactor. tokio's own stdin/stdout hand
//! every read and write to its blocking pool, a thread hop each way; a
//! pipe or socket set non-blocking is instead polled where the server runs,
//! which takes those hops out of every round trip. Files and terminals
//! (which cannot be polled, or are shared with a shell) keep tokio's path.

use std::io;
use std::os::fd::RawFd;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

pub struct Pipe(AsyncFd<RawFd>);

fn stat(fd: RawFd) -> Option<libc::stat> {
  // SAFETY: fstat writes into the zeroed struct it is given and nothing else.
  let mut st: libc::stat = unsafe { std::mem::zeroed() };
  (unsafe { libc::fstat(fd, &mut st) } == 0).then_some(st)
}

impl Pipe {
  /// `fd` as a polled pipe, when it is a pipe or socket not shared with
  /// `unless` (stdout that is also stderr stays blocking, so log lines
  /// never meet a full pipe as an error).
  pub fn new(fd: RawFd, unless: Option<RawFd>) -> Option<Pipe> {
    let st = stat(fd)?;
    let kind = st.st_mode & libc::S_IFMT;
    if kind != libc::S_IFIFO && kind != libc::S_IFSOCK {
      return None;
    }
    if let Some(other) = unless.and_then(stat) {
      if other.st_dev == st.st_dev && other.st_ino == st.st_ino {
        return None;
      }
    }
    // SAFETY: F_GETFL/F_SETFL on a descriptor this process owns for its life.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
      return None;
    }
    // SAFETY: the standard streams stay open, as the same descriptions, for
    // the life of the process; nothing closes or replaces fds 0 and 1.
    unsafe { AsyncFd::register(fd) }.ok().map(Pipe)
  }
}

/// A non-blocking read(2) or write(2): the byte count, or the OS error.
fn result(n: isize) -> io::Result<usize> {
  if n < 0 {
    Err(io::Error::last_os_error())
  } else {
    Ok(n as usize)
  }
}

impl AsyncRead for Pipe {
  fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
    loop {
      let mut guard = ready!(self.0.poll_read_ready(cx))?;
      let unfilled = buf.initialize_unfilled();
      // SAFETY: reads at most `unfilled.len()` bytes into initialised memory.
      let read = guard.try_io(|fd| result(unsafe { libc::read(*fd.get_ref(), unfilled.as_mut_ptr().cast(), unfilled.len()) }));
      match read {
        Ok(Ok(n)) => {
          buf.advance(n);
          return Poll::Ready(Ok(()));
        }
        Ok(Err(e)) => return Poll::Ready(Err(e)),
        Err(_would_block) => continue,
      }
    }
  }
}

impl AsyncWrite for Pipe {
  fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
    loop {
      let mut guard = ready!(self.0.poll_write_ready(cx))?;
      // SAFETY: writes at most `data.len()` bytes from a live slice.
      match guard.try_io(|fd| result(unsafe { libc::write(*fd.get_ref(), data.as_ptr().cast(), data.len()) })) {
        Ok(written) => return Poll::Ready(written),
        Err(_would_block) => continue,
      }
    }
  }

  fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
    Poll::Ready(Ok(()))
  }

  fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
    Poll::Ready(Ok(()))
  }
}
