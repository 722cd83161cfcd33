//! Several workers on one thread, as pgbench's `-j` threads each drive several clients: each
//! worker runs as a coroutine on a stack of its own (corosensei), gives way where it would
//! block (its connection's answer not yet come, an instant not yet reached), and the thread
//! resumes whichever can go on, polling the sockets of those that wait. On two cores shared
//! with the server, a few threads each woken for several connections cost the client less than
//! a blocked thread per connection (`bench/README.md`).
//!
//! Code that may run on such a thread waits through [`readable`] and [`sleep`]; on a thread of
//! its own they block as before, so one connection serves both shapes.

use corosensei::stack::DefaultStack;
use corosensei::{CoroutineResult, ScopedCoroutine, ScopedCoroutineRef, Yielder};
use std::cell::Cell;
use std::ops::Range;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

/// What a worker that gave way waits for.
#[derive(Clone, Copy)]
enum Wait {
    Readable(RawFd),
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

/// Waits until `fd` has something to read, or is closed.
pub fn readable(fd: RawFd) {
    if !give_way(Wait::Readable(fd)) {
        let mut polled = [libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        }];
        // An interruption returns early; the caller finds nothing to read and waits again.
        poll(&mut polled, None);
    }
}

/// Sleeps for `d`, giving way to the thread's other workers.
pub fn sleep(d: Duration) {
    if !give_way(Wait::Until(Instant::now() + d)) {
        std::thread::sleep(d);
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
    let (mut polled, mut whose) = (Vec::new(), Vec::new());
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
        polled.clear();
        whose.clear();
        let mut soonest: Option<Instant> = None;
        for (i, state) in states.iter().enumerate() {
            match state {
                State::Waiting(Wait::Readable(fd)) => {
                    polled.push(libc::pollfd {
                        fd: *fd,
                        events: libc::POLLIN,
                        revents: 0,
                    });
                    whose.push(i);
                }
                State::Waiting(Wait::Until(at)) => {
                    soonest = Some(soonest.map_or(*at, |s| s.min(*at)));
                }
                _ => {}
            }
        }
        let now = Instant::now();
        poll(
            &mut polled,
            soonest.map(|s| s.saturating_duration_since(now)),
        );
        for (fd, &i) in polled.iter().zip(&whose) {
            if fd.revents != 0 {
                states[i] = State::Ready;
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

/// poll(2) with a timeout to the nanosecond (None: none); an interruption returns early.
fn poll(fds: &mut [libc::pollfd], timeout: Option<Duration>) {
    let spec = timeout.map(|t| libc::timespec {
        tv_sec: t.as_secs() as libc::time_t,
        tv_nsec: t.subsec_nanos() as libc::c_long,
    });
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
mod tests {
    use super::*;
    use crate::measure::progress::Progress;
    use crate::measure::runner::run_step;
    use crate::measure::timing::{Arrival, Schedule, Timing};
    use std::io::{Read, Write};
    use std::os::fd::AsRawFd;
    use std::os::unix::net::UnixStream;
    use std::sync::Mutex;

    #[test]
    fn workers_take_turns_where_they_wait() {
        // Each worker waits for its socket, which the next worker writes to: they can only all
        // end if each gives way while it waits.
        let pairs: Vec<(UnixStream, UnixStream)> =
            (0..3).map(|_| UnixStream::pair().unwrap()).collect();
        let order = std::cell::RefCell::new(Vec::new());
        let bodies: Vec<Box<dyn FnOnce() + '_>> = (0..3)
            .map(|i| {
                let (pairs, order) = (&pairs, &order);
                Box::new(move || {
                    assert!(shared());
                    if i > 0 {
                        (&pairs[i - 1].0).write_all(&[i as u8]).unwrap();
                    }
                    if i < 2 {
                        readable(pairs[i].1.as_raw_fd());
                        let mut got = [0u8];
                        (&pairs[i].1).read_exact(&mut got).unwrap();
                        assert_eq!(got[0] as usize, i + 1);
                    }
                    order.borrow_mut().push(i);
                }) as Box<dyn FnOnce()>
            })
            .collect();
        run_together(bodies).unwrap();
        assert!(!shared());
        // The last, which waits for nothing, ends first; the others once it has written.
        let order = order.into_inner();
        assert_eq!(order.len(), 3);
        assert_eq!(order[0], 2);
    }

    #[test]
    fn threads_take_consecutive_workers_as_pgbench_deals_clients() {
        assert_eq!(deal(5, Some(2)), [0..3, 3..5]);
        assert_eq!(deal(3, None), [0..1, 1..2, 2..3]);
        assert_eq!(deal(2, Some(8)), [0..1, 1..2]);
        assert_eq!(deal(4, Some(1)).len(), 1);
        assert_eq!(deal(4, Some(1))[0], 0..4);
    }

    #[test]
    fn workers_sharing_threads_each_run_their_part() {
        let timing = Timing {
            threads: Some(2),
            ..Timing::default()
        };
        let seen = Mutex::new(std::collections::HashSet::new());
        let out = run_step(
            5,
            &timing,
            &Progress::hidden(),
            |i| Ok(i as u64 + 1),
            |n: &mut u64, w| {
                seen.lock().unwrap().insert(std::thread::current().id());
                for _ in 0..*n * 10 {
                    w.timed(1, || {
                        sleep(Duration::from_micros(200));
                        Ok(())
                    })?;
                }
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(out.ops, 10 + 20 + 30 + 40 + 50);
        assert_eq!(
            seen.into_inner().unwrap().len(),
            2,
            "two threads carried them"
        );
    }

    #[test]
    fn an_open_loop_on_one_thread_keeps_every_workers_schedule() {
        let schedule = Schedule {
            rate: 2000.0,
            arrival: Arrival::Constant,
            seed: 3,
        };
        let timing = Timing {
            threads: Some(1),
            schedule: Some(schedule),
            ..Timing::default()
        }
        .lasting(0.5);
        let out = run_step(3, &timing, &Progress::hidden(), Ok, |_: &mut usize, w| {
            while w.more() {
                w.timed(1, || Ok(()))?;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(out.ops, 1000, "every intended start before the end, once");
        let lag = out.open_loop.as_ref().unwrap().lag.value_at_quantile(0.5);
        assert!(
            lag < 2_000_000,
            "median lag {lag} ns: the sleepers woke late"
        );
    }

    #[test]
    fn sleepers_overlap_on_one_thread() {
        let t0 = Instant::now();
        let bodies: Vec<Box<dyn FnOnce()>> = (0..4)
            .map(|_| Box::new(|| sleep(Duration::from_millis(50))) as Box<dyn FnOnce()>)
            .collect();
        run_together(bodies).unwrap();
        let took = t0.elapsed();
        assert!(took >= Duration::from_millis(50), "{took:?}");
        assert!(took < Duration::from_millis(150), "slept in turn: {took:?}");
    }
}
