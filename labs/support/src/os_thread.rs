//! What the operating system says about a thread: asleep or running, and how often it
//! went to sleep. A test can tell a thread that parks while it waits from one that
//! spins (it never sleeps) or naps (it sleeps and wakes again and again), which no
//! count of polls or wake-ups shows.
//!
//! Linux only: it reads `/proc`. Elsewhere [`OsThread::current`] returns `None`, and a
//! test skips the check. The observations are of the thread's state, not of time: a
//! thread parked in `std::thread::park` is asleep however busy the machine is.

use std::fs;

/// A thread of this process, as the kernel sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OsThread {
    tid: u32,
}

impl OsThread {
    /// The calling thread, or `None` where `/proc/thread-self` does not exist (not Linux).
    pub fn current() -> Option<OsThread> {
        // `/proc/thread-self` links to `<pid>/task/<tid>`.
        let link = fs::read_link("/proc/thread-self").ok()?;
        let tid = link.file_name()?.to_str()?.parse().ok()?;
        Some(OsThread { tid })
    }

    /// The kernel's thread id.
    pub fn tid(&self) -> u32 {
        self.tid
    }

    fn read(&self, file: &str) -> Option<String> {
        fs::read_to_string(format!("/proc/self/task/{}/{file}", self.tid)).ok()
    }

    /// The thread's state letter: `'R'` running or waiting for a CPU, `'S'` asleep
    /// (parked, sleeping, waiting on a lock or a channel), `'D'` asleep in the kernel,
    /// and so on (`man 5 proc`). `None` once the thread has ended.
    pub fn state(&self) -> Option<char> {
        let stat = self.read("stat")?;
        // "tid (name) S …": the name may hold spaces and parentheses, so look after
        // the last ')'.
        let after_name = &stat[stat.rfind(')')? + 1..];
        after_name.trim_start().chars().next()
    }

    /// Whether the thread is asleep right now (`'S'` or `'D'`).
    pub fn asleep(&self) -> Option<bool> {
        self.state().map(|s| matches!(s, 'S' | 'D'))
    }

    /// How many times the thread has gone to sleep so far: its voluntary context
    /// switches (a `park`, a `sleep`, a blocking lock or read). A thread that spins or
    /// yields is switched out involuntarily, which this does not count.
    pub fn sleeps(&self) -> Option<u64> {
        let status = self.read("status")?;
        status
            .lines()
            .find_map(|line| line.strip_prefix("voluntary_ctxt_switches:"))?
            .trim()
            .parse()
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::thread;
    use std::time::Duration;

    #[test]
    fn sees_a_parked_thread_asleep_and_counts_its_sleeps() {
        let Some(me) = OsThread::current() else {
            return; // not Linux
        };
        assert_eq!(me.state(), Some('R'), "the thread reading is running");
        let (tx, rx) = mpsc::channel();
        let (go, wait) = mpsc::channel::<()>();
        let parked = thread::spawn(move || {
            tx.send(OsThread::current().unwrap()).unwrap();
            let before = OsThread::current().unwrap().sleeps().unwrap();
            // Blocks until the other side sends: asleep meanwhile.
            wait.recv().unwrap();
            OsThread::current().unwrap().sleeps().unwrap() - before
        });
        let other = rx.recv().unwrap();
        let mut seen_asleep = false;
        for _ in 0..200 {
            if other.asleep() == Some(true) {
                seen_asleep = true;
                break;
            }
            thread::sleep(Duration::from_millis(5));
        }
        go.send(()).unwrap();
        let slept = parked.join().unwrap();
        assert!(seen_asleep, "a thread blocked on a channel is asleep");
        assert!(slept >= 1, "it went to sleep at least once");
        assert_eq!(other.state(), None, "the thread has ended");
    }
}
