package io.adreport.aggregator.store;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ScalableBloomTest {

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void never_a_false_negative_and_false_positives_stay_near_the_target_while_it_grows() {
        ScalableBloom bloom = new ScalableBloom(1_000, 0.01, 64L << 20);
        Random random = new Random(7);
        Set<String> added = new HashSet<>();
        for (int i = 0; i < 200_000; i++) {
            String k = "impression\0id-" + random.nextLong();
            added.add(k);
            assertTrue(bloom.add(key(k)));
        }
        for (String k : added) {
            assertTrue(bloom.mightContain(key(k)), k);
        }
        int falsePositives = 0;
        int probes = 200_000;
        for (int i = 0; i < probes; i++) {
            String k = "impression\0other-" + i;
            if (!added.contains(k) && bloom.mightContain(key(k))) {
                falsePositives++;
            }
        }
        double rate = (double) falsePositives / probes;
        assertTrue(rate < 0.02, "false-positive rate " + rate + " above twice the first segment's 1%");
        assertTrue(rate > 0, "a Bloom filter that answers no for every key it was not given is suspicious: " + rate);
    }

    @Test
    void the_memory_bound_refuses_adds_instead_of_growing() {
        ScalableBloom bloom = new ScalableBloom(1_000, 0.01, 16 * 1024);
        int accepted = 0;
        for (int i = 0; i < 100_000; i++) {
            if (bloom.add(key("k" + i))) {
                accepted++;
            }
        }
        assertTrue(bloom.saturated());
        assertTrue(bloom.bytes() <= 16 * 1024, "bytes " + bloom.bytes());
        assertTrue(accepted < 100_000 && accepted >= 1_000, "accepted " + accepted);
        for (int i = 0; i < accepted; i++) {
            assertTrue(bloom.mightContain(key("k" + i)), "an accepted key is never forgotten");
        }
    }

    @Test
    void concurrent_adds_are_all_visible() {
        ScalableBloom bloom = new ScalableBloom(100, 0.01, 64L << 20);
        IntStream.range(0, 8).parallel().forEach(t -> {
            for (int i = 0; i < 20_000; i++) {
                bloom.add(key(t + ":" + i));
            }
        });
        for (int t = 0; t < 8; t++) {
            for (int i = 0; i < 20_000; i++) {
                assertTrue(bloom.mightContain(key(t + ":" + i)));
            }
        }
        assertFalse(bloom.saturated());
    }
}
