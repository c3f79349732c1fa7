package io.adreport.aggregator.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A scalable Bloom filter over byte keys (Almeida et al., 2007): a list of fixed-size segments;
 * when the newest is full a new one twice as large with half its false-positive rate is added,
 * so the combined false-positive rate stays below twice the first segment's whatever the number
 * of keys, and memory follows the keys actually added.
 *
 * <p>Never a false negative: a key that was added is always reported as possibly present. Adds
 * and queries are thread-safe and lock-free (bits are set with CAS); growing takes a lock.
 * {@link #add} refuses to grow beyond {@code maxBytes} and returns {@code false} from then on,
 * so callers can stop trusting the filter instead of running out of heap.
 */
public final class ScalableBloom {
    private static final double LN2 = Math.log(2);

    private final double firstFpp;
    private final long maxBytes;
    private volatile List<Segment> segments;
    private volatile boolean saturated;

    /**
     * @param firstCapacity keys the first segment holds at {@code firstFpp}
     * @param firstFpp      false-positive rate of the first segment (the total stays below twice this)
     * @param maxBytes      memory bound for all segments
     */
    public ScalableBloom(long firstCapacity, double firstFpp, long maxBytes) {
        if (firstCapacity < 1 || !(firstFpp > 0 && firstFpp < 1)) {
            throw new IllegalArgumentException("capacity >= 1 and 0 < fpp < 1 required");
        }
        this.firstFpp = firstFpp;
        this.maxBytes = maxBytes;
        this.segments = List.of(new Segment(firstCapacity, firstFpp));
    }

    /** Adds {@code key}; {@code false} when the memory bound was reached and the key could not be added. */
    public boolean add(byte[] key) {
        if (saturated) {
            return false;
        }
        long h1 = hash(key, 0x9E3779B97F4A7C15L);
        long h2 = hash(key, 0xC2B2AE3D27D4EB4FL) | 1;
        Segment last = segments.get(segments.size() - 1);
        if (last.count.get() >= last.capacity && !grow(last)) {
            return false;
        }
        segments.get(segments.size() - 1).add(h1, h2);
        return true;
    }

    /** {@code false} only if {@code key} was certainly never added. */
    public boolean mightContain(byte[] key) {
        long h1 = hash(key, 0x9E3779B97F4A7C15L);
        long h2 = hash(key, 0xC2B2AE3D27D4EB4FL) | 1;
        for (Segment s : segments) {
            if (s.mightContain(h1, h2)) {
                return true;
            }
        }
        return false;
    }

    /** Whether an add was refused for the memory bound (the filter then misses keys). */
    public boolean saturated() {
        return saturated;
    }

    public long bytes() {
        long b = 0;
        for (Segment s : segments) {
            b += s.bits.length() * 8L;
        }
        return b;
    }

    public long count() {
        long n = 0;
        for (Segment s : segments) {
            n += s.count.get();
        }
        return n;
    }

    private synchronized boolean grow(Segment full) {
        List<Segment> current = segments;
        if (current.get(current.size() - 1) != full) {
            return true; // another thread grew it
        }
        int k = current.size();
        Segment next = new Segment(full.capacity * 2, firstFpp * Math.pow(0.5, k));
        if (bytes() + next.bits.length() * 8L > maxBytes) {
            saturated = true;
            return false;
        }
        List<Segment> grown = new ArrayList<>(current);
        grown.add(next);
        segments = List.copyOf(grown);
        return true;
    }

    /** 64-bit hash of a byte array (a multiply-xorshift mix per 8 bytes; good enough for Bloom probing). */
    static long hash(byte[] key, long seed) {
        long h = seed ^ (key.length * 0xFF51AFD7ED558CCDL);
        int i = 0;
        for (; i + 8 <= key.length; i += 8) {
            long v = 0;
            for (int j = 0; j < 8; j++) {
                v |= (key[i + j] & 0xFFL) << (8 * j);
            }
            h = mix(h ^ mix(v));
        }
        long v = 0;
        for (int j = 0; i < key.length; i++, j++) {
            v |= (key[i] & 0xFFL) << (8 * j);
        }
        return mix(h ^ mix(v ^ 0x27BB2EE687B0B0FDL));
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return z ^ (z >>> 33);
    }

    /** One classic Bloom filter with double hashing (Kirsch and Mitzenmacher). */
    private static final class Segment {
        final long capacity;
        final int hashes;
        final long bitCount;
        final AtomicLongArray bits;
        final java.util.concurrent.atomic.AtomicLong count = new java.util.concurrent.atomic.AtomicLong();

        Segment(long capacity, double fpp) {
            this.capacity = capacity;
            long m = (long) Math.ceil(-capacity * Math.log(fpp) / (LN2 * LN2));
            this.bitCount = Math.max(64, (m + 63) / 64 * 64);
            this.hashes = Math.max(1, (int) Math.round((double) bitCount / capacity * LN2));
            this.bits = new AtomicLongArray((int) (bitCount / 64));
        }

        void add(long h1, long h2) {
            for (int i = 0; i < hashes; i++) {
                long bit = Math.floorMod(h1 + i * h2, bitCount);
                int word = (int) (bit >>> 6);
                long mask = 1L << (bit & 63);
                long old;
                while (((old = bits.get(word)) & mask) == 0 && !bits.compareAndSet(word, old, old | mask)) {
                    Thread.onSpinWait();
                }
            }
            count.incrementAndGet();
        }

        boolean mightContain(long h1, long h2) {
            for (int i = 0; i < hashes; i++) {
                long bit = Math.floorMod(h1 + i * h2, bitCount);
                if ((bits.get((int) (bit >>> 6)) & (1L << (bit & 63))) == 0) {
                    return false;
                }
            }
            return true;
        }
    }
}
