package io.adreport.schema.privacy;

import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One privacy deletion as stored.
 *
 * @param id               the deletion id (32 hex digits)
 * @param steps            the steps reached, with their times
 * @param deviceHash       the device's keyed hash while the deletion has not reached
 *                         {@code unreadable}; null after (the request row forgets the device)
 * @param previousHash     the device's hash under the previous device secret, when the deletion was
 *                         asked for while the secret rotated; null otherwise and after {@code unreadable}
 * @param eventsRewritten  raw events rewritten without the device so far
 * @param profileCells     profile cells (segments, views, index) deleted
 * @param targets          key ranges whose regions held the device's cells, to compact
 * @param compactRequested when the compaction of the targets was requested, or null
 */
public record Deletion(String id, Map<DeletionStep, Instant> steps, String deviceHash, String previousHash, long eventsRewritten,
                       long profileCells, List<Target> targets, Instant compactRequested) {
    public Deletion {
        Objects.requireNonNull(id, "id");
        EnumMap<DeletionStep, Instant> copy = new EnumMap<>(DeletionStep.class);
        copy.putAll(steps);
        steps = Collections.unmodifiableMap(copy);
        targets = List.copyOf(targets);
    }

    /** The hashes whose data is still to be erased: current first, then the previous one; empty after {@code unreadable}. */
    public List<String> deviceHashes() {
        java.util.ArrayList<String> out = new java.util.ArrayList<>(2);
        if (deviceHash != null) {
            out.add(deviceHash);
        }
        if (previousHash != null) {
            out.add(previousHash);
        }
        return out;
    }

    /** The last step reached. */
    public DeletionStep step() {
        DeletionStep last = DeletionStep.REQUESTED;
        for (DeletionStep s : steps.keySet()) {
            last = s; // EnumMap iterates in step order
        }
        return last;
    }

    public Instant requestedAt() {
        return steps.get(DeletionStep.REQUESTED);
    }

    public boolean done() {
        return steps.containsKey(DeletionStep.DONE);
    }

    /**
     * A key range of a table ({@code end} empty: to the end of the table) whose regions must be
     * major-compacted.
     */
    public record Target(String table, byte[] start, byte[] end) {
        public Target {
            Objects.requireNonNull(table, "table");
            start = start.clone();
            end = end.clone();
        }
    }
}
