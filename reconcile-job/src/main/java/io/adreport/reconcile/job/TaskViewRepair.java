package io.adreport.reconcile.job;

import io.adreport.reconcile.profiles.ViewRepair;
import io.adreport.reconcile.profiles.ViewRepairSettings;
import io.adreport.schema.event.Event;
import io.adreport.schema.table.TableLayout;
import java.io.IOException;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One map task's share of the nightly view repair ({@link ViewRepair.Pass}), fed the events the
 * recount decodes anyway, so the day's raw rows are read once for both.
 *
 * <p><b>Failure stays here.</b> The recount's exactness does not depend on the views: an error of
 * the repair is logged, counted ({@link ReconcileCounter#VIEW_REPAIR_FAILED_TASKS}) and ends the
 * repair of this task, never the task (a retried task would count again what it already
 * repaired, and a failed job would leave the day unreconciled for the sake of the caps). The
 * submitter sees the counter and leaves the day to be passed again.
 *
 * <p>What it did goes into the job's counters when the task finishes ({@link #finish}).
 */
final class TaskViewRepair {
    private static final Logger LOG = LoggerFactory.getLogger(TaskViewRepair.class);

    /** A repair that does nothing (a dry run, a cube without profiles, no device secret). */
    static final TaskViewRepair OFF = new TaskViewRepair(null, null);

    private final TaskAttemptContext context;
    private ViewRepair.Pass pass;

    private TaskViewRepair(TaskAttemptContext context, ViewRepair.Pass pass) {
        this.context = context;
        this.pass = pass;
    }

    /** The repair the job asks of this task, on the task's connection; {@link #OFF} when none. */
    static TaskViewRepair open(TaskAttemptContext context, JobSettings job, ConnectionSupplier connection) {
        ViewRepairSettings settings = ViewRepairSettings.from(context.getConfiguration());
        if (!settings.repair() || job.dryRun()) {
            return OFF;
        }
        TaskViewRepair task = new TaskViewRepair(context, null);
        try {
            TableLayout layout = job.layout();
            // each of the job's splits holds part of every device's views: a device is checked once it fed T of them here
            task.pass = new ViewRepair(connection.get(), layout, settings.unidentified()).open(ViewRepair.trimMin(job.splits()), settings.rewrite());
        } catch (IOException | RuntimeException e) {
            task.failed(e);
        }
        return task;
    }

    /** The task's connection, opened on first use. */
    interface ConnectionSupplier {
        Connection get() throws IOException;
    }

    /** Feeds one decoded raw event of the day. */
    void add(Event e) {
        if (pass == null) {
            return;
        }
        try {
            pass.add(e);
        } catch (IOException | RuntimeException ex) {
            failed(ex);
        }
    }

    /** Finishes the pass (moves, trims, flushes) and adds what it did to the job's counters. */
    void finish() {
        if (pass == null) {
            return;
        }
        try (ViewRepair.Pass p = pass) {
            ViewRepair.Summary s = p.finish();
            count(ReconcileCounter.VIEW_IMPRESSIONS, s.impressions());
            count(ReconcileCounter.VIEWS_WRITTEN, s.viewsWritten());
            count(ReconcileCounter.VIEW_DEVICES_CHECKED, s.devicesChecked());
            count(ReconcileCounter.VIEWS_TRIMMED, s.viewsTrimmed());
            count(ReconcileCounter.VIEW_DEVICES_MOVED, s.devicesMoved());
            count(ReconcileCounter.VIEW_CELLS_MOVED, s.cellsMoved());
            count(ReconcileCounter.VIEW_REPAIR_MILLIS, Math.round(p.seconds() * 1000));
        } catch (IOException | RuntimeException e) {
            failed(e);
        }
        pass = null;
    }

    private void count(ReconcileCounter counter, long n) {
        context.getCounter(counter).increment(n);
    }

    private void failed(Exception e) {
        LOG.warn("task {}: the device view repair failed and stops for this task (the recount goes on): {}",
                context.getTaskAttemptID(), e.toString());
        context.getCounter(ReconcileCounter.VIEW_REPAIR_FAILED_TASKS).increment(1);
        if (pass != null) {
            try {
                pass.close();
            } catch (IOException | RuntimeException closing) {
                LOG.debug("closing the failed view repair: {}", closing.toString());
            }
        }
        pass = null;
    }
}
