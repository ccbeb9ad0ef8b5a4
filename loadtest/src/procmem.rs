//! Server memory: the resident set size of a process from `/proc/<pid>/status`, and
//! the process listening on a TCP port (found through `/proc/net/tcp` and the socket
//! inodes in `/proc/<pid>/fd`).

use std::fs;

/// Why memory could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MemError {
    /// A `/proc` file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// `/proc/<pid>/status` had no readable `VmRSS` line.
    #[error("no VmRSS for pid {0}")]
    NoRss(u32),
}

/// The resident set size of `pid`, in KiB.
pub fn rss_kib(pid: u32) -> Result<u64, MemError> {
    let path = format!("/proc/{pid}/status");
    let text = fs::read_to_string(&path).map_err(|source| MemError::Read { path, source })?;
    parse_rss(&text).ok_or(MemError::NoRss(pid))
}

/// The sum of [`rss_kib`] over several processes (several nodes).
pub fn total_rss_kib(pids: &[u32]) -> Result<u64, MemError> {
    pids.iter().map(|p| rss_kib(*p)).sum()
}

fn parse_rss(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// The socket inode listening on 127.0.0.1 (or any address) at `port`, from the text
/// of `/proc/net/tcp`.
fn listening_inode(table: &str, port: u16) -> Option<u64> {
    table.lines().skip(1).find_map(|line| {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let local = cols.get(1)?;
        let state = cols.get(3)?;
        let (_, p) = local.split_once(':')?;
        let p = u16::from_str_radix(p, 16).ok()?;
        (p == port && *state == "0A")
            .then(|| cols.get(9)?.parse().ok())
            .flatten()
    })
}

/// The process listening on TCP `port`, if it can be found (it must be readable by us).
pub fn pid_listening_on(port: u16) -> Result<Option<u32>, MemError> {
    let mut inode = None;
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        if let Ok(text) = fs::read_to_string(table)
            && let Some(i) = listening_inode(&text, port)
        {
            inode = Some(i);
            break;
        }
    }
    let Some(inode) = inode else {
        return Ok(None);
    };
    let wanted = format!("socket:[{inode}]");
    let procs = fs::read_dir("/proc").map_err(|source| MemError::Read {
        path: "/proc".into(),
        source,
    })?;
    for entry in procs.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if fs::read_link(fd.path()).is_ok_and(|l| l.to_str() == Some(wanted.as_str())) {
                return Ok(Some(pid));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_status_and_tcp_table() {
        assert_eq!(parse_rss("Name:\tx\nVmRSS:\t  1234 kB\n"), Some(1234));
        assert_eq!(parse_rss("Name:\tx\n"), None);
        let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 100 0 0 10 0\n   1: 0100007F:1F91 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 4243 1 0000000000000000 100 0 0 10 0\n";
        assert_eq!(listening_inode(table, 8080), Some(4242));
        assert_eq!(listening_inode(table, 8081), None);
    }

    #[test]
    fn own_rss_and_listener() {
        assert!(rss_kib(std::process::id()).unwrap() > 0);
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        assert_eq!(pid_listening_on(port).unwrap(), Some(std::process::id()));
    }
}
