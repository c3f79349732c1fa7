package io.adreport.benchmarks.serving;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class WrkCorrectionTest {
    @Test
    void a_slow_sample_adds_the_waits_a_client_sending_every_interval_would_have_seen() {
        // 1 connection, 4 requests in 80 µs: e = 80 / 4 = 20 µs. 50 >= 40 adds 30 (50-20); 10 is not above e.
        long[] got = WrkCorrection.correct(new long[] {50, 10, 10, 10}, 80, 1);
        assertArrayEquals(new long[] {10, 10, 10, 30, 50}, got);
    }

    @Test
    void samples_below_twice_the_interval_are_left_alone() {
        // 2 connections, 6 requests in 300 µs: e = 300 / 3 = 100 µs; nothing reaches 200.
        long[] recorded = {199, 150, 40, 30, 20, 10};
        assertArrayEquals(new long[] {10, 20, 30, 40, 150, 199}, WrkCorrection.correct(recorded, 300, 2));
    }

    @Test
    void each_multiple_of_the_interval_above_it_is_added_once_per_slow_sample() {
        // 1 connection, 2 requests in 20 µs: e = 10. 45 adds 35, 25, 15 (5 is not above 10); 20 adds nothing (20-10 = 10 is not above 10).
        long[] got = WrkCorrection.correct(new long[] {45, 20}, 20, 1);
        assertArrayEquals(new long[] {15, 20, 25, 35, 45}, got);
        assertEquals(25, WrkCorrection.percentile(got, 50));
        assertEquals(45, WrkCorrection.percentile(got, 99));
        assertEquals(15, WrkCorrection.percentile(got, 1));
    }
}
