package io.adreport.reconcile;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** Real time shifted to start at a chosen instant; tests advance it instead of sleeping. */
final class TestClock extends Clock {
    private final AtomicLong offsetMillis;

    TestClock(Instant start) {
        offsetMillis = new AtomicLong(start.toEpochMilli() - System.currentTimeMillis());
    }

    void advance(Duration d) {
        offsetMillis.addAndGet(d.toMillis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(System.currentTimeMillis() + offsetMillis.get());
    }
}
