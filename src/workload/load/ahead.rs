//! Parts made ahead of the engine on threads of their own and handed over in order, so that
//! generating and loading overlap where a load runs on fewer connections than there are cores
//! (an embedded engine, or tpch's one table at a time).

use std::sync::mpsc::{sync_channel, Receiver};

/// How many threads make one stream's parts ahead of it: the cores the loading streams leave,
/// shared between them (a stream's own thread takes a core; none where the streams take them
/// all, each then making its own parts as it loads).
pub fn makers(streams: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (cores / streams.max(1)).saturating_sub(1)
}

/// Hands `take` the parts as `make` makes them, in the order of `parts`: on this thread with no
/// `makers`; else thread w of W makes parts w, w + W, w + 2W, ... into a channel of its own
/// holding at most two, and part k is read from thread k mod W: the order kept, no more than a
/// few parts held. When `take` returns early, the threads stop at their next part.
pub fn in_order<P: Sync, T: Send, R>(
    parts: &[P],
    makers: usize,
    make: impl Fn(&P) -> T + Sync,
    take: impl FnOnce(&mut dyn Iterator<Item = T>) -> R,
) -> R {
    let makers = makers.min(parts.len());
    if makers == 0 {
        return take(&mut parts.iter().map(make));
    }
    let make = &make;
    std::thread::scope(|scope| {
        let made: Vec<Receiver<T>> = (0..makers)
            .map(|w| {
                let (tx, rx) = sync_channel(2);
                scope.spawn(move || {
                    for part in parts.iter().skip(w).step_by(makers) {
                        // The taker hung up (done, or an error): stop making.
                        if tx.send(make(part)).is_err() {
                            return;
                        }
                    }
                });
                rx
            })
            .collect();
        let mut handed = (0..parts.len()).map_while(|k| made[k % makers].recv().ok());
        let value = take(&mut handed);
        // Hang up, so makers still sending stop.
        drop(handed);
        drop(made);
        value
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_come_in_order_and_an_early_stop_ends_the_makers() {
        let parts: Vec<u32> = (0..100).collect();
        for makers in [0, 1, 2, 3, 7] {
            let all: Vec<u32> = in_order(&parts, makers, |p| p * 2, |made| made.collect());
            assert_eq!(all, (0..100).map(|p| p * 2).collect::<Vec<_>>(), "{makers}");
            let first = in_order(&parts, makers, |p| *p, |made| made.take(5).sum::<u32>());
            assert_eq!(first, 10, "{makers}");
        }
        assert_eq!(makers(usize::MAX), 0);
    }
}
