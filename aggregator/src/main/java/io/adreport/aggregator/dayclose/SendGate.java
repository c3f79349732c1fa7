package io.adreport.aggregator.dayclose;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Tells the day-close watcher, per UTC day, whether an increment of that day may still reach
 * HBase; the watcher acknowledges a day's close only when none can.
 *
 * <p>Protocol. A sender (one flush batch call, or the increments of one event in naive mode)
 * {@linkplain #enter registers} the days its increments belong to, <em>then</em> reads the
 * closed days and {@linkplain Send#skip skips} the cells of every closed one, sends the rest, and
 * {@linkplain Send#close closes} its registration when the call has returned. The watcher
 * publishes a newly closed day first and <em>then</em> asks {@link #quiet}. Registration and
 * {@code quiet} synchronize on this gate, so either the watcher sees the registration (and waits
 * for that call to return) or the registration came after the watcher's check, hence after the
 * publication, and the sender sees the day closed and skips it. Only calls that carry cells of
 * the closing day are waited for; a long flush of other days, or the not yet sent rest of the
 * same flush, does not delay the acknowledgement.
 *
 * <p>Uncertain outcomes. A call that returned with an error may have been applied or not; worse,
 * its request may still wait in a region server's queue. A region server drops a queued call
 * whose deadline (arrival + the client's RPC timeout) has passed before it starts it, so a day
 * with such a call is held back from {@code quiet} for {@code uncertainHold} (the RPC timeout)
 * after the call returned: a request that arrived before the call returned has by then either
 * started, or been dropped. See the class comment of {@link DayCloseWatcher} and docs/RECONCILE.md.
 *
 * <p>Concurrency: every field is guarded by this gate's monitor; waits use {@link #wait}, so a
 * closing registration wakes a waiting watcher at once. Times are {@link System#nanoTime()}:
 * they bound waits inside this process, they are not dates.
 */
public final class SendGate {
    private final long uncertainHoldNanos;
    private final Map<Long, Integer> sending = new HashMap<>(); // epoch day -> open registrations
    private final Map<Long, Long> uncertainUntil = new HashMap<>(); // epoch day -> nanoTime

    /** @param uncertainHold how long a day stays unacknowledged after a call of it ended uncertain */
    public SendGate(Duration uncertainHold) {
        this.uncertainHoldNanos = uncertainHold.toNanos();
    }

    /** A gate that holds no day after an uncertain call (tests of other things). */
    public SendGate() {
        this(Duration.ZERO);
    }

    /** One sender's registration; close it when its call has returned. Not thread-safe. */
    public final class Send implements AutoCloseable {
        private final Set<Long> days;
        private final Set<Long> uncertain = new HashSet<>();
        private boolean closed;

        private Send(Set<Long> days) {
            this.days = days;
        }

        /** Gives up {@code day}: its cells are not sent by this sender. */
        public void skip(long day) {
            if (days.remove(day)) {
                release(Set.of(day), Set.of());
            }
        }

        /** Some increment of {@code day} in this call has an unknown outcome. */
        public void uncertain(long day) {
            uncertain.add(day);
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                release(days, uncertain);
            }
        }
    }

    /** Registers a sender of increments of {@code days} (UTC epoch days). */
    public synchronized Send enter(Set<Long> days) {
        for (long d : days) {
            sending.merge(d, 1, Integer::sum);
        }
        return new Send(new HashSet<>(days));
    }

    private synchronized void release(Set<Long> days, Set<Long> uncertainDays) {
        long until = System.nanoTime() + uncertainHoldNanos;
        for (long d : uncertainDays) {
            if (uncertainHoldNanos > 0) {
                uncertainUntil.merge(d, until, Math::max);
            }
        }
        for (long d : days) {
            sending.computeIfPresent(d, (k, n) -> n == 1 ? null : n - 1);
        }
        notifyAll();
    }

    /**
     * Of {@code days}, those for which no increment can reach HBase any more: no registered
     * sender carries them and no uncertainty hold is open. Waits up to {@code maxWait} for the
     * others to become quiet; call it only after the days are published as closed.
     */
    public synchronized Set<Long> quiet(Set<Long> days, Duration maxWait) throws InterruptedException {
        long deadline = System.nanoTime() + maxWait.toNanos();
        while (true) {
            long now = System.nanoTime();
            Set<Long> quiet = new HashSet<>();
            long nextHoldEnd = Long.MAX_VALUE;
            for (long d : days) {
                Long hold = uncertainUntil.get(d);
                if (hold != null && hold - now <= 0) {
                    uncertainUntil.remove(d);
                    hold = null;
                }
                if (hold != null) {
                    nextHoldEnd = Math.min(nextHoldEnd, hold);
                } else if (!sending.containsKey(d)) {
                    quiet.add(d);
                }
            }
            long left = deadline - now;
            if (quiet.size() == days.size() || left <= 0) {
                return quiet;
            }
            long waitNanos = Math.min(left, nextHoldEnd == Long.MAX_VALUE ? left : nextHoldEnd - now);
            wait(Math.max(1, waitNanos / 1_000_000), 0);
        }
    }

    /** True when {@code day} is being sent or held (tests). */
    synchronized boolean busy(long day) {
        return sending.containsKey(day) || uncertainUntil.containsKey(day);
    }
}
