package io.adreport.launcher.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.random.RandomGenerator;

/**
 * Generates the beacons of the simulated network for consecutive time windows, as NDJSON lines in
 * the ingest contract's shape.
 *
 * <p>Each {@link #batch} call first releases the held beacons whose delivery time has come, then
 * fills the rest of its budget with new beacons whose event times are spread over the window:
 * mostly impressions, plus duplicates (an identical re-send of a recent line) and malformed
 * beacons at their configured shares. Held beacons are the ones that travel later than they are
 * made: a click follows its impression by seconds to minutes, a conversion follows its click by
 * seconds to half an hour, and a late impression is delivered minutes to hours after its event
 * time. A held beacon is never released by the call that made it, so when batches are posted in
 * order a click travels in a later request than its impression; the exception is a late
 * impression, which arrives after its own clicks. That is what a slow beacon does in real life:
 * the ingest stores such clicks as unattributed and the nightly job attributes them.
 *
 * <p>Determinism: the output follows only from the random generator, the id prefix and the
 * windows asked for. Concurrency: not thread-safe; one owner thread. Memory: at most
 * {@link #MAX_HELD} held beacons and {@link #RECENT} recent lines; with the hold full, new
 * impressions get no clicks and late ones go out on time (the simulation changes; nothing that
 * was generated is lost).
 */
final class BeaconGenerator {
    static final int MAX_HELD = 100_000;
    static final int RECENT = 1024;
    static final int CAP_TRIES = 3;
    static final Duration MIN_CLICK_DELAY = Duration.ofSeconds(1);
    static final Duration MAX_CLICK_DELAY = Duration.ofMinutes(2);
    static final Duration MIN_CONVERSION_DELAY = Duration.ofSeconds(10);
    static final Duration MAX_CONVERSION_DELAY = Duration.ofMinutes(30);
    static final Duration MIN_LATENESS = Duration.ofMinutes(5);
    static final Duration MAX_LATENESS = Duration.ofHours(3);
    private static final long MIN_CONVERSION_VALUE = 5_000_000;
    private static final long MAX_CONVERSION_VALUE = 150_000_000;
    private static final int MALFORMED_KINDS = 6;
    private static final ZoneOffset INDIA = ZoneOffset.ofHoursMinutes(5, 30);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What one call produced; {@code malformed} of the lines are invalid on purpose. */
    record Batch(List<String> lines, int malformed) {
        Batch {
            lines = List.copyOf(lines);
            if (malformed < 0 || malformed > lines.size()) {
                throw new IllegalArgumentException("malformed must be within [0, " + lines.size() + "], got " + malformed);
            }
        }
    }

    /** A beacon delivered later; {@code pixel}: the signed URL a browser fires at the same time, or null. */
    private record Held(Instant due, long order, String line, String pixel) implements Comparable<Held> {
        Held(Instant due, long order, String line) {
            this(due, order, line, null);
        }

        @Override
        public int compareTo(Held o) {
            int c = due.compareTo(o.due);
            return c != 0 ? c : Long.compare(order, o.order);
        }
    }

    private final AdNetwork network;
    private final RandomGenerator rng;
    private final String idPrefix;
    private final double duplicateRate;
    private final double lateRate;
    private final double malformedRate;
    private final CapGate gate;
    private final PriorityQueue<Held> held = new PriorityQueue<>();
    private final String[] recent = new String[RECENT];
    private int recentCount;
    private int recentNext;
    private long seq;

    BeaconGenerator(AdNetwork network, RandomGenerator rng, String idPrefix,
                    double duplicateRate, double lateRate, double malformedRate) {
        this(network, rng, idPrefix, duplicateRate, lateRate, malformedRate, CapGate.OPEN);
    }

    /** As above; every impression is first offered to {@code gate}, as an ad server checks frequency caps. */
    BeaconGenerator(AdNetwork network, RandomGenerator rng, String idPrefix,
                    double duplicateRate, double lateRate, double malformedRate, CapGate gate) {
        this.gate = gate;
        this.network = network;
        this.rng = rng;
        this.idPrefix = idPrefix;
        this.duplicateRate = duplicateRate;
        this.lateRate = lateRate;
        this.malformedRate = malformedRate;
    }

    /** Beacons held for later delivery. */
    int held() {
        return held.size();
    }

    /**
     * The beacons to post for the window {@code (from, to]}: every held beacon due by {@code to},
     * then new beacons up to {@code budget} lines in all (none when the held ones use it up).
     */
    Batch batch(Instant from, Instant to, int budget) {
        if (to.isBefore(from) || budget < 0) {
            throw new IllegalArgumentException("window (" + from + ", " + to + "] with budget " + budget + " is empty or negative");
        }
        List<String> out = new ArrayList<>(Math.max(budget, 16));
        while (!held.isEmpty() && !held.peek().due().isAfter(to)) {
            Held h = held.poll();
            out.add(h.line());
            remember(h.line());
            if (h.pixel() != null && gate instanceof AdServer server) {
                server.fire(h.pixel()); // the browser's click on the signed URL: the same event, so one of the two is a duplicate
            }
        }
        int fresh = Math.max(0, budget - out.size());
        List<Held> newlyHeld = new ArrayList<>();
        int malformed = 0;
        for (Instant ts : spread(from, to, fresh)) {
            double r = rng.nextDouble();
            if (r < duplicateRate && recentCount > 0) {
                out.add(recent[rng.nextInt(recentCount)]);
            } else if (r < duplicateRate + malformedRate) {
                out.add(malformed(ts));
                malformed++;
            } else {
                impression(ts, out, newlyHeld);
            }
        }
        held.addAll(newlyHeld); // only now, so nothing made in this call is released by it
        return new Batch(out, malformed);
    }

    /** Drops every held beacon (a generator whose window has passed, such as a finished back-fill day). */
    int discardHeld() {
        int n = held.size();
        held.clear();
        return n;
    }

    private void impression(Instant ts, List<String> out, List<Held> newlyHeld) {
        AdNetwork.Creative creative = network.pickCreative(rng);
        AdNetwork.Zone zone = network.pickZone(rng);
        AdNetwork.Device device = network.pickDevice(rng);
        String id = null;
        long cost = 0;
        AdServer.Served served = gate instanceof AdServer server ? server.serve(zone, device) : AdServer.LOCAL;
        if (served == null) {
            return; // no eligible ad (budgets, pacing, caps): the slot goes unsold
        }
        AdNetwork.Creative chosen = served == AdServer.LOCAL ? null : network.creative(served.creative());
        if (chosen != null) {
            creative = chosen;
            id = served.impressionId();
            cost = served.costMicros();
        } else {
            // The ad server skips a campaign the device is capped on and offers the slot to another;
            // after CAP_TRIES refusals the slot goes unsold (a house ad, not a beacon).
            for (int tries = 1; !gate.mayShow(device.id(), creative.advertiser(), creative.campaign()); tries++) {
                if (tries == CAP_TRIES) {
                    return;
                }
                creative = network.pickCreative(rng);
            }
            id = nextId('i');
            double jitter = 0.7 + 0.6 * rng.nextDouble();
            cost = Math.max(1, Math.round(zone.cpmMicros() * AdNetwork.countryPriceFactor(device.country()) * jitter / 1000));
        }
        ObjectNode n = beacon("impression", id, ts);
        n.put("advertiser", creative.advertiser());
        n.put("campaign", creative.campaign());
        n.put("creative", creative.id());
        n.put("publisher", zone.publisher());
        n.put("zone", zone.id());
        n.put("country", device.country());
        n.put("deviceType", device.deviceType());
        n.put("device", device.id());
        n.put("costMicros", cost);
        String line = write(n);

        boolean room = held.size() + newlyHeld.size() < MAX_HELD - 3;
        if (room && rng.nextDouble() < lateRate) {
            newlyHeld.add(new Held(ts.plus(logUniform(MIN_LATENESS, MAX_LATENESS)), seq, line));
        } else {
            out.add(line);
            remember(line);
        }
        if (room && rng.nextDouble() < AdNetwork.clickThroughRate(creative, zone)) {
            Instant clickTs = ts.plus(logUniform(MIN_CLICK_DELAY, MAX_CLICK_DELAY));
            // Clicked on an ad the ad server chose: the click is its signed click URL's event (its id), fired when it happens
            String clickUrl = chosen != null ? served.clickUrl() : null;
            String clickId = clickUrl == null ? null : ServeAdClient.param(clickUrl, "id");
            ObjectNode click = beacon("click", clickId != null ? clickId : nextId('c'), clickTs);
            click.put("impressionId", id);
            click.put("device", device.id());
            newlyHeld.add(new Held(clickTs, seq, write(click), clickId == null ? null : clickUrl + "&ts=" + clickTs.toEpochMilli()));
            if (rng.nextDouble() < creative.conversionRate()) {
                Instant conversionTs = clickTs.plus(logUniform(MIN_CONVERSION_DELAY, MAX_CONVERSION_DELAY));
                ObjectNode conversion = beacon("conversion", nextId('v'), conversionTs);
                conversion.put("impressionId", id);
                conversion.put("device", device.id());
                conversion.put("valueMicros", logUniform(MIN_CONVERSION_VALUE, MAX_CONVERSION_VALUE));
                newlyHeld.add(new Held(conversionTs, seq, write(conversion)));
            }
        }
    }

    /** An impression with one defect the ingest must refuse, each kind naming a different field and rule. */
    private String malformed(Instant ts) {
        AdNetwork.Creative creative = network.pickCreative(rng);
        AdNetwork.Zone zone = network.pickZone(rng);
        ObjectNode n = beacon("impression", nextId('x'), ts);
        n.put("advertiser", creative.advertiser());
        n.put("campaign", creative.campaign());
        n.put("creative", creative.id());
        n.put("publisher", zone.publisher());
        n.put("zone", zone.id());
        n.put("country", "US");
        n.put("deviceType", "mobile");
        n.put("costMicros", 1500);
        switch (rng.nextInt(MALFORMED_KINDS)) {
            case 0 -> n.put("country", "USA");              // not ISO alpha-2
            case 1 -> n.put("country", "U1");               // not letters
            case 2 -> n.put("costMicros", -1500);           // negative money
            case 3 -> n.put("type", "view");                // unknown type
            case 4 -> n.remove("id");                       // missing id
            default -> n.put("ts", "yesterday afternoon");  // not a time
        }
        return write(n);
    }

    private ObjectNode beacon(String type, String id, Instant ts) {
        ObjectNode n = JSON.createObjectNode();
        n.put("type", type);
        n.put("id", id);
        Instant t = ts.truncatedTo(ChronoUnit.MILLIS);
        // Both forms the contract allows, and not only UTC offsets.
        double form = rng.nextDouble();
        if (form < 0.2) {
            n.put("ts", t.toEpochMilli());
        } else if (form < 0.3) {
            n.put("ts", OffsetDateTime.ofInstant(t, INDIA).toString());
        } else {
            n.put("ts", t.toString());
        }
        return n;
    }

    private String nextId(char kind) {
        return idPrefix + kind + Long.toString(seq++, 36);
    }

    private void remember(String line) {
        recent[recentNext] = line;
        recentNext = (recentNext + 1) % RECENT;
        recentCount = Math.min(recentCount + 1, RECENT);
    }

    /** n instants spread uniformly over (from, to], in order. */
    private Instant[] spread(Instant from, Instant to, int n) {
        long span = Duration.between(from, to).toMillis();
        long[] offsets = new long[n];
        for (int i = 0; i < n; i++) {
            offsets[i] = span <= 0 ? 0 : span - (long) (rng.nextDouble() * span);
        }
        Arrays.sort(offsets);
        Instant[] out = new Instant[n];
        for (int i = 0; i < n; i++) {
            out[i] = span <= 0 ? to : from.plusMillis(offsets[i]);
        }
        return out;
    }

    /** Delays are log-uniform: most are short, a few are long. */
    private Duration logUniform(Duration min, Duration max) {
        return Duration.ofMillis(logUniform(min.toMillis(), max.toMillis()));
    }

    private long logUniform(long min, long max) {
        double lo = Math.log(min);
        double hi = Math.log(max);
        return Math.round(Math.exp(lo + (hi - lo) * rng.nextDouble()));
    }

    private static String write(ObjectNode n) {
        try {
            return JSON.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a beacon", e); // cannot happen for these values
        }
    }
}
