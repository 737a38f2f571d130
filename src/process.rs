//! What the server asks of its process at start: as many open files as the system lets it have
//! (every long-poll and stream holds one), and a sentence on stderr before a SIGBUS stops it.

use std::io;

/// Raises the soft limit on open files to the hard limit; returns the limit now in force.
pub fn raise_open_files_limit() -> io::Result<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed by pointer.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return Err(io::Error::last_os_error());
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    Ok(limit.rlim_cur)
}

/// What a SIGBUS means here, written before the process stops.
const BUS_ERROR: &[u8] = b"kings-corner: SIGBUS: a memory-mapped file could not be read or \
written (its disk full, or the file truncated or made unwritable): check the free space and \
the files beside the database, then restart.\n";

extern "C" fn on_bus_error(signal: libc::c_int) {
    // SAFETY: write(2), signal(2) and raise(3) are async-signal-safe; the message is static.
    unsafe {
        libc::write(2, BUS_ERROR.as_ptr().cast(), BUS_ERROR.len());
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Says why before a SIGBUS stops the process (which nothing can prevent once a mapped page
/// fails), instead of dying without a word.
pub fn explain_bus_errors() {
    // SAFETY: installs a handler that only calls async-signal-safe functions.
    unsafe {
        libc::signal(
            libc::SIGBUS,
            on_bus_error as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_open_files_limit_is_raised_to_the_hard_limit() {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: as above; the soft limit is lowered within the hard limit and raised again.
        unsafe {
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
            let lowered = libc::rlimit {
                rlim_cur: limit.rlim_cur.min(256),
                rlim_max: limit.rlim_max,
            };
            libc::setrlimit(libc::RLIMIT_NOFILE, &lowered);
        }
        assert_eq!(super::raise_open_files_limit().unwrap(), limit.rlim_max);
    }
}
