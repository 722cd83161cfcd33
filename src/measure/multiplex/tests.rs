use super::*;
use crate::measure::progress::Progress;
use crate::measure::runner::run_step;
use crate::measure::timing::{Arrival, Schedule, Timing};
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, IntoRawFd};
use std::os::unix::net::UnixStream;
use std::sync::Mutex;

#[test]
fn workers_take_turns_where_they_wait() {
    take_turns();
}

#[test]
fn without_epoll_pwait2_the_set_is_polled() {
    // Kernels before 5.11 lack epoll_pwait2 (ENOSYS) and an older container's seccomp profile
    // refuses it (EPERM); a filter on this thread alone (and the threads it starts) refuses it
    // here, as such a profile does.
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        refuse(libc::SYS_epoll_pwait2, libc::EPERM);
        // SAFETY: the call fails before it reads any argument.
        let got = unsafe { libc::syscall(libc::SYS_epoll_pwait2, -1, 0, 0, 0, 0, 0) };
        let error = std::io::Error::last_os_error().raw_os_error();
        assert_eq!((got, error), (-1, Some(libc::EPERM)), "the filter holds");
        take_turns();
        sleepers_overlap_on_one_thread();
        a_worker_asleep_beside_an_unread_socket_does_not_spin();
        done.send(()).unwrap();
    });
    finished
        .recv_timeout(Duration::from_secs(10))
        .expect("the workers ended, each in turn");
}

/// Makes the system call `number` fail with `errno` on the calling thread and those it starts.
fn refuse(number: libc::c_long, errno: i32) {
    use libc::{BPF_ABS, BPF_JEQ, BPF_JMP, BPF_K, BPF_LD, BPF_RET, BPF_W};
    // SAFETY: BPF_STMT and BPF_JUMP only build the instructions.
    let program = unsafe {
        [
            // The system call's number: seccomp_data's first field.
            libc::BPF_STMT((BPF_LD | BPF_W | BPF_ABS) as u16, 0),
            libc::BPF_JUMP((BPF_JMP | BPF_JEQ | BPF_K) as u16, number as u32, 0, 1),
            libc::BPF_STMT(BPF_RET as u16, libc::SECCOMP_RET_ERRNO | errno as u32),
            libc::BPF_STMT(BPF_RET as u16, libc::SECCOMP_RET_ALLOW),
        ]
    };
    let filter = libc::sock_fprog {
        len: program.len() as u16,
        filter: program.as_ptr() as *mut _,
    };
    // SAFETY: plain calls; the program outlives the second, which copies it.
    unsafe {
        assert_eq!(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
        let set = libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            &filter as *const libc::sock_fprog,
        );
        assert_eq!(set, 0, "{}", std::io::Error::last_os_error());
    }
}

/// Workers on one thread, each waiting for a socket the next one writes to.
fn take_turns() {
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
                    Watch::new().readable(pairs[i].1.as_raw_fd());
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
fn a_new_connection_on_a_reused_socket_number_is_waited_on() {
    // Each round a worker's new socket takes the number the last round's had (dup2 onto one
    // number: left to the kernel, a test on another thread may take the freed number first),
    // and it waits on it; another writes to it. A set that kept the old registration would
    // miss the new socket and wait forever.
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let number = UnixStream::pair().unwrap().0.into_raw_fd();
        let current = std::cell::RefCell::new(None::<UnixStream>);
        let rounds = std::cell::Cell::new(0);
        let (current, rounds) = (&current, &rounds);
        let bodies: Vec<Box<dyn FnOnce() + '_>> = vec![
            Box::new(move || {
                for _ in 0..3 {
                    let (x, y) = UnixStream::pair().unwrap();
                    // SAFETY: both numbers are this test's own open sockets; dup2 closes the
                    // last round's socket under `number` and puts the new one there.
                    assert_eq!(unsafe { libc::dup2(y.as_raw_fd(), number) }, number);
                    drop(y);
                    *current.borrow_mut() = Some(x);
                    rounds.set(rounds.get() + 1);
                    Watch::new().readable(number);
                    // SAFETY: `number` stays open; ManuallyDrop leaves closing it to the end.
                    let y = std::mem::ManuallyDrop::new(unsafe { UnixStream::from_raw_fd(number) });
                    (&*y).read_exact(&mut [0u8]).unwrap();
                    current.borrow_mut().take();
                }
            }),
            Box::new(move || {
                for round in 0..3 {
                    while rounds.get() <= round {
                        sleep(Duration::from_millis(2));
                    }
                    (current.borrow().as_ref().unwrap())
                        .write_all(&[1])
                        .unwrap();
                }
            }),
        ];
        run_together(bodies).unwrap();
        // SAFETY: the test's own socket, no longer used.
        drop(unsafe { OwnedFd::from_raw_fd(number) });
        done.send(()).unwrap();
    });
    finished
        .recv_timeout(Duration::from_secs(10))
        .expect("a wait on the new socket never ended");
}

#[test]
fn a_worker_asleep_beside_an_unread_socket_does_not_spin() {
    // A socket left readable stays so; were it kept in the set while its worker sleeps,
    // each wait would return at once and the thread would spin through the sleep.
    let cpu = || Duration::from_nanos(crate::measure::resources::thread_cpu_ns());
    let spent = Cell::new(Duration::ZERO);
    let body = || {
        let (x, y) = UnixStream::pair().unwrap();
        (&x).write_all(&[1]).unwrap();
        Watch::new().readable(y.as_raw_fd());
        let before = cpu();
        sleep(Duration::from_millis(100));
        spent.set(cpu() - before);
    };
    run_together(vec![Box::new(body)]).unwrap();
    assert!(
        spent.get() < Duration::from_millis(30),
        "the thread spent {:?} of a 100 ms sleep",
        spent.get()
    );
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
