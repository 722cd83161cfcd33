//! Several workers on one thread, as pgbench's `-j` threads each drive several clients: each
//! worker runs as a coroutine on a stack of its own (corosensei), gives way where it would
//! block (its connection's answer not yet come, an instant not yet reached), and the thread
//! resumes whichever can go on, waiting on one epoll set for the sockets of those that wait. On
//! two cores shared with the server, a few threads each woken for several connections cost the
//! client less than a blocked thread per connection (`bench/README.md`).
//!
//! Code that may run on such a thread waits through a [`Watch`] and [`sleep`]; on a thread of
//! its own they block as before, so one connection serves both shapes.

use corosensei::stack::DefaultStack;
use corosensei::{CoroutineResult, ScopedCoroutine, ScopedCoroutineRef, Yielder};
use std::cell::Cell;
use std::collections::HashMap;
use std::ops::Range;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What a worker that gave way waits for.
#[derive(Clone, Copy)]
enum Wait {
    Readable(RawFd, u64),
    Until(Instant),
}

type Coroutine<'a> = ScopedCoroutine<'a, (), Wait, (), DefaultStack>;
type Resumable<'s> = ScopedCoroutineRef<'s, (), Wait, (), DefaultStack>;

/// Each worker's stack: as much as a thread's by default; only the pages used are taken.
const STACK: usize = 2 << 20;

thread_local! {
    /// The running coroutine's way back to its thread's loop; null outside any.
    static CURRENT: Cell<*const Yielder<(), Wait>> = const { Cell::new(std::ptr::null()) };
}

/// Gives way until `wait` is met; false outside a coroutine.
fn give_way(wait: Wait) -> bool {
    let yielder = CURRENT.get();
    if yielder.is_null() {
        return false;
    }
    // SAFETY: a coroutine sets CURRENT from its own yielder, which lives while it runs, and
    // the thread's loop clears it whenever control comes back to the loop.
    unsafe { (*yielder).suspend(wait) };
    // The loop cleared it, and others ran meanwhile.
    CURRENT.set(yielder);
    true
}

/// One connection's waits for its socket. The thread's epoll set keeps a socket registered
/// from one wait to the next; a socket number is reused once its connection closes, so the
/// set tells a socket by the watch that waits on it, and a new connection's watch registers
/// its socket afresh.
pub struct Watch(u64);

impl Watch {
    pub fn new() -> Watch {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Watch(NEXT.fetch_add(1, Ordering::Relaxed))
    }

    /// Waits until `fd`, this watch's connection's socket, has something to read, or is closed.
    pub fn readable(&self, fd: RawFd) {
        if !give_way(Wait::Readable(fd, self.0)) {
            let mut polled = [libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            }];
            // An interruption returns early; the caller finds nothing to read and waits again.
            poll(&mut polled, None);
        }
    }
}

impl Default for Watch {
    fn default() -> Self {
        Self::new()
    }
}

/// Sleeps for `d`, giving way to the thread's other workers.
pub fn sleep(d: Duration) {
    sleep_until(Instant::now() + d);
}

/// Sleeps until `at`, giving way to the thread's other workers.
pub fn sleep_until(at: Instant) {
    if !give_way(Wait::Until(at)) {
        std::thread::sleep(at.saturating_duration_since(Instant::now()));
    }
}

/// Lets the thread's other workers (or, alone on it, the machine's other threads) run first.
pub fn yield_now() {
    if !give_way(Wait::Until(Instant::now())) {
        std::thread::yield_now();
    }
}

/// Whether the caller runs as one of several workers of a thread (then it must not spin).
pub fn shared() -> bool {
    !CURRENT.get().is_null()
}

/// The workers each thread carries: one each, or with `wanted` threads (pgbench's -j, at most
/// one per worker) consecutive blocks, the first threads taking one more where they do not
/// divide evenly, as pgbench deals its clients to its threads.
pub fn deal(workers: usize, wanted: Option<usize>) -> Vec<Range<usize>> {
    let threads = wanted.unwrap_or(workers).clamp(1, workers);
    let mut dealt = 0;
    (0..threads)
        .map(|i| {
            let n = (workers - dealt).div_ceil(threads - i);
            dealt += n;
            dealt - n..dealt
        })
        .collect()
}

/// Runs `bodies` on this thread until each has returned, each as a coroutine that gives way
/// where it would block. A panic in one comes out here.
pub fn run_together<'a>(bodies: Vec<Box<dyn FnOnce() + 'a>>) -> std::io::Result<()> {
    let mut coroutines = Vec::with_capacity(bodies.len());
    for body in bodies {
        let stack = DefaultStack::new(STACK)?;
        coroutines.push(Coroutine::with_stack(
            stack,
            move |yielder: &Yielder<(), Wait>, ()| {
                CURRENT.set(yielder);
                body();
            },
        ));
    }
    coroutines.reverse();
    within(coroutines, Vec::new());
    Ok(())
}

/// Enters each coroutine's scope in turn (a scope ensures it ends before what it borrows),
/// then runs them all from the innermost.
fn within(mut left: Vec<Coroutine<'_>>, entered: Vec<Resumable<'_>>) {
    match left.pop() {
        None => schedule(entered),
        Some(next) => next.scope(move |resumable| {
            let mut entered: Vec<Resumable<'_>> = entered;
            entered.push(resumable);
            within(left, entered)
        }),
    }
}

/// Where a worker is.
#[derive(Clone, Copy)]
enum State {
    Ready,
    Waiting(Wait),
    Done,
}

/// Resumes each ready worker in turn until it gives way or ends, then waits for the sockets and
/// instants the others wait for.
fn schedule(mut workers: Vec<Resumable<'_>>) {
    let mut states = vec![State::Ready; workers.len()];
    let mut left = workers.len();
    let (mut sockets, mut ready) = (Sockets::new(), Vec::new());
    while left > 0 {
        for (worker, state) in workers.iter_mut().zip(states.iter_mut()) {
            if let State::Ready = state {
                let result = worker.resume(());
                CURRENT.set(std::ptr::null());
                *state = match result {
                    CoroutineResult::Yield(wait) => State::Waiting(wait),
                    CoroutineResult::Return(()) => {
                        left -= 1;
                        State::Done
                    }
                };
            }
        }
        if left == 0 {
            break;
        }
        let mut soonest: Option<Instant> = None;
        for state in &mut states {
            match state {
                // A socket the set would not take: its worker reads again (the wait below
                // returns at once) rather than wait for ever.
                State::Waiting(Wait::Readable(fd, watch)) if !sockets.register(*fd, *watch) => {
                    *state = State::Ready;
                    soonest = Some(Instant::now());
                }
                State::Waiting(Wait::Until(at)) => {
                    soonest = Some(soonest.map_or(*at, |s| s.min(*at)));
                }
                _ => {}
            }
        }
        let now = Instant::now();
        sockets.wait(
            soonest.map(|s| s.saturating_duration_since(now)),
            &mut ready,
        );
        for &fd in &ready {
            let waiter = states
                .iter()
                .position(|s| matches!(s, State::Waiting(Wait::Readable(f, _)) if *f == fd));
            match waiter {
                Some(i) => states[i] = State::Ready,
                // Readable while its worker sleeps or has ended: left out of the set until
                // waited on again, or each wait would return at once.
                None => sockets.forget(fd),
            }
        }
        let now = Instant::now();
        for state in &mut states {
            if let State::Waiting(Wait::Until(at)) = state {
                if *at <= now {
                    *state = State::Ready;
                }
            }
        }
    }
}

/// A thread's epoll set of its workers' sockets, each registered (level-triggered: libpq may
/// leave part of an answer unread) from the first wait on it until its worker stops waiting
/// for it; pgbench polls each waiting socket anew at every wait.
struct Sockets {
    epoll: Option<OwnedFd>,
    /// Each registered socket's watch.
    watches: HashMap<RawFd, u64>,
    events: Vec<libc::epoll_event>,
    /// Whether epoll_pwait2 was found missing or refused.
    lacks_pwait2: bool,
}

impl Sockets {
    fn new() -> Sockets {
        // SAFETY: plain call; a failure leaves no descriptor.
        let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        Sockets {
            // SAFETY: a new descriptor, ours alone. Without one (descriptors exhausted), each
            // wait polls instead.
            epoll: (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) }),
            watches: HashMap::new(),
            events: Vec::new(),
            lacks_pwait2: false,
        }
    }

    /// Registers `fd` for `watch` unless it is already; false if the set refuses it.
    fn register(&mut self, fd: RawFd, watch: u64) -> bool {
        if self.watches.get(&fd) == Some(&watch) {
            return true;
        }
        if let Some(epoll) = &self.epoll {
            let mut event = libc::epoll_event {
                events: libc::EPOLLIN as u32,
                u64: fd as u64,
            };
            // SAFETY: both descriptors are open; the event is read during the call.
            let mut ctl = |op| unsafe { libc::epoll_ctl(epoll.as_raw_fd(), op, fd, &mut event) };
            // A socket number another watch had: closed since (which left the set) or, where
            // it was not, the same socket handed on.
            let added = ctl(libc::EPOLL_CTL_ADD) == 0
                || (std::io::Error::last_os_error().raw_os_error() == Some(libc::EEXIST)
                    && ctl(libc::EPOLL_CTL_MOD) == 0);
            if !added {
                return false;
            }
        }
        self.watches.insert(fd, watch);
        true
    }

    /// Takes `fd` out of the set.
    fn forget(&mut self, fd: RawFd) {
        if let (Some(epoll), Some(_)) = (&self.epoll, self.watches.remove(&fd)) {
            // SAFETY: both descriptors are open (a closed socket has left the set already).
            unsafe {
                libc::epoll_ctl(
                    epoll.as_raw_fd(),
                    libc::EPOLL_CTL_DEL,
                    fd,
                    std::ptr::null_mut(),
                )
            };
        }
    }

    /// Waits until a registered socket is readable or `timeout` has passed (None: no limit),
    /// and puts the readable sockets in `ready`. An interruption returns early, with none.
    fn wait(&mut self, timeout: Option<Duration>, ready: &mut Vec<RawFd>) {
        ready.clear();
        let Some(epoll) = &self.epoll else {
            let mut polled: Vec<libc::pollfd> = (self.watches.keys())
                .map(|&fd| libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                })
                .collect();
            poll(&mut polled, timeout);
            ready.extend(polled.iter().filter(|p| p.revents != 0).map(|p| p.fd));
            return;
        };
        let epoll = epoll.as_raw_fd();
        let room = self.watches.len().max(1);
        self.events
            .resize(room, libc::epoll_event { events: 0, u64: 0 });
        let spec = timeout.map(timespec);
        let at = spec.as_ref().map_or(std::ptr::null(), |s| s as *const _);
        // epoll_pwait2 (Linux 5.11) waits to the nanosecond, as ppoll, through the system call
        // itself, so an older C library still links. An older kernel lacks it (ENOSYS) and an
        // older container's seccomp profile refuses it (EPERM): there, remembered so that no
        // wait begins with a call that fails, the set is polled for readiness to the
        // nanosecond and then read at once.
        let mut got = -1;
        if !self.lacks_pwait2 {
            // SAFETY: the events buffer holds `room`; the timeout lives through the call.
            got = unsafe {
                libc::syscall(
                    libc::SYS_epoll_pwait2,
                    epoll,
                    self.events.as_mut_ptr(),
                    room as libc::c_int,
                    at,
                    std::ptr::null::<libc::sigset_t>(),
                    0usize,
                )
            };
            let error = (got < 0).then(|| std::io::Error::last_os_error().raw_os_error());
            self.lacks_pwait2 = matches!(error, Some(Some(libc::ENOSYS | libc::EPERM)));
        }
        if self.lacks_pwait2 {
            let mut polled = [libc::pollfd {
                fd: epoll,
                events: libc::POLLIN,
                revents: 0,
            }];
            poll(&mut polled, timeout);
            // SAFETY: as above, without waiting.
            got = unsafe { libc::epoll_wait(epoll, self.events.as_mut_ptr(), room as _, 0) }
                as libc::c_long;
        }
        let got = got.max(0) as usize;
        ready.extend(self.events[..got].iter().map(|e| e.u64 as RawFd));
    }
}

fn timespec(t: Duration) -> libc::timespec {
    libc::timespec {
        tv_sec: t.as_secs() as libc::time_t,
        tv_nsec: t.subsec_nanos() as libc::c_long,
    }
}

/// poll(2) with a timeout to the nanosecond (None: none); an interruption returns early.
fn poll(fds: &mut [libc::pollfd], timeout: Option<Duration>) {
    let spec = timeout.map(timespec);
    let at = spec.as_ref().map_or(std::ptr::null(), |s| s as *const _);
    // SAFETY: `fds` is a live array of its length; the timeout lives through the call.
    unsafe {
        libc::ppoll(
            fds.as_mut_ptr(),
            fds.len() as libc::nfds_t,
            at,
            std::ptr::null(),
        )
    };
}

#[cfg(test)]
mod tests;
