package io.adreport.serving.pacing;

import java.util.ArrayDeque;

/**
 * A campaign's recent spend rate from the pacing service's own reads: the growth of its lifetime
 * spend over the last {@link #WINDOW_MILLIS} of observations, or over its last half or quarter when
 * that is faster (a burst shows there first). Spend becomes visible in steps (one per spend
 * flush), so one read-to-read delta is 0 or several flushes' worth; windows of several reads
 * smooth that. Not thread-safe: the pacing thread alone uses it.
 */
final class SpendRate {
    static final long WINDOW_MILLIS = 1_000;

    private record Seen(long at, long spent) {
    }

    private final ArrayDeque<Seen> seen = new ArrayDeque<>();

    /**
     * Records {@code spent} (lifetime micros) at {@code at} (ms) and returns the spend per ms over
     * the window ending now; 0 until there are two observations.
     */
    double observe(long at, long spent) {
        Seen last = seen.peekLast();
        if (last != null && (at < last.at() || spent < last.spent())) {
            seen.clear(); // a clock step back or a corrected total: start over
        }
        seen.addLast(new Seen(at, spent));
        while (seen.size() > 2 && at - seen.peekFirst().at() > WINDOW_MILLIS) {
            seen.removeFirst();
        }
        double rate = growth(seen.peekFirst(), at, spent);
        rate = Math.max(rate, growth(since(at - WINDOW_MILLIS / 2), at, spent));
        return Math.max(rate, growth(since(at - WINDOW_MILLIS / 4), at, spent));
    }

    /** The oldest observation at or after {@code from}, or the newest before it when none is. */
    private Seen since(long from) {
        Seen pick = seen.peekFirst();
        for (Seen s : seen) {
            if (s.at() > from) {
                break;
            }
            pick = s;
        }
        return pick;
    }

    private static double growth(Seen first, long at, long spent) {
        return at > first.at() ? (spent - first.spent()) / (double) (at - first.at()) : 0;
    }
}
