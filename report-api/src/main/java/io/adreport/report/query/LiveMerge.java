package io.adreport.report.query;

import io.adreport.schema.counting.LiveCounts;
import io.adreport.schema.time.UtcDay;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongPredicate;
import org.apache.hadoop.hbase.client.Result;

/**
 * One report's merge of the aggregators' live counts into the counters it read ({@link LiveCounts}
 * has the protocol): per row and live writer, the answered total minus the writer's stored cell
 * in the row as it was read (the stash), so each event counts once.
 *
 * <p>The stash is filled while reading ({@link #stash}) for the writers known before the read,
 * or, when the report asked while reading, after the answers from the rows it kept
 * ({@link #acceptRacing}), which also leaves out an answer whose writer started over during the
 * read. Rows of days already closed are left out of every answer ({@link LiveDays#closed}).
 *
 * <p>Read tasks may stash concurrently (the stash is a concurrent map); {@link #add} runs on the
 * request thread after every read task ended.
 */
final class LiveMerge {
    private final RowDecoder decoder;
    private final QueryPlan plan;
    private final LiveReads live;
    private final Function<byte[], GroupKey> groupOf;
    private final long[] writers;
    private final Map<RowWriter, long[]> stored = new ConcurrentHashMap<>();

    /** A counter row and one writer id: the stash key of that writer's stored cells in the row. */
    private record RowWriter(byte[] row, long writer) {
        @Override
        public boolean equals(Object o) {
            return o instanceof RowWriter r && r.writer == writer && Arrays.equals(r.row, row);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(row) + Long.hashCode(writer);
        }
    }

    /**
     * @param writers the live writers known before the read (their cells are stashed as rows are read); empty when asking while reading
     * @param groupOf the output cell a counter row sums into, null when the report does not want it
     */
    LiveMerge(RowDecoder decoder, QueryPlan plan, LiveReads live, long[] writers, Function<byte[], GroupKey> groupOf) {
        this.decoder = decoder;
        this.plan = plan;
        this.live = live;
        this.writers = writers;
        this.groupOf = groupOf;
    }

    /** Keeps the stored cells of the known live writers in {@code r}. */
    void stash(Result r) {
        for (long w : writers) {
            long[] cells = new long[decoder.width()];
            if (decoder.addWriterTo(cells, r, w)) {
                stored.put(new RowWriter(r.getRow(), w), cells);
            }
        }
    }

    /**
     * Asking while reading: the answers (by aggregator URL) that can be merged with {@code kept},
     * the rows read, each writer's cells stashed from them. An answer is left out (its writer read
     * as stored) when a row read holds a cell of the id its writer takes at its next start-over
     * (the start-over raced the read, see {@link LiveCounts}). An answer that does not name that id
     * (an aggregator older than it) cannot be checked so: its writer's cells are stashed all the
     * same and its URL and writer go to {@code again}, to be asked once more now that the read is
     * over, as the two steps do ({@link LiveReads#totals}: exact when the writer is unchanged). Left
     * out instead, such an aggregator's unflushed counts would be missing from every fixed series.
     */
    List<LiveCounts.Answer> acceptRacing(Map<String, LiveCounts.Answer> answers, List<Result> kept, Map<String, long[]> again) {
        List<LiveCounts.Answer> out = new ArrayList<>(answers.size());
        long[] scratch = new long[decoder.width()];
        for (Map.Entry<String, LiveCounts.Answer> e : answers.entrySet()) {
            LiveCounts.Answer a = e.getValue();
            if (a.writer() == 0) {
                continue; // keeps no live counts
            }
            if (a.nextWriter() == 0) {
                stashWriters(a, kept);
                again.put(e.getKey(), a.writers());
                continue;
            }
            boolean raced = false;
            for (int i = 0; i < kept.size() && !raced; i++) {
                raced = decoder.addWriterTo(scratch, kept.get(i), a.nextWriter());
            }
            if (raced) {
                live.raced();
                continue;
            }
            stashWriters(a, kept);
            live.merged(a);
            out.add(a);
        }
        return out;
    }

    /** Keeps, from the rows read, the stored cells of every id {@code a}'s writer writes rows under. */
    private void stashWriters(LiveCounts.Answer a, List<Result> kept) {
        for (long writer : a.writers()) {
            for (Result r : kept) {
                long[] cells = new long[decoder.width()];
                if (decoder.addWriterTo(cells, r, writer)) {
                    stored.put(new RowWriter(r.getRow(), writer), cells);
                }
            }
        }
    }

    /**
     * Adds each live answer's rows: per row, the writer's current total minus what its stored
     * cell under the row's id held when the row was read (nothing when the row was not read).
     */
    void add(Map<GroupKey, long[]> out, List<LiveCounts.Answer> answers) {
        long firstDay = Long.MAX_VALUE;
        long lastDay = Long.MIN_VALUE;
        long[][] days = new long[answers.size()][]; // each live row's UTC epoch day (Long.MIN_VALUE: no bucket), read once
        for (int a = 0; a < answers.size(); a++) {
            List<LiveCounts.Row> rows = answers.get(a).rows();
            days[a] = new long[rows.size()];
            for (int r = 0; r < rows.size(); r++) {
                long minute = bucketMinute(rows.get(r).key());
                long day = minute == Long.MIN_VALUE ? Long.MIN_VALUE : UtcDay.epochDayOfBucketMinute(minute);
                days[a][r] = day;
                if (day != Long.MIN_VALUE) {
                    firstDay = Math.min(firstDay, day);
                    lastDay = Math.max(lastDay, day);
                }
            }
        }
        if (firstDay > lastDay) {
            return;
        }
        LongPredicate closed = live.days().closed(firstDay, lastDay); // after the answers: see LiveDays
        int leftOut = 0;
        for (int a = 0; a < answers.size(); a++) {
            LiveCounts.Answer answer = answers.get(a);
            int[] slot = plan.columns().stream().mapToInt(answer.metrics()::indexOf).toArray();
            for (int r = 0; r < answer.rows().size(); r++) {
                LiveCounts.Row row = answer.rows().get(r);
                if (days[a][r] != Long.MIN_VALUE && closed.test(days[a][r])) {
                    leftOut++;
                    continue;
                }
                GroupKey key = groupOf.apply(row.key());
                if (key == null) {
                    continue;
                }
                long[] before = stored.get(new RowWriter(row.key(), answer.writerOf(row))); // the row's own id
                long[] sum = out.computeIfAbsent(key, k -> new long[decoder.width()]);
                for (int i = 0; i < sum.length; i++) {
                    sum[i] += (slot[i] < 0 ? 0 : row.totals()[slot[i]]) - (before == null ? 0 : before[i]);
                }
            }
        }
        live.days().leftOut(leftOut);
    }

    /** The bucket minute of a counter row of this rollup, or {@code Long.MIN_VALUE} when it is none. */
    private long bucketMinute(byte[] row) {
        try {
            return decoder.parse(row).bucketMinute();
        } catch (RuntimeException e) {
            return Long.MIN_VALUE;
        }
    }
}
