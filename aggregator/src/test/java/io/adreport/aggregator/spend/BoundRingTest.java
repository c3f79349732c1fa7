package io.adreport.aggregator.spend;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The kept maximum equals a scan of the same slots after every write. */
class BoundRingTest {

    @Test
    void theKeptMaximumIsTheLargestSlotAfterEveryWrite() {
        Random random = new Random(33);
        for (int size : new int[] {1, 2, 7, 240}) {
            BoundRing ring = new BoundRing(size);
            long[] shadow = new long[size];
            int slot = 0;
            for (int i = 0; i < 20_000; i++) {
                slot = (slot + 1) % size;
                // Bursts, decays and idle intervals: zeros often, so the maximum must fall back.
                long value = switch (random.nextInt(4)) {
                    case 0 -> 0;
                    case 1 -> random.nextInt(10);
                    case 2 -> random.nextInt(1_000_000);
                    default -> shadow[(slot + size - 1) % size] / 2;
                };
                shadow[slot] = value;
                long expected = Arrays.stream(shadow).max().orElse(0);
                assertEquals(expected, ring.set(slot, value), "size " + size + ", write " + i);
                assertEquals(expected, ring.max());
            }
        }
    }

    @Test
    void anEmptyRingAndOneThatDecayedToNothingHaveMaximumZero() {
        BoundRing ring = new BoundRing(3);
        assertEquals(0, ring.max());
        ring.set(0, 5);
        ring.set(1, 0);
        ring.set(2, 0);
        assertEquals(5, ring.max());
        assertEquals(0, ring.set(0, 0));
    }
}
