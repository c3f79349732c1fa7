package io.adreport.schema.event;

import java.util.Arrays;
import java.util.List;

/**
 * The one owner of which keyed hashes name a device: the current secret's, and during a rotation
 * also the previous secret's ({@code device.hash.secret} and {@code device.hash.secret.previous}).
 *
 * <p><b>Rotation.</b> Every write (ingest, view histories, the privacy reverse index, segment
 * loads) keys a device by {@link #current}; reads that must see all of a device's data (the
 * bid-time check, ad selection, privacy deletion) use {@link #all}, current first. An event
 * ingested while rotating also records the previous hash of its device beside the current one
 * ({@link #formerField}), so that the nightly pass, which only ever sees hashes, learns which old
 * row belongs to which new one and moves it. Without a previous secret nothing changes: one hash,
 * one read, no extra field.
 *
 * <p>Immutable and thread-safe (each {@link DeviceHasher} keeps a Mac per thread).
 */
public final class DeviceHashes {
    /** Suffix of the hashed field that carries a device's hash under the previous secret, in events ingested while rotating. */
    public static final String FORMER_SUFFIX = "@previous";

    private final DeviceHasher current;
    private final DeviceHasher previous;

    /**
     * @param current  the secret new writes use (at least {@value DeviceHasher#MIN_SECRET_BYTES} bytes)
     * @param previous the secret being retired, or null; equal to {@code current} counts as none
     */
    public static DeviceHashes of(byte[] current, byte[] previous) {
        boolean rotating = previous != null && previous.length > 0 && !Arrays.equals(current, previous);
        return new DeviceHashes(new DeviceHasher(current), rotating ? new DeviceHasher(previous) : null);
    }

    /** One secret, no rotation. */
    public static DeviceHashes of(DeviceHasher current) {
        return new DeviceHashes(current, null);
    }

    private DeviceHashes(DeviceHasher current, DeviceHasher previous) {
        if (current == null) {
            throw new IllegalArgumentException("current: a device hash secret is required");
        }
        this.current = current;
        this.previous = previous;
    }

    /** The hasher of the current secret. */
    public DeviceHasher currentHasher() {
        return current;
    }

    /** The hasher of the previous secret, or null when not rotating. */
    public DeviceHasher previousHasher() {
        return previous;
    }

    /** True while a previous secret is configured. */
    public boolean rotating() {
        return previous != null;
    }

    /** The hash every write uses. */
    public String current(String id) {
        return current.hash(id);
    }

    /** The device's hash under the previous secret, or null when not rotating. */
    public String previous(String id) {
        return previous == null ? null : previous.hash(id);
    }

    /** Every hash the device may be stored under: current first, then the previous one while rotating. */
    public List<String> all(String id) {
        String now = current.hash(id);
        return previous == null ? List.of(now) : List.of(now, previous.hash(id));
    }

    /** The hashed field that carries the previous hash of {@code field} in an event. */
    public static String formerField(String field) {
        return field + FORMER_SUFFIX;
    }
}
