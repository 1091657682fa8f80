//! Giving back what only start-up needed, once the main module has
//! evaluated and again when JS says start-up is over (a server's world,
//! built on first need, is serving): the pages of the binary's code and
//! read-only data that V8's deserialiser and compiler, the extensions'
//! set-up, the command line's parsing and the world's building touched, and
//! malloc's free memory. A long-running server then
//! holds what serving touches, not what starting did.
//!
//! Only clean pages go: the binary's segments that are never written (its
//! code and read-only data; relocated data is writable at load and stays).
//! The mapping itself stays, so whatever runs again is mapped back from the
//! page cache on its first touch, exactly as it was.

/// Start-up is over (`Limina.startUpOver()`): a server's first reply once
/// its world exists is out, and the code that built the world, compiled its
/// modules' functions and listed its tools need not stay resident.
#[deno_core::op2(fast)]
pub fn op_start_up_over() {
  release();
}

/// Drops this process's pages of the binary's unwritten segments and trims
/// malloc's free memory.
pub fn release() {
  // SAFETY: the callback only reads the program headers it is given.
  unsafe { libc::dl_iterate_phdr(Some(release_clean_segments), std::ptr::null_mut()) };
  // SAFETY: malloc_trim only returns free memory to the system.
  unsafe { libc::malloc_trim(0) };
}

/// For the first object listed (the executable itself): every loaded
/// segment without write permission, page-aligned inward, is advised
/// `MADV_DONTNEED`. Returns 1 to stop after it.
unsafe extern "C" fn release_clean_segments(info: *mut libc::dl_phdr_info, _size: libc::size_t, _data: *mut libc::c_void) -> libc::c_int {
  // SAFETY: the loader passes a valid `dl_phdr_info` whose `dlpi_phdr` has `dlpi_phnum` entries.
  let info = unsafe { &*info };
  let headers = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum)) };
  // SAFETY: sysconf has no preconditions.
  let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
  for h in headers.iter().filter(|h| h.p_type == libc::PT_LOAD && h.p_flags & libc::PF_W == 0) {
    let start = (info.dlpi_addr as usize + h.p_vaddr as usize).next_multiple_of(page);
    let end = (info.dlpi_addr as usize + h.p_vaddr as usize + h.p_memsz as usize) / page * page;
    if end > start {
      // SAFETY: a private, read-only file mapping of this executable: dropping its pages only
      // makes the next access map them again from the (unchanged, running) file.
      unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED) };
    }
  }
  1
}

#[cfg(test)]
mod tests {
  /// Read-only data nothing else reads, large enough that its middle page
  /// shares no fault-around window with anything the test runs.
  static UNTOUCHED: [u8; 256 * 1024] = [7; 256 * 1024];

  /// Whether the page holding `addr` is mapped in now (`/proc/self/pagemap`'s "present" bit).
  fn resident(addr: *const u8) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64;
    let mut pagemap = std::fs::File::open("/proc/self/pagemap").unwrap();
    pagemap.seek(SeekFrom::Start(addr as u64 / page * 8)).unwrap();
    let mut entry = [0u8; 8];
    pagemap.read_exact(&mut entry).unwrap();
    u64::from_le_bytes(entry) >> 63 == 1
  }

  #[test]
  fn release_gives_back_read_only_pages_that_read_back_the_same() {
    let byte: *const u8 = &UNTOUCHED[UNTOUCHED.len() / 2];
    // SAFETY: reads of a static's byte.
    assert_eq!(unsafe { byte.read_volatile() }, 7);
    assert!(resident(byte), "read, its page is resident");
    super::release();
    assert!(!resident(byte), "released, its page is no longer resident");
    assert_eq!(unsafe { byte.read_volatile() }, 7, "read again, it comes back from the file as it was");
    assert!(resident(byte));
  }
}
