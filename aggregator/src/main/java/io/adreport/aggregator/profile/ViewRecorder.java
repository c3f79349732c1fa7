package io.adreport.aggregator.profile;

import io.adreport.aggregator.TableSource;
import io.adreport.aggregator.WriteTally;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.event.Event;
import io.adreport.schema.metrics.Metrics;
import io.adreport.schema.profile.EventIndexCells;
import io.adreport.schema.profile.ProfileConfig;
import io.adreport.schema.profile.ProfileKey;
import io.adreport.schema.profile.UnidentifiedDevices;
import io.adreport.schema.profile.ViewCells;
import io.adreport.schema.table.TableLayout;
import io.adreport.schema.threads.DaemonThreads;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes each newly stored impression into its device's view history (family {@code fc} of the
 * profiles table, layout in {@link ViewCells}) BEFORE the impression is acknowledged, so a
 * frequency-cap check made after the ack sees it. In the same Put (same row) it writes the
 * device's reverse-index cell ({@link EventIndexCells}, family {@code ev}) of every stored event
 * that carries a device, impression or not, so that a privacy deletion finds the device's raw
 * rows without a scan; the index cell of an event is durable before its ack, like its view.
 *
 * <p><b>Failure.</b> A view that could not be written fails its event's answer (503) although the
 * raw row is stored and counted: the client retries, the retry is found a duplicate, and the
 * duplicate path writes the view again ({@link #record} is also called for duplicates). The
 * cell is idempotent (same event, same qualifier), so a repeated write is never a second view.
 * Impressions that nobody retries are repaired by the nightly pass from the raw rows.
 *
 * <p><b>Beside the raw write.</b> A group commit starts {@link #recordAsync} before its raw put and
 * waits for it before answering, so the two synchronous writes (different tables, different
 * regions) cost one round trip, not two. The price: when the raw put of an event fails after its
 * view was written, the event is answered 503 and its view exists without a stored impression
 * until the client's retry stores it (same event, same cell) — or, if nobody retries, until the
 * family TTL. That errs on the safe side of a cap (one view too many, never one too few), and an
 * index cell that names an absent raw row makes a privacy deletion delete nothing more. The view
 * threads are at most one per raw writer (each writer waits for its own write), idle ones end
 * after {@value #IDLE_SECONDS} s, and a write that finds no free thread runs on its writer.
 *
 * <p><b>Skipped.</b> Events that are not impressions, carry no device, or carry an unidentified
 * device ({@link UnidentifiedDevices}: empty, all-zero, placeholders) are never written.
 *
 * <p><b>Hot devices.</b> Views per device are counted per minute in a bounded map; a device over
 * {@code profiles.hot.views.per.minute} is counted in {@code adreport_hot_devices_total} and logged
 * once (at most {@value #MAX_LOGGED} devices are logged per process). Its views are still written,
 * every one: the history is bounded by count not here but where it is read (a check reads the
 * newest {@link ViewCells#MAX_VIEWS_KEPT} per campaign) and by the nightly pass, which deletes
 * what lies beyond them; writing them all keeps this path a blind Put with no read before the ack.
 */
public final class ViewRecorder {
    private static final Logger LOG = LoggerFactory.getLogger(ViewRecorder.class);
    private static final int MAX_TRACKED = 100_000;
    private static final int MAX_LOGGED = 1_000;
    private static final int IDLE_SECONDS = 30;
    private static final int MAX_VIEW_THREADS = 64;
    private static final ThreadPoolExecutor WRITERS = new ThreadPoolExecutor(0, MAX_VIEW_THREADS, IDLE_SECONDS, TimeUnit.SECONDS,
            new SynchronousQueue<>(), DaemonThreads.named("adreport-view-writer"), new ThreadPoolExecutor.CallerRunsPolicy());

    private final TableLayout layout;
    private final TableSource tables;
    private final ProfileKey keys;
    private final UnidentifiedDevices unidentified;
    private final int hotPerMinute;
    private final Clock clock;
    private final Metrics.Counter written;
    private final Metrics.Counter skipped;
    private final Metrics.Counter failed;
    private final Metrics.Counter hot;
    private final Metrics.Counter indexed;
    private final WriteTally tally;
    private final ConcurrentHashMap<String, AtomicInteger> perMinute = new ConcurrentHashMap<>();
    private final Set<String> logged = ConcurrentHashMap.newKeySet();
    private volatile long minute;

    public ViewRecorder(TableLayout layout, TableSource tables, ProfileConfig config, UnidentifiedDevices unidentified,
                        Clock clock, Metrics registry) {
        if (!ProfileModel.supported(layout.cube())) {
            throw new IllegalArgumentException("cube " + layout.cube().name() + " has no device profiles");
        }
        this.layout = layout;
        this.tables = tables;
        this.keys = new ProfileKey(layout.cube().saltBuckets());
        this.unidentified = unidentified;
        this.hotPerMinute = config.hotViewsPerMinute();
        this.clock = clock;
        this.written = registry.counter("adreport_profile_views_written_total", "Impressions written to device view histories");
        this.skipped = registry.counter("adreport_profile_views_skipped_total",
                "Impressions not written to a profile: no device or an unidentified (placeholder) device");
        this.failed = registry.counter("adreport_profile_view_failures_total",
                "Impressions whose view could not be written (answered 503; a retry or the nightly pass repairs it)");
        this.indexed = registry.counter("adreport_device_index_cells_written_total",
                "Reverse-index cells written (one per stored event that carries an identified device; what a privacy deletion reads)");
        this.tally = WriteTally.of(registry, "profiles");
        this.hot = registry.counter("adreport_hot_devices_total",
                "Devices seen above profiles.hot.views.per.minute in a minute (counted once per device and minute)");
    }

    /** True when {@link #record} would write something (a view, an index cell) for {@code e}. */
    public boolean wants(Event e) {
        return e.hashed().get(ProfileModel.DEVICE_FIELD) != null;
    }

    /** {@link #record} started on a view-writer thread (see "Beside the raw write"). */
    public CompletableFuture<List<Event>> recordAsync(List<Event> events, List<byte[]> rawKeys) {
        return CompletableFuture.supplyAsync(() -> record(events, rawKeys), WRITERS);
    }

    /**
     * Writes the views of {@code events} (impressions) and the index cells of all of them,
     * {@code rawKeys.get(i)} being the raw row key of {@code events.get(i)}; returns the events
     * whose cells could not be written; empty when all are durable.
     */
    public List<Event> record(List<Event> events, List<byte[]> rawKeys) {
        List<Put> puts = new ArrayList<>(events.size());
        List<Event> putEvents = new ArrayList<>(events.size());
        List<Boolean> hasView = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            Event e = events.get(i);
            if (!wants(e)) {
                continue;
            }
            String device = e.hashed().get(ProfileModel.DEVICE_FIELD);
            boolean impression = ProfileModel.IMPRESSION.equals(e.type());
            if (unidentified.isUnidentifiedHash(device)) { // a placeholder id names no device: no profile, no index
                if (impression) {
                    skipped.inc();
                }
                continue;
            }
            Put view = ViewCells.put(keys, e);
            if (view == null && impression) {
                skipped.inc();
            }
            if (view != null) {
                noteRate(device);
            }
            hasView.add(view != null);
            Put put = EventIndexCells.add(view != null ? view : new Put(keys.row(device)), rawKeys.get(i));
            puts.add(put.setDurability(Durability.SYNC_WAL));
            putEvents.add(e);
        }
        if (puts.isEmpty()) {
            return List.of();
        }
        tally.sent(puts);
        Object[] results = new Object[puts.size()];
        try (Table t = tables.open(layout.profilesTable())) {
            t.batch(puts, results);
        } catch (IOException | RuntimeException ex) {
            LOG.warn("writing {} device views failed: {}", puts.size(), ex.toString());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        List<Event> failures = new ArrayList<>();
        for (int i = 0; i < results.length; i++) {
            boolean ok = results[i] != null && !(results[i] instanceof Throwable);
            if (!ok) {
                failures.add(putEvents.get(i));
            }
            if (hasView.get(i)) {
                (ok ? written : failed).inc();
            }
            if (ok) {
                indexed.inc();
            }
        }
        return failures;
    }

    private void noteRate(String device) {
        long now = clock.millis() / 60_000;
        if (now != minute) {
            minute = now;
            perMinute.clear();
        }
        if (perMinute.size() >= MAX_TRACKED && !perMinute.containsKey(device)) {
            return; // bounded: under a flood of distinct devices, rates go unwatched until the minute turns
        }
        int n = perMinute.computeIfAbsent(device, d -> new AtomicInteger()).incrementAndGet();
        if (n == hotPerMinute + 1) {
            hot.inc();
            if (logged.size() < MAX_LOGGED && logged.add(device)) {
                LOG.warn("hot device {}…: more than {} views in one minute (a bot, an SDK bug or a shared id?)",
                        device.substring(0, 12), hotPerMinute);
            }
        }
    }
}
