package io.adreport.schema.profile;

import io.adreport.schema.event.DeviceHasher;
import io.adreport.schema.event.DeviceHashes;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Device ids that name no device: empty, the all-zero advertising id that a phone reports when
 * the user limits tracking ({@code 00000000-0000-0000-0000-000000000000}), and configured
 * placeholders ({@code profiles.placeholder.ids}, e.g. {@code unknown}). Such ids are shared by
 * millions of people: a profile under them would be one giant hot row and a cap on it would cap
 * everybody. They are never written to profiles; a check for them follows
 * {@code serve.unidentified}. Known both raw (the check API sees raw ids) and hashed (the
 * aggregator sees only the keyed hash).
 */
public final class UnidentifiedDevices {
    public static final String ALL_ZERO = "00000000-0000-0000-0000-000000000000";

    private final Set<String> raw = new HashSet<>();
    private final Set<String> hashed = new HashSet<>();

    public UnidentifiedDevices(DeviceHasher hasher, List<String> placeholders) {
        add(hasher, "");
        add(hasher, ALL_ZERO);
        for (String p : placeholders) {
            add(hasher, p.trim());
        }
    }

    /** Known hashed under every secret of {@code hashes} (while rotating, events of both are stored). */
    public UnidentifiedDevices(DeviceHashes hashes, List<String> placeholders) {
        this(hashes == null ? null : hashes.currentHasher(), placeholders);
        if (hashes != null && hashes.rotating()) {
            add(hashes.previousHasher(), "");
            add(hashes.previousHasher(), ALL_ZERO);
            for (String p : placeholders) {
                add(hashes.previousHasher(), p.trim());
            }
        }
    }

    private UnidentifiedDevices() {
    }

    /**
     * Known only by their keyed hashes ({@link #hashes} of another instance): what a task on
     * another host needs to recognise them in stored events without the device secret.
     */
    public static UnidentifiedDevices ofHashes(Collection<String> hashes) {
        UnidentifiedDevices u = new UnidentifiedDevices();
        u.hashed.addAll(hashes);
        return u;
    }

    /** The keyed hashes known (a copy). */
    public Set<String> hashes() {
        return Set.copyOf(hashed);
    }

    private void add(DeviceHasher hasher, String id) {
        raw.add(id.toLowerCase(Locale.ROOT));
        if (hasher != null) {
            hashed.add(hasher.hash(id));
            hashed.add(hasher.hash(id.toUpperCase(Locale.ROOT)));
            hashed.add(hasher.hash(id.toLowerCase(Locale.ROOT)));
        }
    }

    /** True for a raw id that names no device (blank, all zero, a placeholder). */
    public boolean isUnidentifiedRaw(String id) {
        return id == null || id.isBlank() || raw.contains(id.trim().toLowerCase(Locale.ROOT));
    }

    /** True for the keyed hash of such an id (as the aggregator sees it). */
    public boolean isUnidentifiedHash(String hash) {
        return hash == null || hashed.contains(hash);
    }
}
