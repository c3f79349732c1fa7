package io.adreport.report.query;

import java.util.ArrayList;
import java.util.List;

/**
 * How an export is cut into windows of scans ({@link ExportReader}, "Merge" and "Sum"): whether its
 * groups can be merged from sorted scans, and for each window the output buckets it completes and
 * the scans (salt bucket × stored time range) that read them. When each output bucket is one
 * stored bucket, a merge is one window of one scan per salt bucket; otherwise each output bucket
 * is a window, of one scan per salt bucket and stored bucket for a merge (at most
 * {@code maxStreams}, or the export is summed instead) or one scan per salt bucket for a sum.
 */
record ExportWindows(boolean merge, List<ExportWindows.Window> windows) {
    /** One scan: a salt bucket over stored bucket starts [fromMinute, toMinute). */
    record Range(int salt, long fromMinute, long toMinute) {
    }

    /** Output buckets [first, end) read by {@code ranges}. */
    record Window(int first, int end, List<Range> ranges) {
    }

    /** @param groupsContiguous whether a group's rows are adjacent in row-key order ({@link RowDecoder#groupsAreContiguous}) */
    static ExportWindows of(QueryPlan plan, boolean groupsContiguous, int salts, int maxStreams) {
        TimeBuckets buckets = plan.buckets();
        int stored = plan.stored().minutes();
        boolean onePerBucket = plan.storedBuckets() == buckets.size();
        long widest = 0;
        for (int b = 0; b < buckets.size(); b++) {
            widest = Math.max(widest, (bucketEnd(plan, b) - bucketStart(plan, b)) / stored);
        }
        boolean merge = groupsContiguous && (onePerBucket || salts * widest <= maxStreams);
        List<Window> windows = new ArrayList<>();
        if (merge && onePerBucket) {
            List<Range> ranges = new ArrayList<>();
            for (int s = 0; s < salts; s++) {
                ranges.add(new Range(s, plan.fromMinute(), plan.toMinute()));
            }
            windows.add(new Window(0, buckets.size(), ranges));
        } else {
            for (int b = 0; b < buckets.size(); b++) {
                List<Range> ranges = new ArrayList<>();
                for (int s = 0; s < salts; s++) {
                    if (merge) {
                        for (long m = bucketStart(plan, b); m < bucketEnd(plan, b); m += stored) {
                            ranges.add(new Range(s, m, m + stored));
                        }
                    } else {
                        ranges.add(new Range(s, bucketStart(plan, b), bucketEnd(plan, b)));
                    }
                }
                windows.add(new Window(b, b + 1, ranges));
            }
        }
        return new ExportWindows(merge, List.copyOf(windows));
    }

    private static long bucketStart(QueryPlan plan, int b) {
        return b == 0 ? plan.fromMinute() : plan.buckets().start(b).getEpochSecond() / 60;
    }

    private static long bucketEnd(QueryPlan plan, int b) {
        return b + 1 < plan.buckets().size() ? plan.buckets().start(b + 1).getEpochSecond() / 60 : plan.toMinute();
    }
}
