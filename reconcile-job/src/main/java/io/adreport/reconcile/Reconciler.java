package io.adreport.reconcile;

import io.adreport.reconcile.job.DayRange;
import io.adreport.reconcile.job.ReconcileCounter;
import io.adreport.reconcile.job.ReconcileJob;
import io.adreport.reconcile.profiles.ViewRepair;
import io.adreport.reconcile.profiles.ViewRewrite;
import io.adreport.reconcile.report.DriftReport;
import io.adreport.reconcile.topn.RankedIndexWriter;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.event.DeviceHashes;
import io.adreport.schema.meta.DayState;
import io.adreport.schema.meta.DayStatusStore;
import io.adreport.schema.meta.HeartbeatStore;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.time.UtcDay;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plain Java entry to reconciliation, shared by the CLI, the {@code hadoop jar} tool, the
 * scheduler and the tests: {@link #reconcile} closes the day ({@link DayCloseProtocol}), runs
 * the job ({@link ReconcileJob}), whose reduce tasks also write the day's ranked top-N index
 * entries from the counter values they settle and whose map tasks repair the day's device view
 * histories from the raw rows they read ({@link ViewRepair}), publishes that index ({@link RankedIndexWriter}) and records the drift report with the day's {@code reconciled}
 * status, then, when that completes a UTC month, the month's ranked lists; a dry run only runs the job, without closing or writing anything. The index is written
 * before the status, so a reader that sees {@code reconciled} finds the day's index published.
 *
 * <p>Concurrency: one reconciliation at a time per instance (the scheduler and an operator may
 * both ask); callers queue on the instance lock. The {@link Connection} is the process's shared
 * one and is not closed here; in the local job runner the job's tasks borrow it, on a cluster they
 * open their own from the configuration.
 */
public final class Reconciler {
    private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);

    private final Configuration jobConf;
    private final TableLayout layout;
    private final DayStatusStore meta;
    private final DayCloseProtocol close;
    private final RankedIndexWriter index;
    private final Clock clock;
    private final Connection connection;
    private final HeartbeatStore heartbeats;
    private final boolean rewriteViews;
    private final Duration liveness;
    private volatile ViewRepair views;
    private volatile String lastPhases = "";

    public Reconciler(Configuration conf, Connection connection, TableLayout layout, ReconcileConfig config, Clock clock) {
        this(conf, connection, layout, config, clock, DayCloseProtocol.Sleeper.REAL);
    }

    public Reconciler(Configuration conf, Connection connection, TableLayout layout, ReconcileConfig config, Clock clock,
                      DayCloseProtocol.Sleeper sleeper) {
        this.jobConf = new Configuration(conf);
        config.applyTo(jobConf);
        this.layout = layout;
        this.meta = new DayStatusStore(connection, layout, clock);
        this.heartbeats = new HeartbeatStore(connection, layout, clock);
        this.close = new DayCloseProtocol(meta, heartbeats, clock, sleeper, config.grace(), config.liveness(), config.poll());
        this.rewriteViews = config.rewriteViews();
        this.liveness = config.liveness();
        this.index = new RankedIndexWriter(connection, layout, config.indexBulkMinEntries());
        this.clock = clock;
        this.connection = connection;
    }

    /**
     * Reconciles {@code day}: close, recount and correct, record. Only days before today (UTC)
     * can be closed — closing a day stops its live counting. Throws when the job fails; the day
     * then stays {@code closing} and the next run retries it.
     *
     * @param progress where map/reduce progress lines go, or null
     */
    public synchronized DriftReport reconcile(LocalDate day, boolean dryRun, PrintStream progress)
            throws IOException, InterruptedException {
        if (dryRun) {
            return ReconcileJob.run(jobConf, connection, layout, day, true, clock, progress, all -> {
                if (progress != null) {
                    progress.println("counter cells: " + ReconcileJob.counterCells(all) + " (a dry run: nothing written)");
                }
            });
        }
        LocalDate today = UtcDay.dateToday(clock);
        if (!day.isBefore(today)) {
            throw new IllegalArgumentException("--day: must be before today (" + today + " UTC): reconciling closes the day for live counting, not " + day);
        }
        Phases phases = new Phases();
        boolean settled = meta.day(day).settled(); // read before the close's new mark: nothing stored for it since its last pass
        DayCloseProtocol.Outcome outcome = close.close(day);
        phases.end("close");
        // The job's reduce tasks write the index entries of the next generations from the rows they
        // settle (no scan of the day's counters after the job); published here once it succeeded.
        // A day that is settled (reconciled, and no event stored for it since: nothing is expected
        // to differ) whose lists were all published with their content digests: they only compute
        // the digests, and a list whose digest changed anyway (rows written around the aggregators,
        // or repaired) is written again after the job by a scan of the day's DAY rows.
        Map<String, RankedIndexWriter.Published> published = index.published(day);
        boolean digestOnly = settled && !published.isEmpty() && published.values().stream().allMatch(p -> p.digest() != null);
        Map<String, Long> next = RankedIndexWriter.nextGenerations(published);
        if (!digestOnly) {
            index.sweepLeftovers(day, next);
        }
        Configuration c = digestOnly ? ReconcileJob.digestingIndex(jobConf, next) : ReconcileJob.writingIndex(jobConf, next);
        ViewRepair repair = views;
        Instant gap = null;
        ViewRewrite.Decision rewrite = null;
        if (repair != null) {
            // read after the close: an aggregator records its view gaps before it acknowledges the close
            gap = meta.viewGap(day);
            rewrite = ViewRewrite.decide(day, rewriteViews, gap, heartbeats.aggregators(), clock.instant(), liveness);
            repair.settings(rewrite.rewrite()).applyTo(c); // the map tasks repair the views from the rows they recount
        }
        org.apache.hadoop.mapreduce.Counters[] counters = new org.apache.hadoop.mapreduce.Counters[1];
        DriftReport report = ReconcileJob.run(c, connection, layout, day, false, clock, progress, all -> counters[0] = all)
                .withUnacknowledged(outcome.unacknowledged());
        phases.end("recount");
        if (progress != null) {
            progress.println("counter cells: " + ReconcileJob.counterCells(counters[0]));
        }
        long failedRepairs = repair == null ? 0 : reportViews(day, counters[0], rewrite, phases, progress);
        if (gap != null && failedRepairs == 0) {
            meta.clearViewGap(day, gap); // the views are written again; a gap recorded since stays for the next pass
        }
        Map<String, Long> digests = ReconcileJob.indexDigests(counters[0], published.keySet());
        RankedIndexWriter.Written written;
        String indexNote;
        if (digestOnly) {
            Map<String, RankedIndexWriter.Published> changed = new LinkedHashMap<>();
            published.forEach((name, p) -> {
                if (!p.digest().equals(digests.get(name))) {
                    changed.put(name, p);
                }
            });
            written = changed.isEmpty() ? new RankedIndexWriter.Written(day, 0, 0) : index.rewrite(day, changed);
            indexNote = changed.isEmpty() ? "unchanged, every list's generation kept"
                    : "re-written for " + changed.keySet() + " (" + written.entries() + " entries), kept for the other "
                    + (published.size() - changed.size());
        } else {
            written = index.publish(day, next, digests, 0);
            indexNote = "generations " + next + " written by the reduce tasks (" + ReconcileJob.indexEntries(counters[0]) + ")";
        }
        phases.end("index");
        meta.markReconciled(day, report.toJson());
        if (!outcome.unacknowledged().isEmpty() || failedRepairs > 0) {
            // A silent live aggregator may still increment D after the job's writes, or the views of
            // some of D's devices were not repaired: pass D again next night.
            meta.markLate(day);
        }
        LOG.info("day {} reconciled: {} cells checked, {} corrected, absolute drift {}; ranked index {} ({} superseded entries deleted)",
                day, report.totals().cellsChecked(), report.totals().cellsCorrected(), report.totals().absoluteDrift(),
                indexNote, written.deleted());
        writeMonth(day);
        phases.end("month");
        lastPhases = phases.toString();
        if (progress != null) {
            progress.println("ranked index: " + indexNote + ", " + written.deleted() + " superseded entries deleted");
            progress.println("phases: " + lastPhases);
        }
        return report;
    }

    /** The wall time of each phase of the last day reconciled here ("close 0.1 s, recount 4.2 s, ..."). */
    public String lastPhases() {
        return lastPhases;
    }

    /**
     * Logs and prints what the map tasks' view repair did (from the job's counters), notes its
     * time inside the recount phase, and returns the number of map tasks whose repair failed.
     */
    private static long reportViews(LocalDate day, org.apache.hadoop.mapreduce.Counters counters, ViewRewrite.Decision rewrite,
                                    Phases phases, PrintStream progress) {
        long written = counters.findCounter(ReconcileCounter.VIEWS_WRITTEN).getValue();
        long checked = counters.findCounter(ReconcileCounter.VIEW_DEVICES_CHECKED).getValue();
        long trimmed = counters.findCounter(ReconcileCounter.VIEWS_TRIMMED).getValue();
        long moved = counters.findCounter(ReconcileCounter.VIEW_DEVICES_MOVED).getValue();
        long cellsMoved = counters.findCounter(ReconcileCounter.VIEW_CELLS_MOVED).getValue();
        long failed = counters.findCounter(ReconcileCounter.VIEW_REPAIR_FAILED_TASKS).getValue();
        double seconds = counters.findCounter(ReconcileCounter.VIEW_REPAIR_MILLIS).getValue() / 1000.0;
        String views = rewrite.rewrite() ? written + " impressions re-written into device view histories (" + rewrite.reason() + ")"
                : "not re-written (" + rewrite.reason() + ")";
        LOG.info("day {}: device views: {}; {} device checks, {} deletes of views beyond the newest {} of their campaign (a device in several map tasks is checked by each); {} devices ({} cells) moved to the current device secret{}",
                day, views, checked, trimmed, ViewCells.MAX_VIEWS_KEPT, moved, cellsMoved,
                failed > 0 ? "; the repair FAILED in " + failed + " map task(s) (caps stay as the live path wrote them; the day is passed again)" : "");
        if (progress != null) {
            progress.printf("views: %s, %d device checks and %d view trims in map tasks, "
                    + "%d devices (%d cells) moved to the current device secret%s%n",
                    views, checked, trimmed, moved, cellsMoved, failed > 0 ? "; FAILED in " + failed + " map task(s)" : "");
        }
        phases.part(failed > 0 ? "view repair FAILED in " + failed + " map task(s), " : "view repair ", seconds, " in map tasks");
        return failed;
    }

    /** Wall time per phase of one day's pass, in order. */
    private static final class Phases {
        private final StringBuilder text = new StringBuilder();
        private long mark = System.nanoTime();

        void end(String phase) {
            long now = System.nanoTime();
            text.append(text.length() == 0 ? "" : ", ").append(phase).append(String.format(" %.1f s", (now - mark) / 1e9));
            mark = now;
        }

        /**
         * Notes how much of the phase just ended went to {@code part}, and where:
         * "recount 9.0 s (view repair 4.0 s in map tasks)".
         */
        void part(String part, double seconds, String where) {
            text.append(String.format(" (%s%.1f s%s)", part, seconds, where));
        }

        @Override
        public String toString() {
            return text.toString();
        }
    }

    /**
     * Writes the ranked lists of {@code day}'s month once all its days are reconciled (again when
     * a day of it is reconciled again). A failure leaves the day reconciled: until a later
     * reconcile of a day of that month rewrites the month, reports merge its day lists (the month
     * pointer names older day generations, so readers do not use it).
     */
    private void writeMonth(LocalDate day) {
        try {
            index.writeMonthIfComplete(day, meta).ifPresent(w -> LOG.info("month {} ranked index: {} entries ({} superseded deleted)",
                    java.time.YearMonth.from(day), w.entries(), w.deleted()));
        } catch (IOException | RuntimeException e) {
            LOG.warn("day {}: writing its month's ranked index failed (reports merge the day lists instead): {}", day, e.toString());
        }
    }

    /**
     * Reconciles every day of {@code days}, oldest first, and prints one line per day to
     * {@code out}, then a summary line. A failed day is reported and the others go on (it stays
     * {@code closing}; the next run retries it). The process's fixed costs — JVM, Hadoop's class
     * loading, the connection — are paid once for the range.
     *
     * @return the number of days that failed
     */
    public int reconcile(DayRange days, boolean dryRun, PrintStream out) throws InterruptedException {
        int failed = 0;
        int i = 0;
        for (LocalDate d : days.days()) {
            i++;
            long start = System.nanoTime();
            try {
                DriftReport r = reconcile(d, dryRun, null);
                out.printf("%s  %d/%d  %s  events %d, cells checked %d, corrected %d, absolute drift %d  (%.1f s%s)%n", d, i,
                        days.size(), r.status(), r.totals().eventsRead(), r.totals().cellsChecked(), r.totals().cellsCorrected(),
                        r.totals().absoluteDrift(), (System.nanoTime() - start) / 1e9, dryRun ? "" : ": " + lastPhases);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                failed++;
                out.printf("%s  %d/%d  FAILED  %s  (%.1f s)%n", d, i, days.size(), e.getMessage(), (System.nanoTime() - start) / 1e9);
            }
            out.flush();
        }
        out.println(failed == 0 ? "all " + days.size() + " days done"
                : failed + " of " + days.size() + " days failed (they stay closing; run them again)");
        return failed;
    }

    /**
     * Also rewrite each reconciled day's impressions into the device view histories
     * ({@link ViewRepair}), in the recount's map tasks from the rows they read; a repair that fails
     * is logged and leaves the day {@code late}, so the next night passes it again.
     */
    public Reconciler repairingViews(ViewRepair repair) {
        this.views = repair;
        return this;
    }

    /**
     * {@code reconciler}, also repairing device view histories of each day when the cube has
     * profiles ({@link ProfileModel#supported}) — the one rule for every way the nightly pass is
     * run ({@code bin/adreport reconcile}, {@code local}, {@code hadoop jar}). The repair needs the
     * device hash secret (placeholder ids are recognised by their hash); without one it is left
     * out with a warning naming the setting.
     *
     * <p>While the device secret rotates ({@code hashes} has a previous secret), the same pass moves
     * the rows of the devices seen that day from the previous secret's hash to the current one's.
     *
     * @param hasher   the device's hashes, or null when no secret is configured
     * @param profiles the profile settings (placeholder ids)
     */
    public static Reconciler withViewRepair(Reconciler reconciler, Connection connection, TableLayout layout,
                                            DeviceHashes hasher, ProfileConfig profiles) {
        if (!ProfileModel.supported(layout.cube())) {
            return reconciler;
        }
        if (hasher == null) {
            org.slf4j.LoggerFactory.getLogger(Reconciler.class).warn("no device.hash.secret (ADREPORT_DEVICE_HASH_SECRET): "
                    + "device view histories are not repaired by this reconcile");
            return reconciler;
        }
        return reconciler.repairingViews(new ViewRepair(connection, layout, new UnidentifiedDevices(hasher, profiles.placeholders())));
    }

    /** Whether this reconciler repairs device view histories of each day. */
    public boolean repairsViews() {
        return views != null;
    }

    /** The states of the days in [from, to] (the scheduler's view of what is due). */
    public Map<LocalDate, DayState> dayStates(LocalDate from, LocalDate toInclusive) {
        return meta.days(from, toInclusive);
    }

    /** The job alone, in this JVM's local job runner or on the configured cluster: no close, no record. */
    public static DriftReport run(Configuration conf, TableLayout layout, LocalDate day, boolean dryRun)
            throws IOException, InterruptedException {
        return ReconcileJob.run(conf, layout, day, dryRun, Clock.systemUTC(), null);
    }
}
